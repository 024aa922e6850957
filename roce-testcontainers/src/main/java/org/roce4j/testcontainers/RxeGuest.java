package org.roce4j.testcontainers;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

import org.roce4j.transport.link.tunnel.TunnelLinkConfig;
import org.roce4j.wire.header.Ipv4Header;

/**
 * One boot of the rxe guest (docker/rxe-vm): QEMU started through {@code run-vm.sh} by a {@link Launcher} (a local
 * process, or a container), with three channels to it:
 * <ul>
 *   <li>the command console (ttyS0, {@code -serial unix:...,wait=on}: QEMU waits for it, so the whole boot is
 *   logged), which tests drive;</li>
 *   <li>the diagnostic console (ttyS1, {@code --diag-serial}), a second command loop that health checks and
 *   diagnostics use, and that still answers while a test's command hangs on the first;</li>
 *   <li>QMP ({@code --qmp}), QEMU's own view: virtio queue states when nothing in the guest answers.</li>
 * </ul>
 * All three are Unix sockets in a directory of their own, or TCP ports of 127.0.0.1 ({@link Ports}). The guest's RoCE NIC is a dgram
 * tunnel on two UDP ports of 127.0.0.1, or a tap (then QEMU runs in the tap's network namespace).
 */
public final class RxeGuest extends RxeCommands implements AutoCloseable
{
    /** The tap device a tap-mode guest's NIC uses (made by whoever runs it, in the namespace QEMU runs in). */
    public static final String TAP_DEVICE = "rxetap0";
    /** Time QEMU gets to exit after {@code poweroff -f} before it is destroyed. */
    private static final long POWEROFF_WAIT_MS = 20_000;
    /** Pause between attempts to connect to a console QEMU has not opened yet. */
    private static final long CONNECT_PAUSE_NS = TimeUnit.MILLISECONDS.toNanos(50);

    /** Starts QEMU (run-vm.sh with the given arguments) and stops it. */
    public interface Launcher
    {
        /**
         * @return true when QEMU's channels should be TCP ports of 127.0.0.1, false for Unix sockets.
         */
        boolean tcp();

        /**
         * @param runVmArguments arguments for docker/rxe-vm/run-vm.sh (without the script itself).
         * @param ports          the boot's ports (a container binds their socket directory).
         * @param stderrLog      where QEMU's stderr (its command line first) should go.
         * @return the running QEMU.
         * @throws IOException when it cannot start.
         */
        Vm start(List<String> runVmArguments, Ports ports, Path stderrLog) throws IOException;
    }

    /** A running QEMU, whatever runs it. */
    public interface Vm
    {
        /**
         * @return true while QEMU runs.
         */
        boolean isAlive();

        /**
         * @return QEMU's exit code, or -1 while it runs.
         */
        int exitCode();

        /**
         * Wait for QEMU to exit, then stop it hard if it has not.
         *
         * @param waitMs how long it may take to exit by itself.
         */
        void stop(long waitMs);
    }

