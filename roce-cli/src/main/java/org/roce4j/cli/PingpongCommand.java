package org.roce4j.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.roce4j.cli.pingpong.Pingpong;
import org.roce4j.cli.pingpong.PingpongSettings;
import org.roce4j.cli.pingpong.QuietLinger;
import org.roce4j.cli.pingpong.SrqPingpong;
import org.roce4j.ib.Mtu;
import org.roce4j.ib.QpType;
import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.transport.link.memory.MemoryFabric;
import org.roce4j.verbs.DeviceOptions;
import org.roce4j.verbs.ProgressGroup;
import org.roce4j.verbs.RdmaDevice;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code roce pingpong}: ibv_rc_pingpong / ibv_uc_pingpong / ibv_ud_pingpong on roce4j, same options, defaults
 * and output, so it can stand on either side of the C examples. Exit codes as theirs: 0, or 1 for every error,
 * bad options included (the examples print their usage and return 1).
 */
@Command(
    name = "pingpong",
    mixinStandardHelpOptions = true,
    exitCodeOnInvalidInput = PingpongCommand.EXIT_FAILURE,
    exitCodeOnExecutionException = PingpongCommand.EXIT_FAILURE,
    description = {
        "Ping-pong SEND messages with a peer, like ibv_rc_pingpong (ibv_uc_pingpong, ibv_ud_pingpong with " +
            "--transport; ibv_srq_pingpong with --srq N, N RC QPs sharing one SRQ: --srq 16 is ibv_srq_pingpong " +
            "-q 16, its default).",
        "Without a server name it is the server and waits for a client; with one it connects to it, once (a " +
            "refused connection fails at once, as ibv_rc_pingpong's does).",
        "With --link memory (the default) and no server name it runs both sides in this process over the " +
            "in-memory fabric.",
        "Exit code 0, or 1 on any error (as the ibv_*_pingpong examples)."})
public final class PingpongCommand implements Callable<Integer>
{
    /** ibv_*_pingpong return 1 on every error. */
    static final int EXIT_FAILURE = 1;

    @Spec
    private CommandSpec spec;

    @Mixin
    private LinkOption link;

    @Mixin
    private CcOptions cc;

    @Mixin
    private CountersOption counters;

    @Parameters(arity = "0..1", paramLabel = "server", description = "connect to the server at this host")
    private String server;

    @Option(names = {"-p", "--port"}, paramLabel = "port", description = "listen on/connect to port (default 18515)")
    private int port = 18515;

    @Option(names = {"-d", "--ib-dev"}, paramLabel = "dev", description = "accepted for compatibility; the device is " +
        "the one --link opens")
    private String ibDev;

    @Option(names = {"-i", "--ib-port"}, paramLabel = "port", description = "port of the device (default 1; roce4j " +
        "devices have one port)")
    private int ibPort = 1;

    @Option(names = {"-s", "--size"}, paramLabel = "size", description = "size of message to exchange (default 4096, " +
        "UD 1024)")
    private Integer size;

    @Option(names = {"-m", "--mtu"}, paramLabel = "size", description = "path MTU (default 1024)")
    private int mtu = 1024;

    @Option(names = {"-r", "--rx-depth"}, paramLabel = "dep", description = "number of receives to post at a time " +
        "(default 500)")
    private int rxDepth = 500;

    @Option(names = {"-n", "--iters"}, paramLabel = "iters", description = "number of exchanges (default 1000; " +
        "with --srq over all QPs together, as ibv_srq_pingpong counts them)")
    private int iters = 1000;

    @Option(names = {"-l", "--sl"}, paramLabel = "sl", description = "service level value")
    private int sl;

    @Option(names = {"-e", "--events"}, description = "sleep on CQ events (default poll)")
    private boolean events;

    @Option(names = {"-g", "--gid-idx"}, paramLabel = "gid index", description = "local port gid index (RoCE needs " +
        "one; as on rxe: 0 the link-local IPv6 GID, then one per IPv4 address, then each global IPv6 address, so 1 " +
        "is the first IPv4 address; --link memory uses 1 when none is given)")
    private int gidIndex = -1;

    @Option(names = {"-c", "--chk"}, description = "validate received buffer")
    private boolean check;

    @Option(names = {"-N", "--new_send"}, description = "accepted for compatibility (roce4j has one post-send path)")
    private boolean newSend;

    @Option(names = {"-o", "--odp", "-O", "--iodp", "-P", "--prefetch", "-t", "--ts", "-j", "--dm"},
        description = "on-demand paging, completion timestamps and device memory are not supported")
    private boolean unsupported;

    @Option(names = {"--srq", "-q", "--num-qp"}, paramLabel = "num", description = "be ibv_srq_pingpong with this " +
        "many RC QPs sharing one SRQ (its -q/--num-qp, default 16 there: --srq 16 is plain ibv_srq_pingpong); 1 to " +
        "255 and at most -r")
    private Integer srqQps;

    @Option(names = "--transport", paramLabel = "rc|uc|ud", description = "transport (default rc)")
    private String transport = "rc";

