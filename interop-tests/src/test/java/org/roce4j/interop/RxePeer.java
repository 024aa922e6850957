package org.roce4j.interop;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.roce4j.testcontainers.GuestDoctor;
import org.roce4j.testcontainers.RxeCommands;
import org.roce4j.testcontainers.RxePeerOptions;
import org.roce4j.testcontainers.RxeReady;
import org.roce4j.transport.link.tunnel.TunnelLink;

/**
 * A real Soft-RoCE (rdma_rxe) peer for interop tests: a QEMU guest built from docker/rxe-vm ({@link QemuRxePeer}),
 * or, where QEMU is missing but a Docker engine is present, the docker/rxe-peer container
 * ({@link ContainerRxePeer}). Tests normally get one from {@link RxePeerTest}; {@link #start(RxePeerOptions)}
 * starts one directly.
 *
 * <p>Everything a test does in the peer goes through a command line ({@link RxeCommands}). TCP side channels to
 * programs in the peer go through {@link #tcpConnect}; raw Ethernet frames to and from rxe through the
 * {@link TunnelLink} of {@link #openLink(String)}.
 *
 * <p>{@link #close()} always stops the peer ({@code poweroff -f}, then the process is destroyed); a JVM shutdown
 * hook stops any peer still running, so no QEMU outlives the test JVM.
 */
public abstract class RxePeer extends RxeCommands implements AutoCloseable
{
    /** A case's watchdog fires at this many times its expected time. */
    public static final int BUDGET_FACTOR = 3;
    /** Pause between connection attempts to a guest that is not accepting yet, to not flood QEMU's slirp. */
    private static final long RETRY_PAUSE_NS = TimeUnit.MILLISECONDS.toNanos(50);

