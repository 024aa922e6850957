package org.roce4j.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;

import org.roce4j.conform.PeerProfile;
import org.roce4j.conform.Scenario;
import org.roce4j.conform.ScenarioResult;
import org.roce4j.conform.ScenarioRunner;
import org.roce4j.conform.Side;
import org.roce4j.conform.Verdict;
import org.roce4j.conform.catalogue.Catalogue;
import org.roce4j.conform.dut.RemoteDutConfig;
import org.roce4j.conform.dut.RemoteTestbed;
import org.roce4j.conform.dut.RemoteTool;
import org.roce4j.conform.dut.RequesterListeners;
import org.roce4j.conform.dut.SelfDut;
import org.roce4j.conform.file.ScenarioFile;
import org.roce4j.conform.report.ReportWriter;
import org.roce4j.conform.report.TerminalTable;
import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.LinkSpecs;
import org.roce4j.wire.header.Ipv4Header;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code roce conform}: run the conformance scenarios of roce-conform against a device under test and print a verdict
 * per scenario. The DUT is roce4j itself ({@code --self}) or a remote device ({@code --link SPEC SERVER}) running
 * stock perftest servers in loops ({@link RemoteDutConfig#loop}).
 */
@Command(
    name = "conform",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
        "Judge a RoCEv2 device against the IBA rules with scripted, misbehaving exchanges: one verdict per " +
            "scenario (PASS, FAIL, DEVIATION explained by --profile, SKIP with its reason).",
        "The device under test is roce4j itself (--self, over the in-memory fabric, on an injected clock: no " +
            "waiting; congestion control on, DCQCN, so it is a CNP notification point), or a remote device (--link " +
            "SPEC SERVER) driven only by stock tools: as responder it runs perftest servers in loops, roce4j " +
            "connects through their exchange for each scenario and sends its own requests on the QP it got; as " +
            "requester it runs perftest clients in loops towards roce4j (-s 64 -n 5 -t 1), which accepts their " +
            "exchange as perftest's server and answers their requests as a misbehaving responder (the run prints " +
            "every loop it needs). A part of a rule the tools cannot show (the payload in the DUT's memory, a " +
            "completion's status) is reported as not checked beside the verdict of what was observed, and a " +
            "scenario that needs what they cannot give (work no client loop posts; a READ of a region without " +
            "remote read) SKIPs with the reason.",
        "Exit codes: 0 no FAIL; 1 at least one FAIL; 2 usage error."})
public final class ConformCommand implements Callable<Integer>
{
    /** Exit code when some scenario FAILed. */
    static final int EXIT_FAIL = 1;
    /** Exit code for usage errors. */
    static final int EXIT_USAGE = 2;
    /** rxe's GID index of its RoCEv2 IPv4-mapped GID (index 0 is the link-local one). */
    static final int DEFAULT_DUT_GID_INDEX = 1;

    @Spec
    private CommandSpec spec;

    @Option(names = "--list", description = "print the catalogue (name, side, IBA section, rule; a section marked * " +
        "was checked against a public source quoting the IBA) and exit")
    private boolean list;

    @Option(names = "--self", description = "run against roce4j itself over the in-memory fabric")
    private boolean self;

    @Option(names = "--suite", paramLabel = "SUITE", defaultValue = "all",
        description = "responder, requester, congestion or all (default: all)")
    private String suite;

    @Option(names = "--scenario", paramLabel = "NAME", arity = "1..*",
        description = "run only these scenarios (names as --list prints them)")
    private List<String> scenarios = new ArrayList<>();

    @Option(names = "--file", paramLabel = "FILE", arity = "1..*",
        description = "run the scenarios of these YAML files instead of the catalogue (format in docs/conform.md)")
    private List<Path> files = new ArrayList<>();

    @Option(names = "--profile", paramLabel = "PROFILE", defaultValue = "none",
        description = "what the DUT is, so its documented departures are DEVIATION, not FAIL: rxe, connectx or " +
            "none (default: none)")
    private String profile;

    @Option(names = "--report", paramLabel = "DIR",
        description = "write report.md, report.json, junit.xml, pcap/NAME.pcap and index.html with html/NAME.html " +
            "(one page per scenario with its ladder diagram) into DIR")
    private Path reportDir;

    @Option(names = "--link", paramLabel = "SPEC",
        description = "the conform peer's link to a remote DUT: " + LinkSpecs.FORMS)
    private String link;

    @Option(names = "-x", paramLabel = "GID_INDEX",
        description = "the remote DUT's GID index of its RoCEv2 IPv4 GID, in the loops printed for it (default: 1, " +
            "rxe's)")
    private Integer gidIndex;

    @Option(names = "-p", paramLabel = "PORT",
        description = "the remote DUT's first control port: ib_write_bw's loop; ib_atomic_bw's listens on PORT + 1, " +
            "ib_send_bw's on PORT + 2, ib_read_bw's on PORT + 3, ib_send_bw -c UD's on PORT + 4 (default: 18515, " +
            "perftest's)")
    private Integer port;

    @Option(names = "--listen", paramLabel = "PORT",
        description = "the first port roce4j listens on (every address) for the remote DUT's client loops (the DUT " +
            "as requester): ib_write_bw's connects to PORT, ib_read_bw's to PORT + 1, ib_send_bw's to PORT + 2, " +
            "ib_write_bw -s 4096's to PORT + 3, ib_write_bw -s 102400's to PORT + 4, ib_read_bw -t 2's to PORT + 5 " +
            "(default: 18525)")
    private Integer listenPort;

    @Option(names = "--peer-host", paramLabel = "HOST",
        description = "roce4j's control address as the remote DUT reaches it, in the client loops printed for it " +
            "(default: the --link's IPv4 address)")
    private String peerHost;

    @Option(names = "--dut-wait", paramLabel = "MS", defaultValue = "50",
        description = "a remote DUT's least time to answer, and the shortest silence watched for, in milliseconds " +
            "(default: 50; an emulated DUT on a loaded host may need 1000)")
    private long dutWaitMs;

    @Option(names = "--dut-device", paramLabel = "DEV", defaultValue = "rxe0",
        description = "the remote DUT's RDMA device, in the loops printed for it (default: rxe0; mlx5_0 on a " +
            "ConnectX)")
    private String dutDevice;

    @Parameters(index = "0", arity = "0..1", paramLabel = "SERVER",
        description = "the remote DUT's control address, as for roce perf")
    private String server;

    /**
     * @return the exit code.
     */
    public Integer call()
    {
        final PrintWriter out = spec.commandLine().getOut();
        final PeerProfile peerProfile;
        final List<Scenario> selected;
        try
        {
            peerProfile = PeerProfile.of(profile);
            selected = select();
        }
        catch (final IllegalArgumentException ex)
        {
            throw new ParameterException(spec.commandLine(), ex.getMessage());
        }
        catch (final IOException ex)
        {
            throw new ParameterException(spec.commandLine(), "cannot read a scenario file: " + ex.getMessage());
        }
        if (list)
        {
            for (final Scenario scenario : selected)
            {
                out.println(String.format("%-44s %-10s %-22s %s", scenario.name(), scenario.side().suiteName(),
                    scenario.rule().section() + (scenario.rule().verified() ? "*" : ""),
                    scenario.rule().paraphrase()));
            }
            out.println(selected.size() + " scenarios");
            out.flush();
            return 0;
        }
        if (self == (null != link || null != server))
        {
            throw new ParameterException(spec.commandLine(), "give either --self or --link SPEC SERVER (a remote " +
                "DUT running the tool loops the run prints)");
        }
        if (!self && (null == link || null == server))
        {
            throw new ParameterException(spec.commandLine(), "a remote DUT needs both --link SPEC and SERVER");
        }
        final TerminalTable table = new TerminalTable(out);
        final String dutName;
        final List<ScenarioResult> results;
        if (self)
        {
            dutName = "roce4j (self, in-memory fabric)";
            table.header(dutName, peerProfile.cliName());
            results = new ScenarioRunner(() -> SelfDut.testbed(UnaryOperator.identity()), peerProfile)
                .runAll(selected, table::row);
        }
        else
        {
            if (dutWaitMs < 1)
            {
                throw new ParameterException(spec.commandLine(), "--dut-wait must be at least 1 ms, not " +
                    dutWaitMs);
            }
            final Link peerLink;
            try
            {
                peerLink = LinkSpecs.open(link);
            }
            catch (final IOException | RuntimeException ex)
            {
                throw new ParameterException(spec.commandLine(), "cannot open --link " + link + ": " +
                    ex.getMessage());
            }
            try (Link opened = peerLink; RequesterListeners listeners = new RequesterListeners())
            {
                final RemoteDutConfig config = RemoteDutConfig.of(server, null == port ?
                    RemoteDutConfig.DEFAULT_PORT : port, dutDevice, null == gidIndex ? DEFAULT_DUT_GID_INDEX : gidIndex)
                    .withWaitFloorNs(dutWaitMs * 1_000_000L)
                    .withListener(null == listenPort ? RemoteDutConfig.DEFAULT_LISTEN_PORT : listenPort,
                        null == peerHost ? Ipv4Header.addressToString(opened.address().ipv4()) : peerHost);
                out.println("On the DUT (" + server + "), start these loops and leave them running:");
                for (final RemoteTool tool : RemoteTool.forScenarios(selected))
                {
                    out.println("  " + config.loop(tool));
                }
                try
                {
                    listeners.listenFor(config, RemoteTool.forScenarios(selected));
                }
                catch (final IOException ex)
                {
                    throw new ParameterException(spec.commandLine(), "cannot listen for the DUT's client loops on " +
                        "port " + config.listenPort() + " and the next ones (--listen): " + ex.getMessage());
                }
                dutName = server + " (" + dutDevice + ", over " + opened.name() + ")";
                table.header(dutName, peerProfile.cliName());
                results = new ScenarioRunner(RemoteTestbed.factory(config, opened, listeners), peerProfile)
                    .runAll(selected, result ->
                    {
                        table.row(result);
                        out.println("    DUT: " + config.needs(result.scenario()));
                    });
            }
        }
        table.summary(results);
        if (null != reportDir)
        {
            try
            {
                new ReportWriter(dutName, peerProfile.cliName()).write(reportDir, results);
                out.println("report: " + reportDir.resolve("report.md"));
                out.println("report: " + reportDir.resolve("index.html"));
            }
            catch (final IOException ex)
            {
                spec.commandLine().getErr().println("roce conform: cannot write the report into " + reportDir + ": " +
                    ex.getMessage());
                spec.commandLine().getErr().flush();
                return EXIT_FAIL;
            }
        }
        out.flush();
        return exitCode(results);
    }

    /**
     * @param results every result.
     * @return {@link #EXIT_FAIL} when any scenario FAILed, else 0 (DEVIATION and SKIP do not fail a run).
     */
    static int exitCode(final List<ScenarioResult> results)
    {
        return results.stream().anyMatch(r -> Verdict.FAIL == r.verdict()) ? EXIT_FAIL : 0;
    }

    private List<Scenario> select() throws IOException
    {
        if (!files.isEmpty())
        {
            final List<Scenario> out = new ArrayList<>();
            for (final Path file : files)
            {
                out.add(ScenarioFile.load(file));
            }
            return out;
        }
        if (!scenarios.isEmpty())
        {
            final List<Scenario> out = new ArrayList<>();
            for (final String name : scenarios)
            {
                out.add(Catalogue.named(name));
            }
            return out;
        }
        if ("all".equals(suite))
        {
            return Catalogue.all();
        }
        for (final Side side : Side.values())
        {
            if (side.suiteName().equals(suite))
            {
                return Catalogue.suite(side);
            }
        }
        throw new IllegalArgumentException("unknown suite '" + suite + "': use responder, requester, congestion " +
            "or all");
    }
}