    @Option(names = "--spin", description = "busy-spin instead of backing off when idle: the engine thread of a " +
        "network link, or with --link memory each side's waits (lowest latency on an idle machine, uses a core per " +
        "side)")
    private boolean spin;

    @Option(names = "--timeout", paramLabel = "ms", description = "give up when the peer is silent this long " +
        "(default 30000)")
    private long timeoutMs = 30_000;

    @Option(names = "--linger", paramLabel = "ms", description = "after the last iteration, keep the QPs up while " +
        "the peer still sends, at most this long, so that a peer whose last ACK was lost gets it again when it " +
        "retransmits (the C tools have no closing handshake; rxe retries a retry_cnt of 7 forever). 0 closes at " +
        "once, as they do (default: ${DEFAULT-VALUE})")
    private long lingerMs = 10_000;

    @Option(names = "--quiet", paramLabel = "ms", description = "while lingering, close once the peer has sent " +
        "nothing for this long (default: ${DEFAULT-VALUE})")
    private long quietMs = 1_000;

    /**
     * @return the exit code.
     */
    public Integer call()
    {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        try
        {
            final PingpongSettings settings = settings();
            if (lingerMs < 0)
            {
                throw new IllegalArgumentException("--linger " + lingerMs + ": a time is at least 0");
            }
            if (quietMs < 0)
            {
                throw new IllegalArgumentException("--quiet " + quietMs + ": a time is at least 0");
            }
            link.check();
            if (link.isMemory())
            {
                return runInProcess(settings, out, err);
            }
            if (null != server)
            {
                HostNames.resolveServer(server, port);
                try (Link opened = link.open(err);
                    RdmaDevice device = RdmaDevice.open(opened, deviceOptions()))
                {
                    try
                    {
                        side(device, settings, out, null);
                        linger(device);
                    }
                    finally
                    {
                        counters.print(device, err);
                    }
                    return 0;
                }
            }
            try (ServerSocket listener = TcpListener.bind(port);
                Link opened = link.open(err);
                RdmaDevice device = RdmaDevice.open(opened, deviceOptions()))
            {
                try
                {
                    side(device, settings, out, listener);
                    linger(device);
                }
                finally
                {
                    counters.print(device, err);
                }
                return 0;
            }
        }
        catch (final IOException | IllegalArgumentException | IllegalStateException ex)
        {
            out.flush();
            err.println("roce pingpong: " + ex.getMessage());
            err.flush();
            return EXIT_FAILURE;
        }
        finally
        {
            link.report(err);
        }
    }


    /**
     * Keep the device, and so its QPs, up after a successful run while the peer still sends (until it has been quiet
     * for --quiet, at most --linger; {@link QuietLinger}): its engine thread goes on answering, so a retransmission of
     * a message whose ACK was lost is re-ACKed as a duplicate (IBA 9.7.5.1.3) instead of falling on a closed device.
     * Seen with ibv_srq_pingpong -q 16 -s 65536 against rxe: the emulated NIC dropped one of roce4j's last ACKs,
     * roce4j closed, and rxe retransmitted for ever (completer_retry_err growing by 50 a second) while the tool
     * waited for that send's completion; a fixed 500 ms linger did not cover a loaded machine.
     */
    private void linger(final RdmaDevice device)
    {
        new QuietLinger(System::nanoTime, () -> device.counters().get(LinkCounter.FRAMES_RECEIVED),
            LockSupport::parkNanos).await(TimeUnit.MILLISECONDS.toNanos(quietMs),
            TimeUnit.MILLISECONDS.toNanos(lingerMs));
    }

    /**
     * One side: ibv_srq_pingpong's flow with --srq, else ibv_rc/uc/ud_pingpong's.
     */
    private static void side(final RdmaDevice device, final PingpongSettings settings, final PrintWriter out,
        final ServerSocket listener) throws IOException
    {
        if (0 != settings.srqQps())
        {
            new SrqPingpong(device, settings, out, listener).run();
        }
        else
        {
            new Pingpong(device, settings, out, listener).run();
        }
    }

    /**
     * A network link's engine runs on its own agent thread ({@link CcOptions#dedicatedDevice}).
     */
    /**
     * A DEDICATED device with --cc's congestion control, whose QPs take retry_cnt 7 as "retry forever" as rxe does
     * (rxe_comp.c: retry_cnt 7 is never decremented; the pingpongs ask for 7): a peer that stalls for longer than 8
     * local ACK timeouts (8 x 67 ms; an emulated rxe guest on a loaded host stalls for a second) is waited for, as its
     * own tool on rxe waits for us, instead of failing the run with RETRY_EXC_ERR and leaving that peer retransmitting
     * to a closed device. A peer that is gone is still noticed: --timeout ends a run without completions.
     */
    private DeviceOptions deviceOptions()
    {
        final DeviceOptions options = cc.dedicatedDevice(spin);
        options.engineConfig().retryCountSevenForever(true);
        return options;
    }

