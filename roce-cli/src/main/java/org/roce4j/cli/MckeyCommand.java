package org.roce4j.cli;

import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.concurrent.Callable;

import org.roce4j.cli.mckey.Mckey;
import org.roce4j.cli.mckey.MckeySettings;
import org.roce4j.wire.mad.RdmaCmServiceId;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code roce mckey}: rdma-core's mckey (librdmacm/examples/mckey.c, v44) on roce4j: UD multicast through rdma_cm's
 * UDP port space, a receiver (default) or a sender ({@code -s}) joining the group {@code -m} with {@code -c} QPs,
 * {@code -C} messages of {@code -S} bytes, with mckey's options, output lines and exit status (its return status as
 * a byte: 0; 1 for bad options, a missing -m or an unsupported port space or address kind; 254 when an address does
 * not resolve; 255 for a failed join or leave; 146 when roce4j's --timeout ends a wait mckey would keep up forever).
 */
@Command(
    name = "mckey",
    exitCodeOnInvalidInput = MckeyCommand.EXIT_USAGE,
    exitCodeOnExecutionException = MckeyCommand.EXIT_FAILED,
    description = {
        "UD multicast through rdma_cm, like rdma-core's mckey: join the group -m (IPv4 or IPv6) with -c UD QPs; " +
            "with -s send -C messages of -S bytes to it, without -s receive them.",
        "With --link memory (the default) a receiver and a sender both run in this process.",
        "Every link receives groups: udp:IP through a socket per joined group (epoll or io_uring; nio refuses), " +
            "pcap: with the group's MAC in the interface's multicast filter (needs CAP_NET_ADMIN), tunnel: as is.",
        "Exit codes as mckey's return status: 0; 1 bad options; 255 a failed join or leave; 146 --timeout expired."})
public final class MckeyCommand implements Callable<Integer>, CmToolRunner.Tool<MckeySettings>
{
    /** mckey's exit for bad options (usage, exit(1)). */
    static final int EXIT_USAGE = CmToolRunner.EXIT_USAGE;
    /** librdmacm's -1 as an exit status. */
    static final int EXIT_FAILED = CmToolRunner.EXIT_FAILED;
    /** getaddrinfo's EAI_NONAME (-2) as an exit status. */
    static final int EXIT_EAI_NONAME = CmToolRunner.EXIT_EAI_NONAME;
    /** A group for the in-process run when -m is not given. */
    private static final String IN_PROCESS_GROUP = "239.77.0.1";

    @Spec
    private CommandSpec spec;

    @Option(names = "-m", paramLabel = "multicast_address", description = "the group: IPv4 224.0.0.0/4 or IPv6 " +
        "ff00::/8")
    private String multicastAddress;

    @Option(names = "-M", paramLabel = "unmapped_multicast_address", description = "an InfiniBand MGID through " +
        "AF_IB (refused: RoCE groups are IP addresses)")
    private String unmappedAddress;

    @Option(names = "-s", description = "sender")
    private boolean sender;

    @Option(names = "-b", paramLabel = "bind_address", description = "address to send from (must be the link's)")
    private String bindAddress;

    @Option(names = "-c", paramLabel = "connections", description = "identifiers joining the group (default 1)")
    private int connections = 1;

    @Option(names = "-C", paramLabel = "message_count", description = "messages (default 10)")
    private int messageCount = MckeySettings.DEFAULT_MESSAGE_COUNT;

    @Option(names = "-S", paramLabel = "message_size", description = "message size (default 100, at most the " +
        "active MTU)")
    private int messageSize = MckeySettings.DEFAULT_MESSAGE_SIZE;

    @Option(names = "-p", paramLabel = "port_space", description = "0x111 for UDP (default); 0x2 for IPoIB is " +
        "not supported")
    private String portSpace;

    @Option(names = "-o", description = "join as a send-only full member (the QP is not attached)")
    private boolean sendOnly;

    @Option(names = "-l", description = "join without multicast loopback (roce4j never loops a device's multicast " +
        "back to it)")
    private boolean noLoopback;

    @Option(names = "--pause", paramLabel = "ms", description = "pause between the join and the transfers " +
        "(default 3000, mckey's sleep(3))")
    private long pauseMs = MckeySettings.DEFAULT_PAUSE_MS;

