package org.roce4j.transport.link;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Platform;
import org.roce4j.wire.addr.Mac;

/**
 * A network namespace made for a test, with a unique name, removed by {@link #close()} (with every interface in
 * it). Commands run through {@code ip -n NAME ...}; Java code runs inside it with {@link #call(Callable)}: on a
 * fresh thread that has entered the namespace with setns(2), so sockets and pcap handles opened there belong to
 * the namespace and keep working when used from other threads. Needs root.
 */
public final class NetworkNamespace implements AutoCloseable
{
    /** CLONE_NEWNET (linux/sched.h): setns into a network namespace. */
    private static final int CLONE_NEWNET = 0x4000_0000;
    /** O_RDONLY (fcntl.h). */
    private static final int O_RDONLY = 0;
    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    /** libc calls for entering a namespace. */
    public interface LibC extends Library
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

    private final String name;
    private boolean closed;

    private NetworkNamespace(final String name)
    {
        this.name = name;
    }

    /**
     * Create a namespace named {@code roce4j-<tag>-<pid>-<n>} with its loopback up.
     *
     * @param tag short text for the name (at most 6 characters keeps interface names short).
     * @return the namespace.
     */
    public static NetworkNamespace create(final String tag)
    {
        final String name = "roce4j-" + tag + "-" + ProcessHandle.current().pid() + "-" +
            SEQUENCE.incrementAndGet();
        run("ip", "netns", "add", name);
        final NetworkNamespace namespace = new NetworkNamespace(name);
        try
        {
            namespace.ip("link", "set", "lo", "up");
        }
        catch (final RuntimeException ex)
        {
            namespace.close();
            throw ex;
        }
        return namespace;
    }

    /**
     * For a pcap link test: require network admin rights, {@code ip} and libpcap (skipping with the reason, or
     * failing in CI), then create a namespace holding a veth pair.
     *
     * @param tag    short text for the namespace's name.
     * @param first  name of one end.
     * @param second name of the other.
     * @param mtu    IP MTU of both ends.
     * @return the namespace.
     */
    public static NetworkNamespace withPcapVethPair(final String tag, final String first, final String second,
        final int mtu)
    {
        TestEnvironment.requireNetworkAdmin();
        TestEnvironment.requireCommand("ip");
        TestEnvironment.requireLibpcap();
        final NetworkNamespace namespace = create(tag);
        namespace.addVethPair(first, second, mtu);
        return namespace;
    }

    /**
     * @return the namespace's name.
     */
    public String name()
    {
        return name;
    }

    /**
     * Run {@code ip -n NAME args...}.
     *
     * @param args ip arguments.
     * @return its standard output.
     */
    public String ip(final String... args)
    {
        final List<String> command = new ArrayList<>(List.of("ip", "-n", name));
        command.addAll(List.of(args));
        return run(command.toArray(new String[0]));
    }

    /**
     * Run a command inside the namespace ({@code ip netns exec NAME command...}).
     *
     * @param command and arguments.
     * @return its standard output.
     */
    public String exec(final String... command)
    {
        final List<String> full = new ArrayList<>(List.of("ip", "netns", "exec", name));
        full.addAll(List.of(command));
        return run(full.toArray(new String[0]));
    }

    /**
     * Create a veth pair inside this namespace, both ends up, with the given MTU and IPv6 off (no router
     * solicitations or DAD noise).
     *
     * @param first  name of one end.
     * @param second name of the other.
     * @param mtu    IP MTU of both ends.
     */
    public void addVethPair(final String first, final String second, final int mtu)
    {
        exec("sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1");
        exec("sysctl", "-q", "-w", "net.ipv6.conf.default.disable_ipv6=1");
        ip("link", "add", first, "mtu", Integer.toString(mtu), "type", "veth", "peer", "name", second, "mtu",
            Integer.toString(mtu));
        ip("link", "set", first, "up");
        ip("link", "set", second, "up");
    }

    /**
     * @param device an interface inside this namespace.
     * @return its MAC (from {@code ip -o link show}).
     */
    public long mac(final String device)
    {
        final String show = ip("-o", "link", "show", device);
        final int at = show.indexOf("link/ether ") + "link/ether ".length();
        return Mac.parse(show.substring(at, at + 17));
    }

    /**
     * Join two namespaces with a veth pair, both ends up with the given MTU, an IPv4 address each, and IPv6 off in
     * both namespaces (no router solicitations or DAD noise on the wire).
     *
     * @param first         one namespace.
     * @param firstDevice   its end's name.
     * @param firstAddress  its end's address with prefix length, e.g. {@code 10.81.0.1/24}; null for none.
     * @param second        the other namespace.
     * @param secondDevice  its end's name.
     * @param secondAddress its end's address with prefix length; null for none.
     * @param mtu           IP MTU of both ends.
     */
    public static void joinByVeth(
        final NetworkNamespace first, final String firstDevice, final String firstAddress,
        final NetworkNamespace second, final String secondDevice, final String secondAddress, final int mtu)
    {
        run("ip", "link", "add", firstDevice, "mtu", Integer.toString(mtu), "netns", first.name(), "type", "veth",
            "peer", "name", secondDevice, "mtu", Integer.toString(mtu), "netns", second.name());
        for (final NetworkNamespace side : List.of(first, second))
        {
            side.exec("sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1");
            side.exec("sysctl", "-q", "-w", "net.ipv6.conf.default.disable_ipv6=1");
        }
        if (null != firstAddress)
        {
            first.ip("addr", "add", firstAddress, "dev", firstDevice);
        }
        if (null != secondAddress)
        {
            second.ip("addr", "add", secondAddress, "dev", secondDevice);
        }
        first.ip("link", "set", firstDevice, "up");
        second.ip("link", "set", secondDevice, "up");
    }

    /**
     * Run code inside the namespace, on a new thread that enters it first.
     *
     * @param task the code.
     * @param <T>  its result type.
     * @return its result.
     */
    public <T> T call(final Callable<T> task)
    {
        final Object[] result = new Object[1];
        final Throwable[] failure = new Throwable[1];
        final Thread thread = new Thread(() ->
        {
            try
            {
                enter();
                result[0] = task.call();
            }
            catch (final Throwable ex)
            {
                failure[0] = ex;
            }
        }, "in-" + name);
        thread.start();
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

    private void enter()
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
     * Delete the namespace and everything in it. Idempotent.
     */
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        run("ip", "netns", "del", name);
    }

    /**
     * Run a command, failing with its output when it exits non-zero.
     *
     * @param command and arguments.
     * @return standard output.
     */
    public static String run(final String... command)
    {
        try
        {
            final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            final int exit = process.waitFor();
            if (0 != exit)
            {
                throw new IllegalStateException(String.join(" ", command) + " exited " + exit + ": " + output.trim());
            }
            return output;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot run " + String.join(" ", command), ex);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running " + String.join(" ", command), ex);
        }
    }
}
