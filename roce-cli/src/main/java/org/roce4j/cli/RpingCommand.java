package org.roce4j.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.roce4j.cli.rping.Rping;
import org.roce4j.cli.rping.RpingSettings;
import org.roce4j.cm.rdmacm.RdmaCm;
import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.memory.MemoryFabric;
import org.roce4j.verbs.RdmaDevice;
import org.roce4j.wire.header.Ipv4Header;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code roce rping}: rdma-core's rping (librdmacm/examples/rping.c) on roce4j, with its options, defaults, output
 * lines and exit codes, connecting through roce4j's rdma_cm, so it can stand on either side of the C rping. Exit codes
 * as rping's: 0; 22 (EINVAL) for bad options, a bad --link included; 254 when -a or -I does not resolve (rping returns
 * getaddrinfo's EAI_NONAME, -2); 255 when the connect is rejected, a ping fails or the link cannot be opened (rping
 * returns librdmacm's -1).
 */
@Command(
    name = "rping",
    exitCodeOnInvalidInput = RpingCommand.EXIT_EINVAL,
    exitCodeOnExecutionException = Rping.EXIT_FAILURE,
    description = {
        "Ping a peer over an rdma_cm connection, like rdma-core's rping.",
        "The client sends its buffer's address, the server RDMA READs it, the client sends a second buffer, the " +
            "server RDMA WRITEs the data back; -C times (default: until interrupted).",
        "-s is the server, -c the client (-a names the server). With --link memory (the default) the client and the " +
            "server both run in this process, so -s and -c select nothing there.",
        "Exit codes as rping: 0; 22 bad options (a bad --link too); 254 -a/-I does not resolve; 255 rejected " +
            "connect, failed ping, or a link that cannot open."})
public final class RpingCommand implements Callable<Integer>
{
    /** rping's exit code for bad options (EINVAL). */
    static final int EXIT_EINVAL = 22;
    /** rping's exit code when getaddrinfo fails: EAI_NONAME (-2) as an exit status. */
    static final int EXIT_EAI_NONAME = 254;

    @Spec
    private CommandSpec spec;

    @Option(names = "-s", description = "server side")
    private boolean server;

    @Option(names = "-c", description = "client side")
    private boolean client;

    @Option(names = "-a", paramLabel = "addr", description = "address: the server's (client), to bind (server; " +
        "default any); with --link memory the in-process server's, 192.168.77.1 (default) or fd00:77::1")
    private String address;

    @Option(names = "-I", paramLabel = "addr", description = "source address to bind to for the client (must be " +
        "the link's address)")
    private String source;

    @Option(names = "-p", paramLabel = "port", description = "port (default 7174)")
    private int port = RpingSettings.DEFAULT_PORT;

    @Option(names = "-C", paramLabel = "count", description = "ping count times (default 0: forever)")
    private int count;

    @Option(names = "-S", paramLabel = "size", description = "ping data size (default 64, 26..65535)")
    private int size = RpingSettings.DEFAULT_SIZE;

    @Option(names = "-v", description = "display ping data to stdout")
    private boolean verbose;

    @Option(names = "-V", description = "validate ping data")
    private boolean validate;

    @Option(names = "-d", description = "debug printfs")
    private boolean debug;

    @Option(names = "-P", description = "persistent server mode (not supported)")
    private boolean persistent;

    @Option(names = "-q", description = "use a self-created, self-modified QP (accepted: roce4j's rdma_cm moves " +
        "the QP exactly as rping -q does)")
    private boolean selfCreatedQp;

    @Mixin
    private LinkOption link;

    @Mixin
    private CcOptions cc;

    @Option(names = "--timeout", paramLabel = "ms", description = "give up a wait after this long (default 0: " +
        "wait as long as rping would)")
    private long timeoutMs;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help")
    private boolean help;

    /**
     * @return rping's exit code.
     */
    public Integer call()
    {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        final RpingSettings settings;
        try
        {
            settings = settings(out);
        }
        catch (final IllegalArgumentException ex)
        {
            err.println(ex.getMessage());
            err.flush();
            return EXIT_EINVAL;
        }
        catch (final UnknownHostException ex)
        {
            // get_addr prints this on stdout and main returns getaddrinfo's code.
            out.println("getaddrinfo failed (" + HostNames.gaiText(ex) + ") - invalid hostname or IP address");
            out.flush();
            return EXIT_EAI_NONAME;
        }
        if (null == settings)
        {
            return EXIT_EINVAL;
        }
        try
        {
            link.check();
        }
        catch (final IllegalArgumentException ex)
        {
            return invalid(err, ex);
        }
        try
        {
            return link.isMemory() ? runInProcess(settings, out, err) : runOnLink(settings, out, err);
        }
        finally
        {
            link.report(err);
        }
    }

