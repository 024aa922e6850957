package org.roce4j.interop;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.roce4j.transport.link.tunnel.TunnelLink;

/**
 * A real Soft-RoCE (rdma_rxe) peer for interop tests: a QEMU guest built from docker/rxe-vm ({@link QemuRxePeer}),
 * or, where QEMU is missing but a Docker engine is present, the docker/rxe-peer container
 * ({@link ContainerRxePeer}). Tests normally get one from {@link RxePeerTest}; {@link #start(RxePeerOptions)}
 * starts one directly.
 *
 * <p>Everything a test does in the peer goes through a command line: {@link #run} (wait for the exit code and
 * output), {@link #start(String, String)} (background, log kept for {@link #log(String)} and exit code for
 * {@link #waitFor(String, Duration)}), {@link #copyOut} (base64 through the console), {@link #hwCounters()}. TCP side
 * channels to programs in the peer go through {@link #tcpConnect}; raw Ethernet frames to and from rxe through the
 * {@link TunnelLink} of {@link #openLink(String)}.
 *
 * <p>{@link #close()} always stops the peer ({@code poweroff -f}, then the process is destroyed); a JVM shutdown
 * hook stops any peer still running, so no QEMU outlives the test JVM.
 */
public abstract class RxePeer implements AutoCloseable
{
    /** Default time a command may take. */
    public static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(60);
    /** Where hw counters live in the peer. */
    public static final String HW_COUNTERS_DIR = "/sys/class/infiniband/rxe0/ports/1/hw_counters";
    /** Pause between connection attempts to a guest that is not accepting yet, to not flood QEMU's slirp. */
    private static final long RETRY_PAUSE_NS = TimeUnit.MILLISECONDS.toNanos(50);

    private final Map<String, Integer> backgroundPids = new HashMap<>();

    /**
     * A finished command.
     *
     * @param exitCode its exit code (130 when it was interrupted with ^C).
     * @param output   what it printed on stdout and stderr, with LF line ends.
     */
    public record Result(int exitCode, String output)
    {
        /**
         * @param command for the message.
         * @return the output.
         * @throws AssertionError with the command, exit code and output when the exit code is not 0.
         */
        public String expectSuccess(final String command)
        {
            if (0 != exitCode)
            {
                throw new AssertionError("'" + command + "' exited with " + exitCode + ":\n" + output);
            }
            return output;
        }
    }

    /**
     * Work done over a TCP connection to a program in the peer; see {@link #tcpConnect(int, Duration, GuestSession)}.
     *
     * @param <T> what it produces.
     */
    @FunctionalInterface
    public interface GuestSession<T>
    {
        /**
         * @param socket connected to the guest port.
         * @return the result.
         * @throws IOException {@link EOFException} or a reset before the guest sent anything means "not listening
         *                     yet" and the session is retried on a new connection.
         */
        T run(Socket socket) throws IOException;
    }

    /**
     * Start a peer with the backend {@link PeerTools#detectBackend()} picks.
     *
     * @param options how.
     * @return the running peer, ready for commands.
     * @throws IOException           when it cannot be started (the message says why).
     * @throws IllegalStateException when neither QEMU nor Docker is available, or tap mode is asked of a container.
     */
    public static RxePeer start(final RxePeerOptions options) throws IOException
    {
        final PeerTools.Backend backend = PeerTools.detectBackend();
        if (options.tap() && PeerTools.Backend.QEMU != backend)
        {
            throw new IllegalStateException("tap mode needs the QEMU peer (" + PeerTools.QEMU_BINARY +
                "); the backend here is " + backend);
        }
        switch (backend)
        {
            case QEMU:
                return QemuRxePeer.launch(options);
            case CONTAINER:
                return ContainerRxePeer.launch(options);
            default:
                throw new IllegalStateException("no rxe peer possible: neither " + PeerTools.QEMU_BINARY +
                    " nor a Docker engine is available");
        }
    }

    /**
     * @return the options the peer was started with.
     */
    public abstract RxePeerOptions options();

    /**
     * @return the parsed ready line.
     */
    public abstract RxeReady ready();

    /**
     * @return milliseconds from starting the peer's process to its ready line, as the fixture saw it.
     */
    public abstract long launchToReadyMs();

