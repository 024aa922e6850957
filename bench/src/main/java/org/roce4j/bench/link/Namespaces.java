package org.roce4j.bench.link;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Platform;
import org.roce4j.bench.engine.LinkKind;

/**
 * The network namespaces a link benchmark runs in, created by the benchmark and removed by {@link #close()} (also
 * from a shutdown hook, so an interrupted run leaves nothing behind). Addresses exist only inside them.
 *
 * <ul>
 *   <li>{@link #loopback(String)}: one namespace; its own {@code lo} (MTU 65536) carries 127.0.0.1 and 127.0.0.2,
 *   so no other program on the machine can hold port 4791 on those addresses.</li>
 *   <li>{@link #vethPair(String, int)}: two namespaces joined by a veth pair with MTU 9000 (room for the 4096-byte
 *   IB MTU), IPv6 off, {@code 10.97.0.1/24} on side A and {@code 10.97.0.2/24} on side B.</li>
 *   <li>{@link #vethPair6(String, int)}: the same pair over IPv6 only: {@code fd00:97::1/64} and {@code fd00:97::2/64},
 *   no duplicate address detection (the addresses work at once), no forwarding, no IPv4 address.</li>
 * </ul>
 *
 * <p>Java code runs in a namespace through {@link #call(int, Callable)}: on a fresh thread that entered it with
 * setns(2). Sockets and pcap handles opened there belong to the namespace and work from any thread afterwards.
 * Needs root and iproute2.
 */
final class Namespaces implements AutoCloseable
{
    /** Address of side A on the veth pair. */
    static final String VETH_A = "10.97.0.1";
    /** Address of side B on the veth pair. */
    static final String VETH_B = "10.97.0.2";
    /** Address the pcap link of side A owns (not configured on the interface, so the kernel stays out of ARP). */
    static final String PCAP_A = "10.97.1.1";
    /** Address the pcap link of side B owns. */
    static final String PCAP_B = "10.97.1.2";
    /** Address of side A on the IPv6 veth pair. */
    static final String VETH6_A = "fd00:97::1";
    /** Address of side B on the IPv6 veth pair. */
    static final String VETH6_B = "fd00:97::2";
    /** Address the pcap link of side A owns on the IPv6 pair (not configured, so the kernel answers no NS for it). */
    static final String PCAP6_A = "fd00:97::11";
    /** Address the pcap link of side B owns on the IPv6 pair. */
    static final String PCAP6_B = "fd00:97::12";
    /** Interface names of the veth ends. */
    static final String VETH_IFACE_A = "rlbA";
    /** Interface name of side B's veth end. */
    static final String VETH_IFACE_B = "rlbB";
    /** veth MTU: a jumbo frame, so the device's active IB MTU is 4096 (the bench's one jumbo MTU). */
    static final int VETH_MTU = LinkKind.JUMBO_MTU;

    /** CLONE_NEWNET (linux/sched.h). */
    private static final int CLONE_NEWNET = 0x4000_0000;
    /** O_RDONLY (fcntl.h). */
    private static final int O_RDONLY = 0;

    /** libc calls for entering a namespace. */
    interface LibC extends Library
    {
        /** The C library. */
        LibC INSTANCE = Native.load(Platform.C_LIBRARY_NAME, LibC.class);

        /**
         * @param path  file.
         * @param flags O_*.
         * @return fd or -1.
         */
        int open(String path, int flags);

        /**
         * @param fd     namespace file descriptor.
         * @param nstype CLONE_NEW*.
         * @return 0 or -1.
         */
        int setns(int fd, int nstype);

        /**
         * @param fd to close.
         * @return 0 or -1.
         */
        int close(int fd);
    }

    private final String[] names;
    private final Thread cleanup;
    private boolean closed;

    private Namespaces(final String... names)
    {
        this.names = names;
        this.cleanup = new Thread(this::deleteAll, "netns-cleanup");
        Runtime.getRuntime().addShutdownHook(cleanup);
    }

    /**
     * @param tag distinguishes runs.
     * @return one namespace with its loopback up.
     */
    static Namespaces loopback(final String tag)
    {
        final String name = "roce4j-" + tag + "-lo-" + ProcessHandle.current().pid();
        run("ip", "netns", "add", name);
        final Namespaces namespaces = new Namespaces(name);
        try
        {
            run("ip", "-n", name, "link", "set", "lo", "up");
        }
        catch (final RuntimeException ex)
        {
            namespaces.close();
            throw ex;
        }
        return namespaces;
    }

    /**
     * @param tag distinguishes runs.
     * @param mtu veth MTU.
     * @return two namespaces joined by a veth pair, addressed and up.
     */
    static Namespaces vethPair(final String tag, final int mtu)
    {
        return vethPair(tag, mtu, false);
    }

    /**
     * @param tag distinguishes runs.
     * @param mtu veth MTU.
     * @return two namespaces joined by a veth pair, addressed over IPv6 only and up.
     */
    static Namespaces vethPair6(final String tag, final int mtu)
    {
        return vethPair(tag, mtu, true);
    }

