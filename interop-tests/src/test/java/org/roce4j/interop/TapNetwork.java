package org.roce4j.interop;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Platform;
import org.pcap4j.core.Pcaps;
import org.roce4j.wire.addr.Mac;
import org.roce4j.wire.header.Ipv4Header;

/**
 * The network a tap-mode rxe peer lives on: a network namespace made for it ({@code roce4j-rxetap-<pid>-<n>}) holding
 * one tap device ({@value #TAP}) with the host side's address, QEMU started inside it with {@code -netdev tap}, so the
 * guest's RoCE NIC and the namespace share one Ethernet segment and nothing of it is visible outside. Programs join
 * it through {@link #command(List)} ({@code ip netns exec}); threads of this JVM through {@link #startThread}
 * (setns(2)), so sockets and pcap handles they open belong to the namespace.
 *
 * <p>Inside the namespace: loopback up, IPv6 off until a test turns it on ({@link #enableIpv6}: no router
 * solicitations or DAD on the segment otherwise), IPv4 forwarding
 * off (a frame for an address the kernel does not own is then dropped without an ICMP error: this is what lets a
 * pcap link own a second address on the tap), the tap with MAC {@code 02:00:} + its IPv4 address (so pcaps are
 * the same every run) and the given MTU.
 *
 * <p>{@link #close()} deletes the tap and the namespace; a shutdown hook does it for a JVM that exits early, and
 * {@link #create} deletes namespaces of this naming scheme left behind by JVMs that no longer run (a test JVM killed
 * with SIGKILL). Needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN), iproute2 and /dev/net/tun.
 */
public final class TapNetwork implements AutoCloseable
{
    /** Name of the tap device inside the namespace. */
    public static final String TAP = "rxetap0";
    /** Prefix of the namespaces this class makes. */
    public static final String PREFIX = "roce4j-rxetap-";
    /** CLONE_NEWNET (linux/sched.h): setns into a network namespace. */
    private static final int CLONE_NEWNET = 0x4000_0000;
    /** O_RDONLY (fcntl.h). */
    private static final int O_RDONLY = 0;
    private static final AtomicInteger SEQUENCE = new AtomicInteger();
    private static final Set<TapNetwork> LIVE = ConcurrentHashMap.newKeySet();
    /** A line of /proc/net/snmp6: protocol (Ip6, Icmp6, Udp6, UdpLite6), counter name, value. */
    private static final Pattern SNMP6_LINE = Pattern.compile("(Ip6|Icmp6|UdpLite6|Udp6)([A-Za-z0-9]+)\\s+(\\d+)");
    private static final Pattern OWN_NAME = Pattern.compile("^" + PREFIX + "(\\d+)-\\d+\\b");

    static
    {
        Runtime.getRuntime().addShutdownHook(new Thread(TapNetwork::closeAll, "rxe-tap-shutdown"));
    }

    /** The libc calls that enter a namespace. */
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

    private final String name;
    private final String hostCidr;
    private final int hostIpv4;
    private final long tapMac;
    private final int mtu;
    private boolean closed;

    private TapNetwork(final String name, final String hostCidr, final int mtu)
    {
        this.name = name;
        this.hostCidr = hostCidr;
        this.hostIpv4 = Ipv4Header.parseAddress(hostCidr.substring(0, hostCidr.indexOf('/')));
        this.tapMac = Mac.ofIpv4(hostIpv4);
        this.mtu = mtu;
    }

    /**
     * Why tap mode cannot run here, or null when it can: needs root, iproute2, /dev/net/tun and libpcap (the tests
     * watch the tap with it).
     *
     * @return the reason, or null.
     */
    public static String unavailableReason()
    {
        if (0 != effectiveUid())
        {
            return "needs root for tap mode (a network namespace, a tap device and raw capture); this JVM runs as " +
                "uid " + effectiveUid();
        }
        if (null == PeerTools.findOnPath("ip"))
        {
            return "needs iproute2's ip on the PATH for tap mode (apt-get install iproute2)";
        }
        if (!Files.exists(Path.of("/dev/net/tun")))
        {
            return "needs /dev/net/tun for tap mode (modprobe tun)";
        }
        try
        {
            Pcaps.libVersion();
        }
        catch (final LinkageError ex)
        {
            return "needs libpcap for tap mode (apt-get install libpcap0.8): " + ex;
        }
        return null;
    }