    private int runOnLink(final RpingSettings settings, final PrintWriter out, final PrintWriter err)
    {
        final Link opened;
        try
        {
            opened = link.open(err);
        }
        catch (final IllegalArgumentException ex)
        {
            return invalid(err, ex);
        }
        catch (final IOException | IllegalStateException ex)
        {
            return fail(err, ex);
        }
        try (opened;
            RdmaDevice device = RdmaDevice.open(opened, cc.dedicatedDevice(false));
            RdmaCm cm = RdmaCm.open(device))
        {
            checkSource(device);
            return new Rping(cm, settings, out, err).run();
        }
        catch (final IllegalArgumentException ex)
        {
            return invalid(err, ex);
        }
        catch (final IOException | IllegalStateException ex)
        {
            return fail(err, ex);
        }
    }

    /** A bad option value found once running (a malformed --link, an -I that is not the link's): EINVAL. */
    private static int invalid(final PrintWriter err, final Exception ex)
    {
        return report(err, ex, EXIT_EINVAL);
    }

    /** A failure once running (the link cannot open, the connection fails): rping's -1. */
    private static int fail(final PrintWriter err, final Exception ex)
    {
        return report(err, ex, Rping.EXIT_FAILURE);
    }

    private static int report(final PrintWriter err, final Exception ex, final int exitCode)
    {
        err.println("roce rping: " + ex.getMessage());
        err.flush();
        return exitCode;
    }

    private RpingSettings settings(final PrintWriter out) throws UnknownHostException
    {
        final boolean inProcess = link.isMemory();
        if (server && client || !inProcess && !server && !client)
        {
            // rping needs exactly one role; over the in-process memory link both run, so neither is needed.
            usage(out);
            return null;
        }
        if (size < RpingSettings.MIN_SIZE || size > RpingSettings.BUFSIZE - 1)
        {
            // rping.c prints RPING_BUFSIZE as the upper bound although it accepts one byte less.
            throw new IllegalArgumentException("Invalid size " + size + " (valid range is " + RpingSettings.MIN_SIZE +
                " to " + RpingSettings.BUFSIZE + ")");
        }
        if (count < 0)
        {
            throw new IllegalArgumentException("Invalid count " + count);
        }
        if (persistent)
        {
            throw new IllegalArgumentException("roce rping: -P (persistent server) is not supported");
        }
        if (port < 1 || port > 65535)
        {
            throw new IllegalArgumentException("roce rping: -p " + port + ": a port is 1..65535");
        }
        if (timeoutMs < 0)
        {
            throw new IllegalArgumentException("roce rping: --timeout must be >= 0 ms");
        }
        final InetAddress resolved = null == address ? null : HostNames.resolve(address);
        if (null != source)
        {
            HostNames.resolve(source);
        }
        if (client && null == resolved && !inProcess)
        {
            throw new IllegalArgumentException("roce rping: the client needs -a <server address>");
        }
        cc.congestionControl();
        return new RpingSettings().server(server).address(resolved).port(port).count(count).size(size)
            .verbose(verbose).validate(validate).debug(debug).timeoutMs(timeoutMs)
            .trafficClass(cc.hasTrafficClass() ? cc.trafficClass() : -1);
    }

    private void checkSource(final RdmaDevice device) throws UnknownHostException
    {
        if (null != source)
        {
            final InetAddress wanted = HostNames.resolve(source);
            final String ours = Ipv4Header.addressToString(device.link().address().ipv4());
            if (!wanted.getHostAddress().equals(ours))
            {
                throw new IllegalArgumentException("-I " + source + ": the link's address is " + ours);
            }
        }
    }

