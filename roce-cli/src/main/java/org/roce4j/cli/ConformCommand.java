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
import org.roce4j.conform.dut.SelfDut;
import org.roce4j.conform.file.ScenarioFile;
import org.roce4j.conform.report.ReportWriter;
import org.roce4j.conform.report.TerminalTable;
import org.roce4j.transport.link.LinkSpecs;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code roce conform}: run the conformance scenarios of roce-conform against a device under test and print a verdict
 * per scenario. Today the DUT is roce4j itself ({@code --self}); a remote DUT ({@code --link SPEC SERVER}) is not
 * implemented yet and says so (exit code 2).
 */
@Command(
    name = "conform",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
        "Judge a RoCEv2 device against the IBA rules with scripted, misbehaving exchanges: one verdict per " +
            "scenario (PASS, FAIL, DEVIATION explained by --profile, SKIP with its reason).",
        "Today the device under test is roce4j itself (--self, over the in-memory fabric, on an injected clock: " +
            "no waiting; congestion control on, DCQCN, so it is a CNP notification point); against a remote device " +
            "(--link SPEC SERVER) it is not implemented yet and exits with 2.",
        "Exit codes: 0 no FAIL; 1 at least one FAIL; 2 usage error or remote DUT (not yet implemented)."})
public final class ConformCommand implements Callable<Integer>
{
    /** Exit code when some scenario FAILed. */
    static final int EXIT_FAIL = 1;
    /** Exit code for usage errors and the not yet implemented remote DUT. */
    static final int EXIT_USAGE = 2;

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
        description = "link to a remote DUT (not yet implemented): " + LinkSpecs.FORMS)
    private String link;

    @Option(names = "-x", paramLabel = "GID_INDEX", description = "remote DUT's GID index (not yet implemented)")
    private Integer gidIndex;

    @Option(names = "-p", paramLabel = "PORT", description = "remote DUT's control port (not yet implemented)")
    private Integer port;

    @Parameters(index = "0", arity = "0..1", paramLabel = "SERVER",
        description = "remote DUT's control address, as for roce perf (not yet implemented)")
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
        if (!self)
        {
            final PrintWriter err = spec.commandLine().getErr();
            err.println("roce conform: a remote DUT (--link SPEC SERVER) is not yet implemented; use --self to run " +
                "the catalogue against roce4j itself, or --list to see it");
            err.flush();
            return EXIT_USAGE;
        }
        final String dutName = "roce4j (self, in-memory fabric)";
        final TerminalTable table = new TerminalTable(out);
        table.header(dutName, peerProfile.cliName());
        final List<ScenarioResult> results = new ScenarioRunner(() -> SelfDut.testbed(UnaryOperator.identity()),
            peerProfile).runAll(selected, table::row);
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