    private PingpongSettings settings()
    {
        if (unsupported)
        {
            throw new IllegalArgumentException("-o/-O/-P (on-demand paging), -t (timestamps) and -j (device " +
                "memory) are not supported by roce4j");
        }
        if (1 != ibPort)
        {
            throw new IllegalArgumentException("-i " + ibPort + ": roce4j devices have one port, 1");
        }
        if (port < 1 || port > 65535)
        {
            throw new IllegalArgumentException("-p " + port + ": a TCP port is 1..65535");
        }
        if (iters < 1 || rxDepth < 1)
        {
            throw new IllegalArgumentException("-n and -r must be at least 1");
        }
        final QpType type;
        switch (transport.toLowerCase(java.util.Locale.ROOT))
        {
            case "rc":
                type = QpType.RC;
                break;
            case "uc":
                type = QpType.UC;
                break;
            case "ud":
                type = QpType.UD;
                break;
            default:
                throw new IllegalArgumentException("--transport " + transport + ": expected rc, uc or ud");
        }
        final PingpongSettings settings = new PingpongSettings().transport(type).server(server).port(port)
            .mtu(Mtu.fromBytes(mtu)).rxDepth(rxDepth).iterations(iters).serviceLevel(sl).events(events)
            .gidIndex(gidIndex).validate(check).timeoutMs(timeoutMs).trafficClass(cc.trafficClass());
        cc.congestionControl();
        if (null != srqQps)
        {
            if (QpType.RC != type)
            {
                throw new IllegalArgumentException("--srq runs ibv_srq_pingpong, whose QPs are RC: drop --transport " +
                    transport);
            }
            if (null != size && size < 1)
            {
                // srq_pingpong's -s: "if (size < 1) usage".
                throw new IllegalArgumentException("-s " + size + ": ibv_srq_pingpong's size is at least 1");
            }
            SrqPingpong.checkQps(srqQps, rxDepth);
            settings.srqQps(srqQps);
        }
        if (null != size)
        {
            if (size < 0)
            {
                throw new IllegalArgumentException("-s " + size + ": a size is at least 0");
            }
            settings.size(size);
        }
        return settings;
    }

    /**
     * Both roles in this JVM over the in-memory fabric: the server on a second thread, its lines prefixed. The out-of-
     * band exchange runs over loopback TCP on a port the system picks, bound before the server thread starts, so the
     * client connects once and never races it.
     *
     * <p>Each side's own thread runs its engine (INVOKER mode, a progress group per side): two threads on two cores,
     * where a busy-polling thread and an engine thread per side (four threads) starved the engines on a small machine
     * (6.7 to 42 ms per iteration instead of the tens of microseconds {@code roce perf send_lat} shows). The memory
     * fabric needs no ARP, so nothing is lost while a side is busy in the exchange: its frames wait in its ring.
     */
    private int runInProcess(final PingpongSettings settings, final PrintWriter out, final PrintWriter err)
        throws IOException
    {
        if (null != server)
        {
            throw new IllegalArgumentException("the 'memory' link exists only inside this process: run without a " +
                "server name to play both roles here, or give a network link (--link udp:IP ...)");
        }
        if (settings.transport().isDatagram() || gidIndex < 0)
        {
            settings.gidIndex(gidIndex < 0 ? 1 : gidIndex);
        }
        final int linkMtu = 1500 + (mtu > 1024 ? 7500 : 0);
        final StringWriter serverText = new StringWriter();
        try (MemoryFabric fabric = new MemoryFabric();
            ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            final Link serverLink = link.decorate(fabric.attach(InProcessPorts.SERVER,
                linkMtu), false, err);
            final Link clientLink = link.decorate(fabric.attach(InProcessPorts.CLIENT,
                linkMtu), true, err);
            // Waits go through each group's idle strategy (as -e does), spinning only with --spin.
            settings.events(true);
            final CompletableFuture<Void> serverRun = CompletableFuture.runAsync(() ->
            {
                try (RdmaDevice device = RdmaDevice.open(serverLink, inProcessOptions()))
                {
                    side(device, settings.copy().server(null), new PrintWriter(serverText, true), listener);
                }
                catch (final IOException ex)
                {
                    throw new IllegalStateException("server: " + ex.getMessage(), ex);
                }
            });
            try (RdmaDevice device = RdmaDevice.open(clientLink, inProcessOptions()))
            {
                side(device, settings.copy().server("127.0.0.1").port(listener.getLocalPort()), out, null);
            }
            catch (final IOException | RuntimeException ex)
            {
                serverRun.cancel(true);
                throw ex;
            }
            InProcessPorts.awaitServer(serverRun, settings.timeoutMsValue());
        }
        for (final String line : serverText.toString().split("\n"))
        {
            out.println("[server] " + line);
        }
        out.flush();
        return 0;
    }

    /**
     * One side's device in this process: its thread drives its engine while it waits (INVOKER) in a progress group of
     * its own. Between idle rounds the group backs off as perf's pollers do (spin, yield, then park 1 to 100 us), so
     * on a busy machine the other side's thread gets the CPU; --spin makes it spin instead.
     */
    private DeviceOptions inProcessOptions()
    {
        final ProgressGroup group = new ProgressGroup(spin ? new BusySpinIdleStrategy() :
            new BackoffIdleStrategy(100, 10, 1_000, 100_000));
        return cc.apply(DeviceOptions.invoker().progressGroup(group));
    }
}