    private volatile Path lastPcap;
    private volatile long caseStartNs = System.nanoTime();
    private volatile long caseDeadlineNs = Long.MAX_VALUE;
    private volatile GidChoice gids;
    private volatile List<String> roceOptions = List.of();

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
        return start(options, PeerTools.detectBackend());
    }

    /**
     * Start a peer with a given backend.
     *
     * @param options how.
     * @param backend what runs the guest.
     * @return the running peer, ready for commands.
     * @throws IOException           when it cannot be started (the message says why).
     * @throws IllegalStateException when that backend is not available, or tap mode is asked of a container.
     */
    public static RxePeer start(final RxePeerOptions options, final PeerTools.Backend backend) throws IOException
    {
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
     * @return the guest's RoCE address without its prefix length (what the guest's tools bind to, and roce4j's
     *     tools reach).
     */
    public String guestAddress()
    {
        return options().guestAddress();
    }

    /**
     * @return roce4j's link address (what the guest's tools reach, and roce4j's tools bind to).
     */
    public String linkAddress()
    {
        return options().linkIp();
    }

    /**
     * @return the parsed ready line.
     */
    public abstract RxeReady ready();

    /**
     * @return milliseconds from starting the peer's process to its ready line, as the fixture saw it.
     */
    public abstract long launchToReadyMs();

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
     * Is the peer fit for the next case? Kills the background programs of the last case first (a healthy rxe then
     * releases their QPs), then checks what {@link GuestDoctor} checks. Never throws.
     *
     * @return the verdict.
     */
    public abstract GuestDoctor.Health health();

    /**
     * Save what QEMU and the guest know now (kernel log, eth0, rxe's counters and QPs, virtio queues) as text files.
     *
     * @param dir where (created).
     * @param why the reason, written first.
     * @return the directory.
     */
    public abstract Path diagnose(Path dir, String why);

    /**
     * Replace the guest by a fresh one with the same options (new ports: get link specs and forwarded ports again).
     *
     * @param why for the log.
     * @return milliseconds it took.
     * @throws IOException when the new guest does not get ready.
     */
    public synchronized long reboot(final String why) throws IOException
    {
        final long startNs = System.nanoTime();
        forgetBackground();
        replaceGuest();
        final long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
        System.out.println("[rxe-peer] " + options().name() + " rebooted (boot " + boots() + ") in " + ms + " ms: " +
            why);
        return ms;
    }

    /**
     * Stop the current guest and boot a new one with the same options ({@link #reboot}).
     *
     * @throws IOException when the new guest does not get ready.
     */
    protected abstract void replaceGuest() throws IOException;

    /**
     * Send ^C to the command the test is waiting for, from another thread (a watchdog): the waiting call then
     * returns or fails at once. Never throws.
     */
    public abstract void interruptCommand();

    /**
     * @return how many guests this peer has booted (1, plus one per {@link #reboot}).
     */
    public abstract int boots();

    /**
     * A case starts (called by {@link RxePeerExtension}): its watchdog budget is {@value #BUDGET_FACTOR} times the
     * expected time, until the case says better with {@link #expectCase(Duration)}.
     *
     * @param expected the class's default expected case time ({@link RxePeerTest#expectedCaseSeconds()}).
     */
    void startCase(final Duration expected)
    {
        caseStartNs = System.nanoTime();
        lastPcap = null;
        expectCase(expected);
    }

    /**
     * @return the GIDs interop cases use now: IPv4-mapped on both sides unless a test chose others.
     */
    public GidChoice gids()
    {
        final GidChoice chosen = gids;
        return null == chosen ? GidChoice.ipv4(this) : chosen;
    }

    /**
     * @param choice the GIDs the following cases use, or null for the IPv4-mapped ones.
     */
    public void useGids(final GidChoice choice)
    {
        gids = choice;
    }

    /**
     * @return options every following {@code roce pingpong} and {@code roce perf} of the interop helpers gets, such
     *     as {@code --cc dcqcn}; empty by default.
     */
    public List<String> roceOptions()
    {
        return roceOptions;
    }

    /**
     * @param options see {@link #roceOptions()}; empty to go back to none.
     */
    public void useRoceOptions(final List<String> options)
    {
        roceOptions = List.copyOf(options);
    }

    /**
     * Say how long the current case should take on a busy two-core CI machine: its watchdog fires at
     * {@value #BUDGET_FACTOR} times that after the case started, and {@link #caseTimeLeft()} sizes the case's own
     * waits.
     *
     * @param expected the expected time.
     */
    public void expectCase(final Duration expected)
    {
        caseDeadlineNs = caseStartNs + BUDGET_FACTOR * expected.toNanos();
    }

    /**
     * @return time left until the current case's watchdog fires (at least one second).
     */
    public Duration caseTimeLeft()
    {
        return Duration.ofNanos(Math.max(TimeUnit.SECONDS.toNanos(1), caseDeadlineNs - System.nanoTime()));
    }

    /**
     * @return {@link System#nanoTime()} at which the current case's watchdog fires.
     */
    long caseDeadlineNs()
    {
        return caseDeadlineNs;
    }

    /**
     * Where a link of this peer records, and remember it as the current case's capture.
     *
     * @param pcapName file name without extension, or null for none.
     * @return {@code interop-tests/target/pcaps/<pcapName>.pcap}, or null.
     */
    protected Path recordPcap(final String pcapName)
    {
        final Path pcap = null == pcapName ? null : PeerTools.targetDir().resolve("pcaps").resolve(pcapName + ".pcap");
        if (null != pcap)
        {
            lastPcap = pcap;
        }
        return pcap;
    }

    /**
     * Remember a capture the case made by other means (a tap capture) as the case's capture.
     *
     * @param pcap the file.
     */
    public void noteCapture(final Path pcap)
    {
        lastPcap = pcap;
    }

    /**
     * @return the capture of the last link opened (or spec made) with a pcap, or null.
     */
    public Path lastPcap()
    {
        return lastPcap;
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
     * @return e.g. {@code rxe peer FirstFramesWithRxeTest mtu=1500 ...}.
     */
    public String toString()
    {
        return getClass().getSimpleName() + " " + options();
    }

}