    /**
     * The ports and sockets of one boot.
     *
     * @param linkPort       where QEMU sends the guest's frames (the tunnel link binds it); 0 in tap mode.
     * @param guestDgramPort the guest NIC's own UDP port (the tunnel link sends to it); 0 in tap mode.
     * @param socketDir      where QEMU listens on Unix sockets {@code console} (ttyS0), {@code diag} (ttyS1) and
     *                       {@code qmp}; null when it listens on TCP ports of 127.0.0.1 instead. Unix sockets work
     *                       in tap mode, where QEMU runs in another network namespace whose 127.0.0.1 the JVM cannot
     *                       reach; TCP works for a QEMU in a container on the host's network, whatever user each
     *                       side runs as.
     * @param tcpPorts       console, diag and QMP ports on 127.0.0.1 when {@code socketDir} is null.
     * @param hostPorts      guest TCP port to the host port forwarded to it.
     */
    public record Ports(
        int linkPort, int guestDgramPort, Path socketDir, int[] tcpPorts, Map<Integer, Integer> hostPorts)
    {
        /** Index of each channel in {@link #tcpPorts()}. */
        static final int CONSOLE = 0;
        static final int DIAG = 1;
        static final int QMP = 2;
        private static final String[] NAMES = {"console", "diag", "qmp"};

        /**
         * Pick free ports for a boot with these options.
         *
         * @param options the peer's options.
         * @param tcp     true for TCP channels, false for Unix sockets.
         * @return the ports.
         * @throws IOException when no socket or directory can be made.
         */
        public static Ports pick(final RxePeerOptions options, final boolean tcp) throws IOException
        {
            final Map<Integer, Integer> hostPorts = new LinkedHashMap<>();
            for (final int guestPort : options.hostfwd())
            {
                hostPorts.put(guestPort, Host.freeTcpPort());
            }
            return new Ports(
                options.tap() ? 0 : Host.freeUdpPort(),
                options.tap() ? 0 : Host.freeUdpPort(),
                // short: a Unix socket path has at most 107 bytes
                tcp ? null : Files.createTempDirectory("roce4j-rxe-"),
                tcp ? new int[] {Host.freeTcpPort(), Host.freeTcpPort(), Host.freeTcpPort()} : null,
                hostPorts);
        }

        /**
         * @param channel {@link #CONSOLE}, {@link #DIAG} or {@link #QMP}.
         * @param wait    true when QEMU should wait for the connection before it starts the guest.
         * @return QEMU's chardev spec of the channel (for -serial, -qmp).
         */
        public String qemuSpec(final int channel, final boolean wait)
        {
            return (null == socketDir ? "tcp:127.0.0.1:" + tcpPorts[channel] :
                "unix:" + socketDir.resolve(NAMES[channel])) + ",server=on,wait=" + (wait ? "on" : "off");
        }

        /**
         * @param channel {@link #CONSOLE}, {@link #DIAG} or {@link #QMP}.
         * @return a connection to it.
         * @throws IOException when QEMU does not listen (yet).
         */
        GuestChannel connect(final int channel) throws IOException
        {
            return null == socketDir ? GuestChannel.tcp(tcpPorts[channel]) :
                GuestChannel.unix(socketDir.resolve(NAMES[channel]));
        }

        /**
         * Remove the socket directory, if any. Never throws.
         */
        void release()
        {
            if (null != socketDir)
            {
                for (final String name : NAMES)
                {
                    socketDir.resolve(name).toFile().delete();
                }
                socketDir.toFile().delete();
            }
        }
    }

    private final String name;
    private final Ports ports;
    private final Vm vm;
    private final SerialConsole console;
    private final Path logDir;
    private final long startNs;
    private RxeReady ready;
    private long launchToReadyMs = -1;
    /** The diagnostic console's own lock: it must answer while a command holds the guest's. */
    private final Object diagLock = new Object();
    private final AtomicBoolean closed = new AtomicBoolean();
    private SerialConsole diagConsole;

    private RxeGuest(
        final String name, final Ports ports, final Vm vm, final SerialConsole console, final Path logDir,
        final long startNs)
    {
        this.name = name;
        this.ports = ports;
        this.vm = vm;
        this.console = console;
        this.logDir = logDir;
        this.startNs = startNs;
    }

    /**
     * Start QEMU and wait for the guest's ready line.
     *
     * @param options  the peer's options.
     * @param bootName names this boot's logs ({@code <bootName>.console.log}, {@code .stderr.log}, {@code .diag.log}).
     * @param logDir   where the logs go.
     * @param launcher what runs QEMU.
     * @return the ready guest.
     * @throws IOException when QEMU cannot start or the guest does not get ready; QEMU is stopped then.
     */
    public static RxeGuest boot(final RxePeerOptions options, final String bootName, final Path logDir,
        final Launcher launcher) throws IOException
    {
        final Ports ports = Ports.pick(options, launcher.tcp());
        final List<String> args = new ArrayList<>(List.of("--no-build",
            "--ip", options.guestIp(),
            "--mtu", Integer.toString(options.mtu()),
            "--suite", options.suite(),
            "--serial", ports.qemuSpec(Ports.CONSOLE, true),
            "--diag-serial", ports.qemuSpec(Ports.DIAG, false),
            "--qmp", ports.qemuSpec(Ports.QMP, false)));
        if (options.tap())
        {
            args.add("--tap");
            args.add(TAP_DEVICE);
        }
        else
        {
            args.add("--dgram");
            args.add(ports.guestDgramPort() + ":" + ports.linkPort());
        }
        for (final Map.Entry<Integer, Integer> forward : ports.hostPorts().entrySet())
        {
            args.add("--hostfwd");
            args.add(forward.getValue() + ":" + forward.getKey());
        }
        if (options.hostAccess())
        {
            args.add("--host-access");
        }
        final long startNs = System.nanoTime();
        final long deadlineNs = startNs + options.readyTimeout().toNanos();
        final Vm vm = launcher.start(args, ports, logDir.resolve(bootName + ".stderr.log"));
        RxeGuest guest = null;
        try
        {
            final GuestChannel socket = connect(ports, Ports.CONSOLE, deadlineNs, vm);
            final SerialConsole console = new SerialConsole(bootName, socket.in(), socket.out(),
                logDir.resolve(bootName + ".console.log"));
            guest = new RxeGuest(bootName, ports, vm, console, logDir, startNs);
            guest.awaitReady(deadlineNs, options);
            return guest;
        }
        catch (final IOException | RuntimeException | Error ex)
        {
            if (null != guest)
            {
                guest.close();
            }
            else
            {
                vm.stop(0);
            }
            throw ex;
        }
    }