    /**
     * Run a command in the peer and wait for it.
     *
     * @param command one shell command line (busybox sh in the VM).
     * @param timeout how long it may run; then it gets ^C and an {@link AssertionError} reports the timeout.
     * @return exit code and output.
     * @throws IOException when the peer is gone.
     */
    public abstract Result run(String command, Duration timeout) throws IOException;

    /**
     * @return true when {@link #openLink(String)} works: the peer's RoCE NIC is a QEMU dgram tunnel.
     */
    public abstract boolean supportsTunnel();

    /**
     * Open a tunnel link to the guest's RoCE NIC, recording every frame to
     * {@code interop-tests/target/pcaps/<pcapName>.pcap}. Close it before opening the next one (they share the UDP
     * port QEMU sends to).
     *
     * @param pcapName file name without extension.
     * @return the link, with the options' link IP.
     * @throws IOException                   when the port cannot be bound.
     * @throws UnsupportedOperationException for a container peer.
     */
    public abstract TunnelLink openLink(String pcapName) throws IOException;

    /**
     * The link spec of a tunnel to the guest's RoCE NIC, for commands that take {@code --link} (such as
     * {@code roce pingpong}), recording to {@code interop-tests/target/pcaps/<pcapName>.pcap}.
     *
     * @param pcapName file name without extension, or null for no recording.
     * @param loss     fraction of frames the link drops on purpose each way (0 for none).
     * @param seed     seed of those drops.
     * @return the spec.
     * @throws UnsupportedOperationException for a container peer.
     */
    public abstract String tunnelSpec(String pcapName, double loss, long seed);

    /**
     * The network namespace and tap device the guest's RoCE NIC is on, for a peer started in tap mode
     * ({@link RxePeerOptions#tap()}). Programs run there with {@link TapNetwork#command}; they reach the guest at
     * {@link RxePeerOptions#guestAddress()} and the guest reaches them at {@link TapNetwork#hostAddress()}.
     *
     * @return the network.
     * @throws IllegalStateException when the peer is not in tap mode.
     */
    public TapNetwork tapNetwork()
    {
        throw new IllegalStateException("rxe peer " + options().name() + " is not in tap mode (RxePeerTest.tap)");
    }

    /**
     * @param guestPort a port given in {@link RxePeerOptions#hostfwd()}.
     * @return the host port that reaches it.
     */
    protected abstract int hostPortFor(int guestPort);

    /**
     * @param guestPort a port given in {@link RxePeerOptions#hostfwd()}.
     * @return the host port (on 127.0.0.1) that reaches it.
     */
    public int forwardedPort(final int guestPort)
    {
        return hostPortFor(guestPort);
    }

    /**
     * @param hostPort a TCP port on the host's 127.0.0.1.
     * @return host:port as a program in the peer must dial to reach it (needs {@link RxePeerOptions#hostAccess()}).
     */
    public abstract String hostAddressForGuest(int hostPort);

    /**
     * Stop the peer: {@code poweroff -f}, then destroy the process. Idempotent; never throws.
     */
    public abstract void close();

    /**
     * Run with {@link #COMMAND_TIMEOUT}.
     *
     * @param command one command line.
     * @return exit code and output.
     * @throws IOException when the peer is gone.
     */
    public Result run(final String command) throws IOException
    {
        return run(command, COMMAND_TIMEOUT);
    }

    /**
     * Run and require exit code 0.
     *
     * @param command one command line.
     * @return the output.
     * @throws IOException when the peer is gone.
     */
    public String runOk(final String command) throws IOException
    {
        return run(command).expectSuccess(command);
    }