    /**
     * Create the namespace and the tap, ready for QEMU to attach ({@code -netdev tap,ifname=}{@value #TAP}).
     *
     * @param hostCidr the host side's address on the tap with prefix length, e.g. {@code 10.98.0.1/24}.
     * @param mtu      IP MTU of the tap (the guest's NIC gets the same).
     * @return the network.
     * @throws IllegalStateException when a command fails (its output is in the message); nothing is left behind.
     */
    public static TapNetwork create(final String hostCidr, final int mtu)
    {
        if (!hostCidr.matches("\\d+\\.\\d+\\.\\d+\\.\\d+/\\d+"))
        {
            throw new IllegalArgumentException("tap address must be A.B.C.D/N, got '" + hostCidr + "'");
        }
        removeOrphans();
        final TapNetwork network = new TapNetwork(
            PREFIX + ProcessHandle.current().pid() + "-" + SEQUENCE.incrementAndGet(), hostCidr, mtu);
        run("ip", "netns", "add", network.name);
        LIVE.add(network);
        try
        {
            network.setUp();
        }
        catch (final RuntimeException ex)
        {
            network.close();
            throw ex;
        }
        return network;
    }

    private void setUp()
    {
        ip("link", "set", "lo", "up");
        run(command(List.of("sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1",
            "net.ipv6.conf.default.disable_ipv6=1", "net.ipv4.ip_forward=0", "net.ipv4.conf.all.forwarding=0",
            "net.ipv4.conf.default.forwarding=0")).toArray(new String[0]));
        ip("tuntap", "add", "dev", TAP, "mode", "tap");
        ip("link", "set", TAP, "address", Mac.toString(tapMac), "mtu", Integer.toString(mtu));
        ip("addr", "add", hostCidr, "dev", TAP);
        // Administratively up now; the carrier comes when QEMU attaches.
        ip("link", "set", TAP, "up");
    }

    /**
     * @return the namespace's name.
     */
    public String name()
    {
        return name;
    }

    /**
     * @return the tap device's name inside the namespace.
     */
    public String tap()
    {
        return TAP;
    }

    /**
     * @return the kernel's address on the tap, e.g. {@code 10.98.0.1}.
     */
    public String hostAddress()
    {
        return Ipv4Header.addressToString(hostIpv4);
    }

    /**
     * Turn IPv6 on in the namespace and give the tap a global address as well (idempotent): the namespace's kernel
     * then owns it and its link-local address, with no duplicate address detection ({@code accept_dad=0},
     * {@code nodad}: the address is usable at once) and no forwarding (the default), so, as for IPv4, a frame for an
     * address it does not own (a pcap link's) is dropped without an ICMPv6 error.
     *
     * @param cidr e.g. {@code fd00:98::1/64}.
     */
    public void enableIpv6(final String cidr)
    {
        run(command(List.of("sysctl", "-q", "-w", "net.ipv6.conf.all.accept_dad=0",
            "net.ipv6.conf.default.accept_dad=0", "net.ipv6.conf." + TAP + ".accept_dad=0",
            "net.ipv6.conf.all.disable_ipv6=0", "net.ipv6.conf.default.disable_ipv6=0",
            "net.ipv6.conf." + TAP + ".disable_ipv6=0")).toArray(new String[0]));
        ip("-6", "addr", "replace", cidr, "dev", TAP, "nodad");
    }

    /**
     * @return the tap's MAC (the kernel's, and a pcap link's unless it is given another).
     */
    public long tapMac()
    {
        return tapMac;
    }

    /**
     * @return the tap's IP MTU.
     */
    public int mtu()
    {
        return mtu;
    }

    /**
     * @param command a program and its arguments.
     * @return the same run inside the namespace ({@code ip netns exec NAME ...}).
     */
    public List<String> command(final List<String> command)
    {
        final List<String> full = new ArrayList<>(List.of("ip", "netns", "exec", name));
        full.addAll(command);
        return full;
    }

    /**
     * Run {@code ip -n NAME args...}.
     *
     * @param args ip arguments.
     * @return its output.
     * @throws IllegalStateException when it fails.
     */
    public String ip(final String... args)
    {
        final List<String> command = new ArrayList<>(List.of("ip", "-n", name));
        command.addAll(List.of(args));
        return run(command.toArray(new String[0]));
    }