    /**
     * @return this boot's ports.
     */
    public Ports ports()
    {
        return ports;
    }

    /**
     * @return the parsed ready line.
     */
    public RxeReady ready()
    {
        return ready;
    }

    /**
     * @return milliseconds from starting QEMU to the ready line.
     */
    public long launchToReadyMs()
    {
        return launchToReadyMs;
    }

    /**
     * @return QEMU's state, for messages.
     */
    public Vm vm()
    {
        return vm;
    }

    /**
     * @return this boot's name (its logs are {@code <name>.*.log}).
     */
    public String name()
    {
        return name;
    }

    /**
     * Run a command on the command console (ttyS0) and wait for it. Holds the guest's lock while it waits, so one
     * command runs at a time; {@link #interrupt()} reaches it from another thread.
     *
     * @param command one shell command line (busybox sh in the guest).
     * @param timeout how long it may run; then it gets ^C and an {@link AssertionError} reports the timeout.
     * @return exit code and output.
     * @throws IOException when the guest is gone.
     */
    public synchronized Result run(final String command, final Duration timeout) throws IOException
    {
        if (!vm.isAlive())
        {
            throw new IOException("rxe guest " + name + " is stopped (QEMU exit code " + vm.exitCode() + ")");
        }
        console.send(command);
        final long deadlineNs = System.nanoTime() + timeout.toNanos();
        final SerialConsole.Completion completion = console.awaitCompletion(deadlineNs);
        if (null != completion)
        {
            return new Result(completion.exitCode(), completion.output());
        }
        final String partial = console.tail(4000);
        console.writeRaw(new byte[] {SerialConsole.CTRL_C});
        final SerialConsole.Completion interrupted =
            console.awaitCompletion(System.nanoTime() + TimeUnit.SECONDS.toNanos(10));
        throw new AssertionError("'" + command + "' did not finish within " + timeout + " and was interrupted" +
            (null == interrupted ? " (no answer to ^C either)" : " (rc " + interrupted.exitCode() + ")") +
            "; output so far:\n" + partial);
    }

    /**
     * Send ^C to the command running on the command console, from any thread (a watchdog): the {@link #run} waiting
     * for it then returns. Never throws.
     */
    public void interrupt()
    {
        try
        {
            console.writeRaw(new byte[] {SerialConsole.CTRL_C});
        }
        catch (final IOException ignore)
        {
            // the console is gone: whatever waited on it ends by itself
        }
    }

    /**
     * Is the guest fit for more work? See {@link GuestDoctor}.
     *
     * @param liveness how to see that eth0 moves frames; {@link GuestDoctor#arpProbe} for a dgram NIC.
     * @return the verdict; never throws.
     */
    public GuestDoctor.Health health(final GuestDoctor.Liveness liveness)
    {
        return GuestDoctor.check(this, liveness);
    }

    /**
     * Save what QEMU and the guest know now (kernel log with every task's stack, eth0, rxe's counters and QPs,
     * virtio queues) as text files, through the diagnostic console and QMP.
     *
     * @param dir where (created).
     * @param why the reason, written first.
     * @return the directory.
     */
    public Path capture(final Path dir, final String why)
    {
        return GuestDoctor.capture(this, dir, why);
    }

