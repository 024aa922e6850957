package org.roce4j.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.roce4j.cli.perf.PerfCompletionError;
import org.roce4j.cli.perf.PerfOutcome;
import org.roce4j.cli.perf.PerfRun;
import org.roce4j.cli.perf.PerfSettings;
import org.roce4j.cli.perf.PerfTest;
import org.roce4j.cm.perftest.PerftestConnector;
import org.roce4j.cm.perftest.PerftestRdmaCmChannel;
import org.roce4j.cm.perftest.PerftestTcpConnector;
import org.roce4j.cm.perftest.PerftestVersion;
import org.roce4j.cm.rdmacm.RdmaCm;
import org.roce4j.cm.rdmacm.RdmaCmId;
import org.roce4j.ib.QpType;
import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.memory.MemoryFabric;
import org.roce4j.transport.link.memory.MemoryLink;
import org.roce4j.verbs.DeviceOptions;
import org.roce4j.verbs.RdmaDevice;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code roce perf}: perftest's ib_send_bw, ib_write_bw, ib_read_bw, ib_atomic_bw, ib_send_lat, ib_write_lat and
 * ib_read_lat on roce4j, speaking Debian perftest 4.5+0.17's out-of-band exchange (over TCP, or with -R over
 * rdma_cm with the QPs connected by rdma_cm) and printing its report layout, so either side of a perftest run can be
 * roce4j.
 */
@Command(
    name = "perf",
    mixinStandardHelpOptions = true,
    exitCodeOnInvalidInput = PerfCommand.EXIT_FAILURE,
    exitCodeOnExecutionException = PerfCommand.EXIT_FAILURE,
    description = {
        "Measure bandwidth or latency with a perftest peer, like ib_<test> (perftest 4.5), same options and output.",
        "Without a server name it is the server and waits for a client; with one it connects to it, once (a " +
            "refused connection fails at once, as perftest's does).",
        "With -R the exchange and the QPs' connection go over rdma_cm (server name: the peer's RoCE IP address).",
        "With --link memory (the default) and no server name it runs both sides in this process over the " +
            "in-memory fabric.",
        "Exit code 0, or 1 on any error (perftest's FAILURE); after a failed completion perftest 4.5's own code " +
            "(17 for send_bw, send_lat and read_lat)."})
public final class PerfCommand implements Callable<Integer>
{
    /** perftest's FAILURE: every error, bad options included. */
    static final int EXIT_FAILURE = 1;
    /** Backoff of the polling thread when nothing happens: spin, yield, then park 1 us growing to 100 us. */
    private static final long MAX_PARK_NS = 100_000;