    private static void usage(final PrintWriter out)
    {
        out.println("rping -s [-vVd] [-S size] [-C count] [-a addr] [-p port]");
        out.println("rping -c [-vVd] [-S size] [-C count] [-I addr] -a addr [-p port]");
        out.println("\t-c\t\tclient side");
        out.println("\t-I\t\tSource address to bind to for client.");
        out.println("\t-s\t\tserver side.  To bind to any address with IPv6 use -a ::0");
        out.println("\t-v\t\tdisplay ping data to stdout");
        out.println("\t-V\t\tvalidate ping data");
        out.println("\t-d\t\tdebug printfs");
        out.println("\t-S size \tping data size");
        out.println("\t-C count\tping count times");
        out.println("\t-a addr\t\taddress");
        out.println("\t-p port\t\tport");
        out.println("\t-P\t\tpersistent server mode allowing multiple connections");
        out.println("\t-q\t\tuse self-created, self-modified QP");
        out.println("\t--link SPEC\troce4j: " + LinkOption.DESCRIPTION);
        out.println("\t--faults RULES\troce4j: " + LinkOption.FAULTS_DESCRIPTION);
        out.println("\t--pcap FILE\troce4j: " + LinkOption.PCAP_DESCRIPTION);
        out.println("\t--trace\t\troce4j: " + LinkOption.TRACE_DESCRIPTION);
        out.flush();
    }

    /**
     * Both sides in this JVM over the in-memory fabric: the server on its own thread, its lines printed after the
     * client's with a {@code [server]} prefix. When the command line looks like one side of a two-host run (-s or -c)
     * or asks for endless pings without showing them, a note on stderr says what runs: rping -s over the default link
     * once pinged itself forever without a word.
     */
    private int runInProcess(final RpingSettings settings, final PrintWriter out, final PrintWriter err)
    {
        if (server || client || 0 == count)
        {
            err.println("roce rping: --link memory runs the client (" + InProcessPorts.CLIENT_IP +
                ") and the server (" + InProcessPorts.SERVER_IP + ") both in this process" +
                (server || client ? "; -s/-c select nothing here" : "") +
                (0 == count ? "; without -C it pings until interrupted" + (verbose ? "" : " (-v shows each ping)") :
                    "") + ". For a peer elsewhere give --link udp:IP (or tunnel:, pcap:).");
            err.flush();
        }
        final MemoryFabric fabric = new MemoryFabric();
        final StringWriter serverText = new StringWriter();
        final PrintWriter serverOut = new PrintWriter(serverText, true);
        try (fabric;
            RdmaDevice serverDevice = RdmaDevice.open(link.decorate(
                fabric.attach(InProcessPorts.SERVER, 1500), false, err),
                cc.dedicatedDevice(false));
            RdmaCm serverCm = RdmaCm.open(serverDevice);
            RdmaDevice clientDevice = RdmaDevice.open(link.decorate(
                fabric.attach(InProcessPorts.CLIENT, 1500), true, err),
                cc.dedicatedDevice(false));
            RdmaCm clientCm = RdmaCm.open(clientDevice))
        {
            // With -a the server binds that address of its port (192.168.77.1 or fd00:77::1) and the client
            // connects to it, so -a fd00:77::1 runs the CM and the pings over IPv6.
            final InetAddress given = null == address ? null : HostNames.resolve(address);
            final RpingSettings serverSettings = settings.copy().server(true).address(given);
            final CountDownLatch listening = new CountDownLatch(1);
            final CompletableFuture<Integer> serverRun = CompletableFuture.supplyAsync(
                () -> new Rping(serverCm, serverSettings, serverOut, serverOut).onListening(listening::countDown)
                    .run());
            awaitListening(listening, serverRun);
            final int clientExit = new Rping(clientCm, settings.copy().server(false)
                .address(null != given ? given : InetAddress.getByName(InProcessPorts.SERVER_IP)), out, err).run();
            final int serverExit;
            try
            {
                serverExit = serverRun.get(30, TimeUnit.SECONDS);
            }
            catch (final ExecutionException | TimeoutException ex)
            {
                throw new IOException("the in-process server did not finish: " + ex, ex);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", ex);
            }
            for (final String line : serverText.toString().split("\n"))
            {
                if (!line.isEmpty())
                {
                    out.println("[server] " + line);
                }
            }
            out.flush();
            err.flush();
            return 0 != clientExit ? clientExit : serverExit;
        }
        catch (final IOException | IllegalStateException ex)
        {
            return fail(err, ex);
        }
    }

    private static void awaitListening(final CountDownLatch listening, final CompletableFuture<Integer> server)
        throws IOException
    {
        try
        {
            if (!listening.await(30, TimeUnit.SECONDS))
            {
                throw new IOException("the in-process server did not start listening" +
                    (server.isDone() ? " (it ended)" : ""));
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", ex);
        }
    }
}