    /**
     * Start a program in the background. Its stdout and stderr go to {@code /tmp/roce4j-<name>.log}, its exit code
     * to {@code /tmp/roce4j-<name>.rc}. The command is written to a script first, so it may contain any quoting.
     *
     * @param name    short name, [a-z0-9_-]+, unique among running programs.
     * @param command shell command.
     * @throws IOException when the peer is gone.
     */
    public void start(final String name, final String command) throws IOException
    {
        checkName(name);
        final String script = "/tmp/roce4j-" + name + ".sh";
        final String encoded = Base64.getEncoder().encodeToString((command + "\n").getBytes(StandardCharsets.UTF_8));
        runOk("rm -f " + script + " /tmp/roce4j-" + name + ".rc /tmp/roce4j-" + name + ".log");
        for (int i = 0; i < encoded.length(); i += 3000)
        {
            runOk("echo '" + encoded.substring(i, Math.min(encoded.length(), i + 3000)) + "' >>" + script + ".b64");
        }
        runOk("base64 -d " + script + ".b64 >" + script + " && rm " + script + ".b64");
        final String rc = "/tmp/roce4j-" + name + ".rc";
        // setsid: its own session and process group, away from the console's ^C, and killable as a group.
        final String pid = runOk("nohup setsid sh -c 'sh " + script + "; echo $? >" + rc + ".tmp; mv " + rc + ".tmp " +
            rc + "' >/tmp/roce4j-" + name + ".log 2>&1 </dev/null & echo $!").trim();
        backgroundPids.put(name, Integer.parseInt(pid));
    }

    /**
     * Wait for a program from {@link #start(String, String)} to exit.
     *
     * @param name    as given to start.
     * @param timeout how long.
     * @return its exit code.
     * @throws IOException    when the peer is gone.
     * @throws AssertionError when it did not exit in time (its log is in the message).
     */
    public int waitFor(final String name, final Duration timeout) throws IOException
    {
        checkName(name);
        final String rc = "/tmp/roce4j-" + name + ".rc";
        final long seconds = Math.max(1, timeout.toSeconds());
        final Result result = run("timeout " + seconds + " sh -c 'while [ ! -e " + rc + " ]; do usleep 20000; done'" +
            " && cat " + rc, timeout.plusSeconds(30));
        if (0 != result.exitCode())
        {
            throw new AssertionError("'" + name + "' did not exit within " + timeout + "; its log:\n" + log(name));
        }
        return Integer.parseInt(result.output().trim());
    }

    /**
     * @param name as given to {@link #start(String, String)}.
     * @return what the program printed so far.
     * @throws IOException when the peer is gone.
     */
    public String log(final String name) throws IOException
    {
        checkName(name);
        return runOk("cat /tmp/roce4j-" + name + ".log");
    }

    /**
     * Kill a background program if it still runs.
     *
     * @param name as given to {@link #start(String, String)}.
     * @throws IOException when the peer is gone.
     */
    public void kill(final String name) throws IOException
    {
        final Integer pid = backgroundPids.remove(name);
        if (null != pid)
        {
            run("kill -TERM -" + pid + " 2>/dev/null; true");
        }
    }

    /**
     * Copy a file out of the peer (base64 over the console, about 450 KB/s in the VM) and check its size.
     *
     * @param guestPath file in the peer.
     * @param hostPath  where to write it; parent directories are created.
     * @throws IOException when the peer is gone or the file cannot be read.
     */
    public void copyOut(final String guestPath, final Path hostPath) throws IOException
    {
        final String quoted = "'" + guestPath.replace("'", "'\\''") + "'";
        final long size = Long.parseLong(runOk("wc -c <" + quoted).trim());
        final String encoded = run("base64 " + quoted, Duration.ofSeconds(60 + size / 100_000))
            .expectSuccess("base64 " + guestPath);
        final byte[] bytes = Base64.getMimeDecoder().decode(encoded);
        if (bytes.length != size)
        {
            throw new IOException("copied " + bytes.length + " bytes of " + guestPath + " but it has " + size);
        }
        final Path parent = hostPath.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        Files.write(hostPath, bytes);
    }

    /**
     * Read every hw counter of rxe0 port 1 ({@value #HW_COUNTERS_DIR}).
     *
     * @return counter name to value, sorted by name.
     * @throws IOException when the peer is gone.
     */
    public Map<String, Long> hwCounters() throws IOException
    {
        final String output = runOk("cd " + HW_COUNTERS_DIR + " && grep -H . *");
        final Map<String, Long> counters = new TreeMap<>();
        for (final String line : output.split("\n"))
        {
            final int colon = line.lastIndexOf(':');
            if (colon > 0)
            {
                counters.put(line.substring(0, colon).trim(), Long.parseLong(line.substring(colon + 1).trim()));
            }
        }
        if (counters.isEmpty())
        {
            throw new IOException("no hw counters in " + HW_COUNTERS_DIR + ": " + output);
        }
        return Collections.unmodifiableMap(counters);
    }