    /** Test seam: sees the in-process server's fabric port before the run starts (to make the server die). */
    Consumer<MemoryLink> inProcessServerPort = port -> {};

    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", paramLabel = "test", description = "send_bw | write_bw | read_bw | atomic_bw | " +
        "send_lat | write_lat | read_lat")
    private String testName;

    @Parameters(index = "1", arity = "0..1", paramLabel = "server", description = "connect to the server at this host")
    private String server;

    @Option(names = {"-p", "--port"}, paramLabel = "port", description = "listen on/connect to port (default 18515)")
    private int port = PerftestTcpConnector.DEFAULT_PORT;

    @Option(names = {"-d", "--ib-dev"}, paramLabel = "dev", description = "name printed as the device (the device " +
        "is the one --link opens)")
    private String ibDev;

    @Option(names = {"-i", "--ib-port"}, paramLabel = "port", description = "port of the device (roce4j devices " +
        "have one, 1)")
    private int ibPort = 1;

    @Option(names = {"-s", "--size"}, paramLabel = "size", description = "size of message to exchange (default " +
        "65536 for BW, 2 for latency; K and M suffixes as perftest)")
    private String size;

    @Option(names = {"-n", "--iters"}, paramLabel = "iters", description = "number of exchanges (at least 5, " +
        "default 1000; 5000 for write_bw)")
    private Integer iters;

    @Option(names = {"-D", "--duration"}, paramLabel = "sec", description = "run for this many seconds instead of " +
        "a number of iterations")
    private int duration;

    @Option(names = {"-f", "--margin"}, paramLabel = "sec", description = "with -D: seconds at each end left out " +
        "of the measurement (default duration/4)")
    private Integer margin;

    @Option(names = {"-a", "--all"}, description = "run sizes from 2 till 2^23")
    private boolean all;

    @Option(names = {"-q", "--qp"}, paramLabel = "num", description = "number of QPs (BW tests; default 1)")
    private int qps = 1;

    @Option(names = {"-m", "--mtu"}, paramLabel = "mtu", description = "MTU size: 256 - 4096 (default port mtu)")
    private int mtu;

    @Option(names = {"-x", "--gid-index"}, paramLabel = "index", description = "GID index (default: the " +
        "first IPv4-mapped GID, 1 on roce4j and rxe; as on rxe: 0 the link-local IPv6 GID, then one per IPv4 " +
        "address, then each global IPv6 address)")
    private Integer gidIndex;

    @Option(names = {"-c", "--connection"}, paramLabel = "RC|UC|UD", description = "connection type (default RC)")
    private String connection = "RC";

    @Option(names = {"-t", "--tx-depth"}, paramLabel = "dep", description = "size of tx queue (default 128 for BW, " +
        "1 for latency)")
    private Integer txDepth;

    @Option(names = {"-r", "--rx-depth"}, paramLabel = "dep", description = "receives kept posted (SEND tests; " +
        "default 512)")
    private Integer rxDepth;

    @Option(names = {"-Q", "--cq-mod"}, paramLabel = "num", description = "one completion per this many WRs " +
        "(default 100)")
    private Integer cqMod;

    @Option(names = {"-A", "--atomic_type"}, paramLabel = "type", description = "CMP_AND_SWAP or FETCH_AND_ADD " +
        "(default FETCH_AND_ADD)")
    private String atomicType;

    @Option(names = {"-o", "--outs"}, paramLabel = "num", description = "outstanding reads/atomics (default: the " +
        "device's maximum, 128)")
    private int outReads;

    @Option(names = {"-u", "--qp-timeout"}, paramLabel = "timeout", description = "QP timeout exponent: 4 usec * " +
        "2^timeout (default 14)")
    private int qpTimeout = 14;

    @Option(names = {"-S", "--sl"}, paramLabel = "sl", description = "service level (default 0)")
    private int sl;

    @Option(names = {"-b", "--bidirectional"}, description = "measure bidirectional bandwidth (default " +
        "unidirectional)")
    private boolean bidirectional;

    @Option(names = {"-N", "--noPeak"}, description = "do not compute the peak bandwidth")
    private boolean noPeak;

    @Option(names = {"-F", "--CPU-freq"}, description = "accepted for compatibility (roce4j times with " +
        "System.nanoTime, not CPU cycles)")
    private boolean cpuFreq;

    @Option(names = {"--report_gbits", "--report-gbits"}, description = "report bandwidth in Gbit/sec instead of " +
        "MiB/sec")
    private boolean reportGbits;

    @Option(names = {"-R", "--rdma_cm"}, description = "connect the QPs with rdma_cm and run the exchange over " +
        "an rdma_cm connection on the -p port, as perftest's -R (RC; UD by SIDR in rdma_cm's UDP port space)")
    private boolean rdmaCm;

    @Mixin
    private LinkOption link;

    @Option(names = "--perftest-version", paramLabel = "VERSION", description = "the perftest version to announce " +
        "in the exchange (default ${DEFAULT-VALUE}, Debian 12's perftest); 6.28 and later make a peer of 6.28 or " +
        "later run perftest's parameter negotiation with roce4j", defaultValue = PerftestVersion.LOCAL)
    private String perftestVersion;

    @Mixin
    private CcOptions cc;

    @Option(names = "--json", description = "print the results as one JSON object instead of perftest's table")
    private boolean json;

    @Mixin
    private CountersOption counters;

    @Option(names = "--spin", description = "busy-spin the engine and polling threads (lowest latency, uses two " +
        "cores); by default they back off when idle")
    private boolean spin;

    @Option(names = "--timeout", paramLabel = "ms", description = "give up when the peer makes no progress this " +
        "long (default 30000)")
    private long timeoutMs = 30_000;

    /**
     * @return the exit code.
     */
    public Integer call()
    {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        try
        {
            final PerfSettings settings = settings();
            link.check();
            if (link.isMemory())
            {
                return runInProcess(settings, out, err);
            }
            if (null != server && !rdmaCm)
            {
                HostNames.resolveServer(server, port);
            }
            try (Link opened = link.open(err);
                RdmaDevice device = RdmaDevice.open(opened, deviceOptions()))
            {
                final PerfOutcome outcome = runOne(device, settings, out, err);
                counters.print(device, err);
                if (json)
                {
                    out.println(outcome.toJson());
                }
                out.flush();
                return 0;
            }
        }
        catch (final PerfCompletionError ex)
        {
            // perftest's own lines and exit code, as the tool prints them.
            out.flush();
            err.print(ex.getMessage());
            err.flush();
            return ex.exitCode();
        }
        catch (final IOException | IllegalArgumentException | IllegalStateException ex)
        {
            out.flush();
            err.println("roce perf: " + ex.getMessage());
            err.flush();
            return EXIT_FAILURE;
        }
        finally
        {
            link.report(err);
        }
    }

    private PerfOutcome runOne(final RdmaDevice device, final PerfSettings settings, final PrintWriter out,
        final PrintWriter err) throws IOException
    {
        final Duration timeout = Duration.ofMillis(timeoutMs);
        final String name = null != ibDev ? ibDev : device.name();
        if (rdmaCm)
        {
            try (RdmaCm cm = RdmaCm.open(device))
            {
                return new PerfRun(device, settings, rdmaCmConnector(cm, settings.isClient() ? server : null),
                    name, out, err, idleStrategy()).run();
            }
        }
        if (settings.isClient())
        {
            // ethernet_client_connect tries once: a refused connection fails at once.
            final PerftestConnector connector = PerftestTcpConnector.client(server, port, true, timeout,
                Duration.ZERO);
            return new PerfRun(device, settings, connector, name, out, err, idleStrategy()).run();
        }
        try (ServerSocket listener = TcpListener.bind(port))
        {
            final PerftestConnector connector = PerftestTcpConnector.server(listener, true, timeout);
            return new PerfRun(device, settings, connector, name, out, err, idleStrategy()).run();
        }
    }

    /**
     * perftest -R's exchange: the client connects over rdma_cm to the server's IP on the -p port; the server listens
     * on that port (any of its addresses) and accepts one client, then the test's connections on the same listener.
     */
    private PerftestConnector rdmaCmConnector(final RdmaCm cm, final String host) throws IOException
    {
        final Duration timeout = Duration.ofMillis(timeoutMs);
        if (null != host)
        {
            final InetSocketAddress address = new InetSocketAddress(HostNames.resolveServer(host, port), port);
            // rdma_client_connect: a rejected connect (nobody listens on the port) fails at once.
            return () -> PerftestRdmaCmChannel.connect(cm, address, timeout, Duration.ZERO);
        }
        // rdma_listen(num_of_qps) in perftest; here the exchange's request comes to the same listener as well.
        final RdmaCmId listener = cm.createId();
        if (cc.hasTrafficClass())
        {
            listener.tos(cc.trafficClass());
        }
        listener.listen(new InetSocketAddress(InetAddress.getByName("0.0.0.0"), port),
            qps + 1);
        return () ->
        {
            try
            {
                return PerftestRdmaCmChannel.accept(cm, listener, timeout);
            }
            catch (final IOException | RuntimeException ex)
            {
                listener.destroy();
                throw ex;
            }
        };
    }

    /**
     * The engine runs on its own agent thread ({@link CcOptions#dedicatedDevice}).
     */
    private DeviceOptions deviceOptions()
    {
        return cc.dedicatedDevice(spin);
    }

    private IdleStrategy idleStrategy()
    {
        return spin ? new BusySpinIdleStrategy() : new BackoffIdleStrategy(100, 10, 1_000, MAX_PARK_NS);
    }

    private PerfSettings settings()
    {
        if (1 != ibPort)
        {
            throw new IllegalArgumentException("-i " + ibPort + ": roce4j devices have one port, 1");
        }
        final PerfTest test = PerfTest.parse(testName);
        if (null != atomicType && PerfTest.Verb.ATOMIC != test.verb())
        {
            throw new IllegalArgumentException(" You are not running the atomic_lat/bw test! To change the atomic " +
                "action type, you must run one of the atomic tests");
        }
        final PerfSettings settings = PerfSettings.builder(test)
            .server(server).port(port).size(null == size ? -1 : parseSize(size)).iters(null == iters ? -1 : iters)
            .all(all).duration(duration, null == margin ? -1 : margin).qps(qps).mtu(mtu)
            .gidIndex(null == gidIndex ? -1 : gidIndex).connection(parseConnection(connection))
            .txDepth(null == txDepth ? -1 : txDepth).rxDepth(null == rxDepth ? -1 : rxDepth)
            .cqMod(null == cqMod ? -1 : cqMod).atomicType(parseAtomic(atomicType)).reportGbits(reportGbits)
            .duplex(bidirectional).noPeak(noPeak).outReads(outReads).qpTimeout(qpTimeout).serviceLevel(sl)
            .json(json).rdmaCm(rdmaCm).timeoutMs(timeoutMs).perftestVersion(perftestVersion)
            .trafficClass(cc.hasTrafficClass() ? cc.trafficClass() : -1).build();
        cc.congestionControl();
        settings.resolve(org.roce4j.verbs.DeviceAttributes.MAX_QP_RD_ATOM);
        return settings;
    }

    /**
     * perftest's -s: strtol(optarg, NULL, 0) (decimal, 0x hex, 0 octal) times 1024 with a K suffix or 1024^2 with M.
     */
    static long parseSize(final String text)
    {
        String digits = text.trim();
        long factor = 1;
        if (digits.endsWith("K"))
        {
            factor = 1024;
            digits = digits.substring(0, digits.length() - 1);
        }
        else if (digits.endsWith("M"))
        {
            factor = 1024 * 1024;
            digits = digits.substring(0, digits.length() - 1);
        }
        try
        {
            return Long.decode(digits) * factor;
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("-s " + text + ": expected a number of bytes, optionally with K or M");
        }
    }

    private static QpType parseConnection(final String text)
    {
        switch (text)
        {
            case "RC":
                return QpType.RC;
            case "UC":
                return QpType.UC;
            case "UD":
                return QpType.UD;
            default:
                throw new IllegalArgumentException(" Invalid Connection type '" + text + "'. roce4j runs RC, UC " +
                    "and UD (perftest's XRC, DC, SRD and RawEth are not supported)");
        }
    }

    private static PerfSettings.AtomicType parseAtomic(final String text)
    {
        if (null == text)
        {
            return PerfSettings.AtomicType.FETCH_AND_ADD;
        }
        try
        {
            return PerfSettings.AtomicType.valueOf(text);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException(" Invalid Atomic type! please choose from {CMP_AND_SWAP," +
                "FETCH_AND_ADD}");
        }
    }

    /**
     * Both roles in this JVM over the in-memory fabric: the server on a second thread, its lines prefixed.
     */
    private int runInProcess(final PerfSettings settings, final PrintWriter out, final PrintWriter err)
        throws IOException
    {
        if (null != server)
        {
            throw new IllegalArgumentException("the 'memory' link exists only inside this process: run without a " +
                "server name to play both roles here");
        }
        final int linkMtu = 1500 + (mtu > 1024 ? 7500 : 0);
        final MemoryFabric fabric = new MemoryFabric();
        final MemoryLink serverPort = fabric.attach(InProcessPorts.SERVER, linkMtu);
        inProcessServerPort.accept(serverPort);
        final Link serverLink = link.decorate(serverPort, false, err);
        final Link clientLink = link.decorate(fabric.attach(InProcessPorts.CLIENT,
            linkMtu), true, err);
        if (rdmaCm)
        {
            return runInProcessRdmaCm(settings, serverLink, clientLink, out, err);
        }
        final Duration timeout = Duration.ofMillis(timeoutMs);
        final StringWriter serverText = new StringWriter();
        final StringWriter serverErr = new StringWriter();
        final PerfOutcome[] outcomes = new PerfOutcome[2];
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            final CompletableFuture<Void> serverRun = CompletableFuture.runAsync(() ->
            {
                try (RdmaDevice device = RdmaDevice.open(serverLink, deviceOptions()))
                {
                    final PrintWriter serverErrWriter = new PrintWriter(serverErr, true);
                    outcomes[1] = new PerfRun(device, settings.copy().server(null),
                        PerftestTcpConnector.server(listener, true, timeout), null != ibDev ? ibDev : device.name(),
                        new PrintWriter(serverText, true), serverErrWriter, idleStrategy()).run();
                    counters.print(device, serverErrWriter);
                }
                catch (final IOException ex)
                {
                    throw new IllegalStateException("server: " + ex.getMessage(), ex);
                }
            });
            try (RdmaDevice device = RdmaDevice.open(clientLink, deviceOptions()))
            {
                outcomes[0] = new PerfRun(device, settings.copy().server("127.0.0.1"),
                    PerftestTcpConnector.client("127.0.0.1", listener.getLocalPort(), true, timeout, Duration.ZERO),
                    null != ibDev ? ibDev : device.name(), out, err, idleStrategy()).run();
                counters.print(device, err);
            }
            catch (final IOException | RuntimeException ex)
            {
                serverRun.cancel(true);
                throw ex;
            }
            InProcessPorts.awaitServer(serverRun, timeoutMs);
        }
        printServer(serverText, serverErr, outcomes, out, err);
        return 0;
    }

    /**
     * Both roles over the in-memory fabric with -R: each device has its rdma_cm; the client connects to the server's
     * fabric address.
     */
    private int runInProcessRdmaCm(final PerfSettings settings, final Link serverLink, final Link clientLink,
        final PrintWriter out, final PrintWriter err) throws IOException
    {
        final StringWriter serverText = new StringWriter();
        final StringWriter serverErr = new StringWriter();
        final PerfOutcome[] outcomes = new PerfOutcome[2];
        final CountDownLatch listening = new CountDownLatch(1);
        final CompletableFuture<Void> serverRun = CompletableFuture.runAsync(() ->
        {
            try (RdmaDevice device = RdmaDevice.open(serverLink, deviceOptions());
                RdmaCm cm = RdmaCm.open(device))
            {
                final PrintWriter serverErrWriter = new PrintWriter(serverErr, true);
                final PerftestConnector connector;
                try
                {
                    connector = rdmaCmConnector(cm, null);
                }
                finally
                {
                    listening.countDown();
                }
                outcomes[1] = new PerfRun(device, settings.copy().server(null), connector,
                    null != ibDev ? ibDev : device.name(), new PrintWriter(serverText, true), serverErrWriter,
                    idleStrategy()).run();
                counters.print(device, serverErrWriter);
            }
            catch (final IOException ex)
            {
                throw new IllegalStateException("server: " + ex.getMessage(), ex);
            }
        });
        try (RdmaDevice device = RdmaDevice.open(clientLink, deviceOptions());
            RdmaCm cm = RdmaCm.open(device))
        {
            awaitListening(listening);
            outcomes[0] = new PerfRun(device, settings.copy().server(InProcessPorts.SERVER_IP),
                rdmaCmConnector(cm, InProcessPorts.SERVER_IP),
                null != ibDev ? ibDev : device.name(), out, err, idleStrategy()).run();
            counters.print(device, err);
        }
        catch (final IOException | RuntimeException ex)
        {
            serverRun.cancel(true);
            throw ex;
        }
        InProcessPorts.awaitServer(serverRun, timeoutMs);
        printServer(serverText, serverErr, outcomes, out, err);
        return 0;
    }

    private void awaitListening(final CountDownLatch listening) throws IOException
    {
        try
        {
            if (!listening.await(timeoutMs, TimeUnit.MILLISECONDS))
            {
                throw new IOException("the in-process server did not listen within " + timeoutMs + " ms");
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", ex);
        }
    }

    private void printServer(final StringWriter serverText, final StringWriter serverErr,
        final PerfOutcome[] outcomes, final PrintWriter out, final PrintWriter err)
    {
        for (final String line : serverText.toString().split("\n", -1))
        {
            if (!line.isEmpty() || !json)
            {
                out.println("[server] " + line);
            }
        }
        for (final String line : serverErr.toString().split("\n"))
        {
            if (!line.isEmpty())
            {
                err.println("[server] " + line);
            }
        }
        if (json)
        {
            out.println("[" + outcomes[0].toJson() + ",\n" + outcomes[1].toJson() + "]");
        }
        out.flush();
    }
}