    /**
     * @param linkIp the tunnel link's IPv4 address on the guest's segment.
     * @param mtu    the guest NIC's MTU.
     * @return the settings of a tunnel link to this guest's dgram NIC (no pcap).
     * @throws IllegalStateException when the guest's NIC is a tap.
     */
    public TunnelLinkConfig tunnelLinkConfig(final String linkIp, final int mtu)
    {
        if (0 == ports.linkPort())
        {
            throw new IllegalStateException("rxe guest " + name + " has a tap NIC, no dgram tunnel");
        }
        return TunnelLinkConfig.of("127.0.0.1", ports.linkPort(), "127.0.0.1", ports.guestDgramPort(),
            Ipv4Header.parseAddress(linkIp)).withMtu(mtu);
    }

    /**
     * Run a command on the diagnostic console (ttyS1), connecting to it on first use.
     *
     * @param command one command line.
     * @param timeout how long it may take; then it gets ^C.
     * @return the completion, or null when the console did not answer in time.
     * @throws IOException when the console cannot be reached.
     */
    SerialConsole.Completion diag(final String command, final Duration timeout) throws IOException
    {
        synchronized (diagLock)
        {
            return diagLocked(command, timeout);
        }
    }

    private SerialConsole.Completion diagLocked(final String command, final Duration timeout) throws IOException
    {
        if (null == diagConsole)
        {
            final GuestChannel socket = connect(ports, Ports.DIAG, System.nanoTime() + TimeUnit.SECONDS.toNanos(5), vm);
            diagConsole = new SerialConsole(name + "-diag", socket.in(), socket.out(),
                logDir.resolve(name + ".diag.log"));
        }
        diagConsole.send(command);
        final SerialConsole.Completion completion = diagConsole.awaitCompletion(System.nanoTime() + timeout.toNanos());
        if (null == completion)
        {
            diagConsole.writeRaw(new byte[] {SerialConsole.CTRL_C});
            diagConsole.awaitCompletion(System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
        }
        return completion;
    }

    /**
     * Stop the guest: {@code poweroff -f} on the console, then stop QEMU. Idempotent; never throws.
     */
    public void close()
    {
        if (!closed.compareAndSet(false, true))
        {
            return;
        }
        if (vm.isAlive())
        {
            try
            {
                console.writeRaw("\npoweroff -f\n".getBytes(StandardCharsets.US_ASCII));
            }
            catch (final IOException ignore)
            {
                // the console is gone; QEMU is stopped below
            }
        }
        // A guest that never got ready has no command loop to power it off: stop it at once.
        vm.stop(null == ready ? 0 : POWEROFF_WAIT_MS);
        console.close();
        synchronized (diagLock)
        {
            if (null != diagConsole)
            {
                diagConsole.close();
            }
        }
        ports.release();
    }

    private void awaitReady(final long deadlineNs, final RxePeerOptions options) throws IOException
    {
        final String line = console.awaitLine(deadlineNs, vm::exitCode, RxeReady.READY + " ", RxeReady.FAILED + " ");
        if (null == line)
        {
            throw new IOException("rxe guest " + name + " not ready within " + options.readyTimeout() +
                "; console:\n" + console.tail(3000) + "\nqemu stderr:\n" +
                Host.tail(logDir.resolve(name + ".stderr.log"), 20));
        }
        if (line.startsWith(RxeReady.FAILED))
        {
            throw new IOException("rxe guest " + name + " failed to set up: " + line + "; see " +
                logDir.resolve(name + ".console.log"));
        }
        launchToReadyMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
        ready = RxeReady.parse(line);
    }

    /**
     * @param timeout for connecting and for each answer.
     * @return a QMP client of this boot's QEMU.
     * @throws IOException when QEMU does not answer.
     */
    QmpClient qmp(final Duration timeout) throws IOException
    {
        return QmpClient.connect(connect(ports, Ports.QMP, System.nanoTime() + timeout.toNanos(), vm), timeout);
    }

    /**
     * Connect to a channel QEMU listens on (a serial port or QMP), retrying while QEMU is still starting.
     */
    private static GuestChannel connect(final Ports ports, final int channel, final long deadlineNs, final Vm vm)
        throws IOException
    {
        IOException last = null;
        while (deadlineNs - System.nanoTime() > 0)
        {
            if (!vm.isAlive())
            {
                throw new IOException("QEMU exited with code " + vm.exitCode() + " before it opened " +
                    ports.qemuSpec(channel, false), last);
            }
            try
            {
                return ports.connect(channel);
            }
            catch (final IOException ex)
            {
                last = ex;
                LockSupport.parkNanos(CONNECT_PAUSE_NS);
            }
        }
        throw new IOException("QEMU did not open " + ports.qemuSpec(channel, false) + " in time", last);
    }
}