    /**
     * Wait until a program in the peer listens on a TCP port, then connect to it through the host port that
     * forwards to it.
     *
     * @param guestPort port in the peer, one of {@link RxePeerOptions#hostfwd()}.
     * @param timeout   how long to wait for the listener.
     * @return the connected socket.
     * @throws IOException when the peer is gone or the connect fails.
     */
    public Socket tcpConnect(final int guestPort, final Duration timeout) throws IOException
    {
        final int hostPort = hostPortFor(guestPort);
        awaitGuestListening(guestPort, timeout);
        final Socket socket = new Socket();
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), hostPort), 10_000);
        socket.setSoTimeout((int)Math.min(Integer.MAX_VALUE, timeout.toMillis()));
        socket.setTcpNoDelay(true);
        return socket;
    }

    /**
     * Connect to a program in the peer and run a session on the connection, retrying on a new connection until the
     * session gets through: QEMU user networking accepts the host's connect even when nothing listens in the guest
     * yet, and closes it once the guest refuses, which the session sees as end of stream or a reset.
     *
     * @param guestPort port in the peer, one of {@link RxePeerOptions#hostfwd()}.
     * @param timeout   for the whole thing.
     * @param session   the conversation; must be safe to restart from the beginning on a new connection (true for
     *                  client-speaks-first protocols such as the pingpong exchange).
     * @param <T>       what the session produces.
     * @return what the session returned.
     * @throws IOException when the deadline passes or the session fails otherwise.
     */
    public <T> T tcpConnect(final int guestPort, final Duration timeout, final GuestSession<T> session)
        throws IOException
    {
        final int hostPort = hostPortFor(guestPort);
        final long deadlineNs = System.nanoTime() + timeout.toNanos();
        int attempts = 0;
        IOException last = null;
        while (deadlineNs - System.nanoTime() > 0)
        {
            attempts++;
            try (Socket socket = new Socket())
            {
                socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), hostPort), 10_000);
                socket.setSoTimeout((int)Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadlineNs - System.nanoTime())));
                socket.setTcpNoDelay(true);
                return session.run(socket);
            }
            catch (final EOFException | SocketException ex)
            {
                // Closed or reset before the guest answered: it was not accepting yet. Retry shortly.
                last = ex;
                LockSupport.parkNanos(RETRY_PAUSE_NS);
            }
        }
        throw new IOException("no session with guest port " + guestPort + " (host port " + hostPort + ") within " +
            timeout + " after " + attempts + " attempts", last);
    }

    /**
     * Wait in the peer until some socket listens on a TCP port (IPv4 or IPv6), by polling /proc/net/tcp{,6} there.
     *
     * @param guestPort port.
     * @param timeout   how long.
     * @throws IOException    when the peer is gone.
     * @throws AssertionError when nothing listens in time.
     */
    public void awaitGuestListening(final int guestPort, final Duration timeout) throws IOException
    {
        // /proc/net/tcp lines: "sl local_address rem_address st ..."; state 0A is LISTEN, ports are hex.
        final String pattern = String.format(":%04X [0-9A-F]+:0000 0A ", guestPort);
        final long seconds = Math.max(1, timeout.toSeconds());
        final String command = "timeout " + seconds + " sh -c 'until grep -qE \"" + pattern + "\" /proc/net/tcp " +
            "/proc/net/tcp6 2>/dev/null; do usleep 20000; done'";
        final Result result = run(command, timeout.plusSeconds(30));
        if (0 != result.exitCode())
        {
            throw new AssertionError("nothing listens on guest TCP port " + guestPort + " after " + timeout);
        }
    }

    /**
     * @return e.g. {@code rxe peer FirstFramesWithRxeTest mtu=1500 ...}.
     */
    public String toString()
    {
        return getClass().getSimpleName() + " " + options();
    }

    private static void checkName(final String name)
    {
        if (!name.matches("[a-z0-9_-]+"))
        {
            throw new IllegalArgumentException("background program name must be [a-z0-9_-]+, got '" + name + "'");
        }
    }
}