    @Option(names = "--timeout", paramLabel = "ms", description = "give up a wait after this long (default 0: " +
        "wait forever, as mckey)")
    private long timeoutMs;

    @Mixin
    private LinkOption link;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help")
    private boolean help;

    /**
     * @return mckey's exit status.
     */
    public Integer call()
    {
        return CmToolRunner.call("mckey", link, spec, this);
    }

    @Override
    public void unresolved(final UnknownHostException ex, final PrintWriter out)
    {
        // run() prints its first line, then get_dst_addr fails with getaddrinfo's EAI_NONAME (-2).
        out.println("mckey: starting " + (sender ? "client" : "server"));
        out.println("getaddrinfo failed (" + HostNames.gaiText(ex) + ") - invalid hostname or IP address");
    }

    /**
     * @param out mckey's stdout.
     * @param err mckey's stderr.
     * @return the settings, or null after printing why mckey would exit(1).
     * @throws UnknownHostException when -m or -b does not resolve.
     */
    @Override
    public MckeySettings settings(final PrintWriter out, final PrintWriter err) throws UnknownHostException
    {
        if (null != unmappedAddress)
        {
            if (null == bindAddress)
            {
                out.println("unmapped multicast address requires binding to source address");
                out.flush();
                return null;
            }
            throw new IllegalArgumentException("-M " + unmappedAddress + " names an InfiniBand MGID through AF_IB; " +
                "RoCE groups are IP multicast addresses: use -m");
        }
        if (null != portSpace && RdmaCmServiceId.PS_UDP != CmToolRunner.strtol("-p", portSpace))
        {
            throw new IllegalArgumentException("port space " + portSpace + " is not supported: roce4j's rdma_cm " +
                "joins multicast groups in RDMA_PS_UDP (0x111) only (RDMA_PS_IPOIB needs IPoIB)");
        }
        if (connections < 1 || messageCount < 0 || messageSize < 0 || pauseMs < 0 || timeoutMs < 0)
        {
            throw new IllegalArgumentException("-c must be at least 1, -C, -S, --pause and --timeout at least 0");
        }
        if (null == multicastAddress && !link.isMemory())
        {
            throw new IllegalArgumentException("-m multicast_address is required");
        }
        final InetAddress group = HostNames.resolve(null != multicastAddress ? multicastAddress : IN_PROCESS_GROUP);
        if (!group.isMulticastAddress())
        {
            throw new IllegalArgumentException("-m " + multicastAddress + " is not a multicast address (224.0.0.0/4 " +
                "or ff00::/8)");
        }
        final InetAddress bind = null == bindAddress ? null : HostNames.resolve(bindAddress);
        return new MckeySettings(sender, group, bind, connections, messageCount, messageSize, sendOnly, pauseMs,
            timeoutMs);
    }

    @Override
    public CmToolRunner.Role role(final MckeySettings settings)
    {
        return (cm, o, e, joined) -> new Mckey(cm, settings, o, e).run();
    }

    /**
     * In process ({@link CmToolRunner#inProcess}) the receiver runs first: the sender starts once it has joined.
     */
    @Override
    public CmToolRunner.Role server(final MckeySettings settings)
    {
        return (cm, o, e, joined) -> new Mckey(cm, settings.role(false).bindTo(null), o, e).onJoined(joined).run();
    }

    /** In process: the sender. */
    @Override
    public CmToolRunner.Role client(final MckeySettings settings)
    {
        return (cm, o, e, joined) -> new Mckey(cm, settings.role(true).bindTo(null), o, e).run();
    }

    @Override
    public void usage(final PrintWriter out)
    {
        out.println("usage: mckey");
        out.println("\t-m multicast_address");
        out.println("\t[-M unmapped_multicast_address]");
        out.println("\t replaces -m and requires -b");
        out.println("\t[-s(ender)]");
        out.println("\t[-b bind_address]");
        out.println("\t[-c connections]");
        out.println("\t[-C message_count]");
        out.println("\t[-S message_size]");
        out.println("\t[-p port_space - 0x111 for UDP (default), 0x2 for IPOIB]");
        out.println("\t[-o join as a send-only full-member]");
        out.println("\t[-l join without multicast loopback]");
        out.println("\t[--link SPEC]\troce4j: " + LinkOption.DESCRIPTION);
        out.flush();
    }
}