    private static Namespaces vethPair(final String tag, final int mtu, final boolean ipv6)
    {
        final String a = "roce4j-" + tag + "-a-" + ProcessHandle.current().pid();
        final String b = "roce4j-" + tag + "-b-" + ProcessHandle.current().pid();
        run("ip", "netns", "add", a);
        final Namespaces namespaces = new Namespaces(a, b);
        try
        {
            run("ip", "netns", "add", b);
            for (final String name : namespaces.names)
            {
                if (ipv6)
                {
                    // No DAD (addresses usable at once, no probe frames during a measurement), no forwarding (so
                    // frames to the pcap links' addresses are dropped, not routed back out).
                    for (final String conf : new String[] {"all", "default"})
                    {
                        run("ip", "netns", "exec", name, "sysctl", "-q", "-w", "net.ipv6.conf." + conf +
                            ".disable_ipv6=0");
                        run("ip", "netns", "exec", name, "sysctl", "-q", "-w", "net.ipv6.conf." + conf +
                            ".accept_dad=0");
                        run("ip", "netns", "exec", name, "sysctl", "-q", "-w", "net.ipv6.conf." + conf +
                            ".forwarding=0");
                    }
                }
                else
                {
                    run("ip", "netns", "exec", name, "sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1");
                    run("ip", "netns", "exec", name, "sysctl", "-q", "-w", "net.ipv6.conf.default.disable_ipv6=1");
                }
                run("ip", "-n", name, "link", "set", "lo", "up");
            }
            run("ip", "-n", a, "link", "add", VETH_IFACE_A, "mtu", Integer.toString(mtu), "type", "veth", "peer",
                "name", VETH_IFACE_B, "netns", b, "mtu", Integer.toString(mtu));
            if (ipv6)
            {
                run("ip", "-n", a, "addr", "add", VETH6_A + "/64", "dev", VETH_IFACE_A, "nodad");
                run("ip", "-n", b, "addr", "add", VETH6_B + "/64", "dev", VETH_IFACE_B, "nodad");
            }
            else
            {
                run("ip", "-n", a, "addr", "add", VETH_A + "/24", "dev", VETH_IFACE_A);
                run("ip", "-n", b, "addr", "add", VETH_B + "/24", "dev", VETH_IFACE_B);
            }
            run("ip", "-n", a, "link", "set", VETH_IFACE_A, "up");
            run("ip", "-n", b, "link", "set", VETH_IFACE_B, "up");
        }
        catch (final RuntimeException ex)
        {
            namespaces.close();
            throw ex;
        }
        return namespaces;
    }

    /**
     * Run code inside one of the namespaces, on a new thread that enters it first.
     *
     * @param side 0 for the first (A), 1 for the second (B; the loopback case has only one).
     * @param task the code.
     * @param <T>  its result type.
     * @return its result.
     */
    <T> T call(final int side, final Callable<T> task)
    {
        final String name = names[Math.min(side, names.length - 1)];
        final Object[] result = new Object[1];
        final Throwable[] failure = new Throwable[1];
        final Thread thread = new Thread(() ->
        {
            try
            {
                enter(name);
                result[0] = task.call();
            }
            catch (final Throwable ex)
            {
                failure[0] = ex;
            }
        }, "in-" + name);
        thread.start();
        joinUninterruptibly(thread);
        if (null != failure[0])
        {
            if (failure[0] instanceof RuntimeException)
            {
                throw (RuntimeException)failure[0];
            }
            if (failure[0] instanceof Error)
            {
                throw (Error)failure[0];
            }
            throw new IllegalStateException(failure[0]);
        }
        @SuppressWarnings("unchecked")
        final T value = (T)result[0];
        return value;
    }

    /**
     * @param side 0 or 1.
     * @return the namespace's name.
     */
    String name(final int side)
    {
        return names[Math.min(side, names.length - 1)];
    }

    static void joinUninterruptibly(final Thread thread)
    {
        boolean interrupted = false;
        while (thread.isAlive())
        {
            try
            {
                thread.join();
            }
            catch (final InterruptedException ex)
            {
                interrupted = true;
            }
        }
        if (interrupted)
        {
            Thread.currentThread().interrupt();
        }
    }

    private static void enter(final String name)
    {
        final String path = "/var/run/netns/" + name;
        final int fd = LibC.INSTANCE.open(path, O_RDONLY);
        if (fd < 0)
        {
            throw new IllegalStateException("cannot open " + path + ": errno " + Native.getLastError());
        }
        try
        {
            if (0 != LibC.INSTANCE.setns(fd, CLONE_NEWNET))
            {
                throw new IllegalStateException("setns into " + name + " failed: errno " + Native.getLastError());
            }
        }
        finally
        {
            LibC.INSTANCE.close(fd);
        }
    }

    /**
     * Delete the namespaces and everything in them. Idempotent.
     */
    public void close()
    {
        if (closed)
        {
            return;
        }
        deleteAll();
        try
        {
            Runtime.getRuntime().removeShutdownHook(cleanup);
        }
        catch (final IllegalStateException ex)
        {
            // Already shutting down: the hook runs (and finds nothing left to delete).
        }
    }

    private synchronized void deleteAll()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        for (final String name : names)
        {
            try
            {
                run("ip", "netns", "del", name);
            }
            catch (final RuntimeException ex)
            {
                System.err.println("cannot remove namespace " + name + ": " + ex.getMessage());
            }
        }
    }

    /**
     * Run a command, failing with its output when it exits non-zero.
     *
     * @param command and arguments.
     * @return standard output.
     */
    static String run(final String... command)
    {
        final List<String> list = new ArrayList<>(List.of(command));
        try
        {
            final Process process = new ProcessBuilder(list).redirectErrorStream(true).start();
            final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            final int exit = process.waitFor();
            if (0 != exit)
            {
                throw new IllegalStateException(String.join(" ", list) + " exited " + exit + ": " + output.trim());
            }
            return output;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot run " + String.join(" ", list), ex);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running " + String.join(" ", list), ex);
        }
    }
}