    /**
     * The namespace's IP, ICMP and UDP counters ({@code /proc/net/snmp} and {@code /proc/net/snmp6} read inside it).
     *
     * @return e.g. {@code Udp.NoPorts -> 0}, {@code Icmp.OutDestUnreachs -> 0}, {@code Icmp6.OutDestUnreachs -> 0},
     *     sorted by name.
     */
    public Map<String, Long> snmp()
    {
        final String[] lines = run(command(List.of("cat", "/proc/net/snmp")).toArray(new String[0])).split("\n");
        final Map<String, Long> counters = new TreeMap<>();
        // The file comes in pairs of lines: "Proto: Name1 Name2 ..." then "Proto: value1 value2 ...".
        for (int i = 0; i + 1 < lines.length; i += 2)
        {
            final String[] names = lines[i].trim().split("\\s+");
            final String[] values = lines[i + 1].trim().split("\\s+");
            for (int k = 1; k < Math.min(names.length, values.length); k++)
            {
                counters.put(names[0].replace(":", "") + "." + names[k], Long.parseLong(values[k]));
            }
        }
        // IPv6's counters, one "Icmp6OutDestUnreachs 0" per line, named Icmp6.OutDestUnreachs here (absent while
        // IPv6 is off in the namespace).
        final String snmp6 = run(command(List.of("sh", "-c", "cat /proc/net/snmp6 2>/dev/null || true"))
            .toArray(new String[0]));
        for (final String line : snmp6.split("\n"))
        {
            final Matcher counter = SNMP6_LINE.matcher(line.trim());
            if (counter.matches())
            {
                counters.put(counter.group(1) + "." + counter.group(2), Long.parseLong(counter.group(3)));
            }
        }
        return Collections.unmodifiableMap(counters);
    }

    /**
     * Start a thread that enters the namespace before running the task: sockets and pcap handles it opens belong
     * to the namespace (and keep working from any thread).
     *
     * @param threadName the thread's name.
     * @param task       what it runs once inside.
     * @return the started thread (a daemon).
     */
    public Thread startThread(final String threadName, final Runnable task)
    {
        final Thread thread = new Thread(() ->
        {
            enter();
            task.run();
        }, threadName);
        thread.setDaemon(true);
        thread.start();
        return thread;
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
     * Delete the tap and the namespace. Idempotent; never throws (a failure is printed). Stop QEMU first: while it
     * runs it keeps the namespace alive (only its name goes).
     */
    public synchronized void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        LIVE.remove(this);
        try
        {
            ip("link", "del", TAP);
        }
        catch (final RuntimeException ex)
        {
            // Gone with QEMU already, or the namespace never got one; deleting the namespace removes it anyway.
        }
        try
        {
            run("ip", "netns", "del", name);
        }
        catch (final RuntimeException ex)
        {
            System.err.println("[rxe-tap] cannot delete namespace " + name + ": " + ex.getMessage());
        }
    }

    /**
     * @return e.g. {@code roce4j-rxetap-123-1 rxetap0 10.98.0.1/24 mtu 9000}.
     */
    public String toString()
    {
        return name + " " + TAP + " " + hostCidr + " mtu " + mtu;
    }

    /**
     * Delete namespaces named by this class for a JVM that no longer runs.
     */
    private static void removeOrphans()
    {
        for (final String line : run("ip", "netns", "list").split("\n"))
        {
            final Matcher matcher = OWN_NAME.matcher(line.trim());
            if (matcher.find() && ProcessHandle.of(Long.parseLong(matcher.group(1))).isEmpty())
            {
                final String orphan = line.trim().split("\\s+")[0];
                try
                {
                    run("ip", "netns", "del", orphan);
                    System.out.println("[rxe-tap] deleted namespace " + orphan + " left by a JVM that is gone");
                }
                catch (final RuntimeException ex)
                {
                    System.err.println("[rxe-tap] cannot delete " + orphan + ": " + ex.getMessage());
                }
            }
        }
    }

    private static void closeAll()
    {
        for (final TapNetwork network : LIVE)
        {
            network.close();
        }
    }

    private static int effectiveUid()
    {
        try
        {
            for (final String line : Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.US_ASCII))
            {
                if (line.startsWith("Uid:"))
                {
                    // "Uid: real effective saved filesystem"
                    return Integer.parseInt(line.substring(4).trim().split("\\s+")[1]);
                }
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            return -1;
        }
        return -1;
    }

    /**
     * Run a command, failing with its output when it exits non-zero.
     *
     * @param command and arguments.
     * @return its output (stdout and stderr).
     */
    static String run(final String... command)
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
