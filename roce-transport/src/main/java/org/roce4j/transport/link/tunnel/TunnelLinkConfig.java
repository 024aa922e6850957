package org.roce4j.transport.link.tunnel;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.link.LinkSpec;
import org.roce4j.transport.link.ethernet.NeighbourPolicy;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.addr.Mac;
import org.roce4j.wire.header.Ipv4Header;

/**
 * Settings of a {@link TunnelLink}, usually parsed from a link spec string ({@link #GRAMMAR}), for example
 * {@code tunnel:127.0.0.1:5000:127.0.0.1:5001,ip=10.77.0.1,pcap=target/run.pcap}, which matches a QEMU guest started
 * with {@code -netdev dgram,local...port=5001,remote...port=5000}. Hosts are names or IPv4 literals; an IPv6 literal
 * goes in brackets ({@code [::1]}). A bind port of 0 takes any free port ({@link TunnelLink#localPort()} tells
 * which). {@code ip=} may be repeated and takes IPv4 or IPv6 addresses ({@code ip=10.77.0.1,ip=fd00:77::1}).
 *
 * <p>Two options are sugar for decorators that work on every link: {@code pcap=FILE} records every frame to a pcapng
 * file as {@code --pcap FILE} does (the same recorder, {@code link.capture.PcapngRecorder}), and {@code loss=P} (with
 * {@code seed=N}) drops that fraction of frames each way: {@code LinkSpecs.open} wraps the link in a
 * {@code link.fault.FaultyLink} with the rules {@code drop=P;seed=N}, as {@code --faults 'drop=P;seed=N'} would.
 *
 * @param bindHost   local address the UDP socket binds to.
 * @param bindPort   local UDP port, 0..65535 (0: any free port).
 * @param peerHost   address of the other end (QEMU's {@code local} address).
 * @param peerPort   UDP port of the other end, 1..65535.
 * @param address    the link's own MAC and addresses; it answers ARP and Neighbor Solicitations for them.
 * @param peerMac    a fixed destination MAC for every frame, or {@link Mac#NONE} to resolve by ARP or ND.
 * @param pcap       file to record every frame sent and received, or null.
 * @param mtu        IP MTU of the medium (the guest's NIC MTU), {@link #MIN_MTU}..{@link Link#MAX_IP_MTU}.
 * @param neighbours how neighbours are resolved ({@code arp-retries}, {@code arp-interval-ms}, {@code arp-queue},
 *                   {@code neighbours}).
 * @param ringFrames frames the send ring holds between {@code flush()} calls, 1..65536.
 * @param loss       fraction of frames dropped each way on purpose, 0..1 (sugar for a drop rule, see above).
 * @param lossSeed   seed of the drops, so a run can be repeated.
 */
public record TunnelLinkConfig(
    String bindHost,
    int bindPort,
    String peerHost,
    int peerPort,
    LinkAddress address,
    long peerMac,
    Path pcap,
    int mtu,
    NeighbourPolicy neighbours,
    int ringFrames,
    double loss,
    long lossSeed)
{
    /** Prefix of a tunnel link spec. */
    public static final String SCHEME = "tunnel:";
    /** The spec grammar, for error messages and help texts. */
    public static final String GRAMMAR = "tunnel:BIND_HOST:BIND_PORT:PEER_HOST:PEER_PORT,ip=IP[,ip=IP]...[,mac=MAC]" +
        "[,peer-mac=MAC][,pcap=FILE][,mtu=1500][,ring=256][,loss=P][,seed=N]" + LinkSpec.NEIGHBOUR_GRAMMAR;
    /** Default IP MTU: standard Ethernet, which gives rxe an active IB MTU of 1024. */
    public static final int DEFAULT_MTU = 1500;
    /** Smallest MTU accepted: the IPv4 minimum every host must accept (RFC 791). */
    public static final int MIN_MTU = 576;
    /** Default send ring size in frames. */
    public static final int DEFAULT_RING_FRAMES = 256;

    private static final List<String> OPTIONS;

    static
    {
        final List<String> options = new ArrayList<>(List.of("ip", "mac", "peer-mac", "pcap", "mtu", "ring", "loss",
            "seed"));
        options.addAll(LinkSpec.NEIGHBOUR_OPTIONS);
        OPTIONS = List.copyOf(options);
    }

    /**
     * Validate every field.
     *
     * @throws IllegalArgumentException naming the first bad field.
     */
    public TunnelLinkConfig
    {
        requireHost("bind host", bindHost);
        requireHost("peer host", peerHost);
        requireRange("bind port", bindPort, 0, 65535);
        requireRange("peer port", peerPort, 1, 65535);
        if (null == address || address.ips().isEmpty())
        {
            throw new IllegalArgumentException("tunnel link needs an address of its own (ip=IP)");
        }
        Mac.requireUnicast("mac", address.mac());
        if (Mac.NONE != peerMac)
        {
            Mac.requireUnicast("peer-mac", peerMac);
        }
        requireRange("mtu", mtu, MIN_MTU, Link.MAX_IP_MTU);
        requireRange("ring", ringFrames, 1, 65_536);
        if (null == neighbours)
        {
            throw new IllegalArgumentException("the neighbour policy must not be null");
        }
        if (!(loss >= 0.0 && loss <= 1.0))
        {
            throw new IllegalArgumentException("loss must be 0..1, got " + loss);
        }
    }

    /**
     * A config with every optional setting at its default.
     *
     * @param bindHost local address.
     * @param bindPort local port (0: any free port).
     * @param peerHost peer address.
     * @param peerPort peer port.
     * @param ipv4     the link's own IPv4 address; its MAC is {@link Mac#ofIpv4(int)}.
     * @return the config.
     */
    public static TunnelLinkConfig of(
        final String bindHost, final int bindPort, final String peerHost, final int peerPort, final int ipv4)
    {
        if (0 == ipv4)
        {
            throw new IllegalArgumentException("tunnel link needs its own address (ip=IP), not 0.0.0.0");
        }
        return new TunnelLinkConfig(bindHost, bindPort, peerHost, peerPort, new LinkAddress(Mac.ofIpv4(ipv4), ipv4),
            Mac.NONE, null, DEFAULT_MTU, NeighbourPolicy.DEFAULT, DEFAULT_RING_FRAMES, 0.0, 0L);
    }

    /**
     * @return the link's primary IPv4 address (0 when it has only IPv6 addresses).
     */
    public int ipv4()
    {
        return address.ipv4();
    }

    /**
     * @return the link's MAC.
     */
    public long mac()
    {
        return address.mac();
    }

    /**
     * @param newLoss fraction of frames dropped each way, 0..1.
     * @param seed    seed of the drops.
     * @return a copy with that loss.
     */
    public TunnelLinkConfig withLoss(final double newLoss, final long seed)
    {
        return new TunnelLinkConfig(bindHost, bindPort, peerHost, peerPort, address, peerMac, pcap, mtu, neighbours,
            ringFrames, newLoss, seed);
    }

    /**
     * @param newPcap file to record to, or null.
     * @return a copy recording to that file.
     */
    public TunnelLinkConfig withPcap(final Path newPcap)
    {
        return new TunnelLinkConfig(bindHost, bindPort, peerHost, peerPort, address, peerMac, newPcap, mtu, neighbours,
            ringFrames, loss, lossSeed);
    }

    /**
     * @param newMtu IP MTU.
     * @return a copy with that MTU.
     */
    public TunnelLinkConfig withMtu(final int newMtu)
    {
        return new TunnelLinkConfig(bindHost, bindPort, peerHost, peerPort, address, peerMac, pcap, newMtu, neighbours,
            ringFrames, loss, lossSeed);
    }

    /**
     * @param newPeerMac fixed peer MAC, or {@link Mac#NONE} to resolve.
     * @return a copy with that peer MAC.
     */
    public TunnelLinkConfig withPeerMac(final long newPeerMac)
    {
        return new TunnelLinkConfig(bindHost, bindPort, peerHost, peerPort, address, newPeerMac, pcap, mtu, neighbours,
            ringFrames, loss, lossSeed);
    }

    /**
     * @param newAddress the link's MAC and addresses.
     * @return a copy with those.
     */
    public TunnelLinkConfig withAddress(final LinkAddress newAddress)
    {
        return new TunnelLinkConfig(bindHost, bindPort, peerHost, peerPort, newAddress, peerMac, pcap, mtu, neighbours,
            ringFrames, loss, lossSeed);
    }

    /**
     * @param retries  requests per resolution.
     * @param interval time between them in milliseconds.
     * @return a copy with that resolution policy.
     */
    public TunnelLinkConfig withArp(final int retries, final int interval)
    {
        return new TunnelLinkConfig(bindHost, bindPort, peerHost, peerPort, address, peerMac, pcap, mtu,
            neighbours.withRequests(retries, interval), ringFrames, loss, lossSeed);
    }

    /**
     * @param frames send ring size in frames.
     * @param held   frames held while resolving.
     * @return a copy with those queue sizes.
     */
    public TunnelLinkConfig withQueues(final int frames, final int held)
    {
        return new TunnelLinkConfig(bindHost, bindPort, peerHost, peerPort, address, peerMac, pcap, mtu,
            neighbours.withHeldFrames(held), frames, loss, lossSeed);
    }

    /**
     * Parse a link spec (see the class comment).
     *
     * @param spec such as {@code tunnel:127.0.0.1:5000:127.0.0.1:5001,ip=10.77.0.1}.
     * @return the config.
     * @throws IllegalArgumentException naming the spec and the part that is wrong.
     */
    public static TunnelLinkConfig parse(final String spec)
    {
        final LinkSpec parsed = LinkSpec.parse(spec, "tunnel", "endpoints BIND_HOST:BIND_PORT:PEER_HOST:PEER_PORT",
            GRAMMAR, OPTIONS, Set.of("ip"));
        final String[] parts = splitEndpoints(parsed);
        final List<Gid> ips = parsed.ipOptions("ip");
        if (ips.isEmpty())
        {
            throw parsed.error("missing option ip=IP (an address of the link's own)");
        }
        final long mac = parsed.macOption("mac");
        final String pcapText = parsed.option("pcap");
        try
        {
            return new TunnelLinkConfig(parts[0], parsePort(parsed, "BIND_PORT", parts[1]), parts[2],
                parsePort(parsed, "PEER_PORT", parts[3]),
                new LinkAddress(Mac.NONE == mac ? LinkAddress.defaultMac(ips) : mac, ips),
                parsed.macOption("peer-mac"), null == pcapText ? null : Path.of(pcapText),
                parsed.intOption("mtu", DEFAULT_MTU, MIN_MTU, Link.MAX_IP_MTU), parsed.neighbourPolicy(),
                parsed.intOption("ring", DEFAULT_RING_FRAMES, 1, 65_536), parsed.fractionOption("loss"),
                parsed.longOption("seed", 0L));
        }
        catch (final IllegalArgumentException ex)
        {
            throw ex.getMessage().startsWith("tunnel link spec") ? ex : parsed.error(ex.getMessage());
        }
    }

    /**
     * @return the spec string that {@link #parse(String)} turns back into this config.
     */
    public String toSpec()
    {
        final StringBuilder sb = new StringBuilder(SCHEME)
            .append(hostToSpec(bindHost)).append(':').append(bindPort).append(':')
            .append(hostToSpec(peerHost)).append(':').append(peerPort);
        for (final Gid ip : address.ips())
        {
            sb.append(",ip=").append(ip.isIpv4Mapped() ? Ipv4Header.addressToString(ip.ipv4()) : ip.toString());
        }
        sb.append(",mac=").append(Mac.toString(address.mac()));
        if (Mac.NONE != peerMac)
        {
            sb.append(",peer-mac=").append(Mac.toString(peerMac));
        }
        if (null != pcap)
        {
            sb.append(",pcap=").append(pcap);
        }
        return sb.append(",mtu=").append(mtu)
            .append(",arp-retries=").append(neighbours.requests())
            .append(",arp-interval-ms=").append(neighbours.intervalMs())
            .append(",arp-queue=").append(neighbours.heldFrames())
            .append(",neighbours=").append(neighbours.neighbours())
            .append(",ring=").append(ringFrames)
            .append(0.0 == loss ? "" : ",loss=" + loss + ",seed=" + lossSeed)
            .toString();
    }

    /**
     * Split {@code BIND_HOST:BIND_PORT:PEER_HOST:PEER_PORT}, where a host may be a bracketed IPv6 literal.
     */
    private static String[] splitEndpoints(final LinkSpec parsed)
    {
        final String endpoints = parsed.head();
        final String[] parts = new String[4];
        int index = 0;
        int start = 0;
        boolean inBrackets = false;
        for (int i = 0; i <= endpoints.length(); i++)
        {
            final char c = i < endpoints.length() ? endpoints.charAt(i) : ':';
            if ('[' == c)
            {
                inBrackets = true;
            }
            else if (']' == c)
            {
                inBrackets = false;
            }
            else if (':' == c && !inBrackets)
            {
                if (4 == index)
                {
                    throw parsed.error("too many ':' in '" + endpoints +
                        "' (need BIND_HOST:BIND_PORT:PEER_HOST:PEER_PORT; bracket IPv6 literals)");
                }
                parts[index++] = stripBrackets(endpoints.substring(start, i).trim());
                start = i + 1;
            }
        }
        if (4 != index)
        {
            throw parsed.error("'" + endpoints + "' is not BIND_HOST:BIND_PORT:PEER_HOST:PEER_PORT");
        }
        if (parts[0].isEmpty())
        {
            throw parsed.error("BIND_HOST is empty");
        }
        if (parts[2].isEmpty())
        {
            throw parsed.error("PEER_HOST is empty");
        }
        return parts;
    }

    private static String stripBrackets(final String host)
    {
        if (host.length() >= 2 && '[' == host.charAt(0) && ']' == host.charAt(host.length() - 1))
        {
            return host.substring(1, host.length() - 1);
        }
        return host;
    }

    private static String hostToSpec(final String host)
    {
        return host.indexOf(':') >= 0 ? "[" + host + "]" : host;
    }

    private static int parsePort(final LinkSpec parsed, final String name, final String text)
    {
        try
        {
            return Integer.parseInt(text);
        }
        catch (final NumberFormatException ex)
        {
            throw parsed.error(name + " '" + text + "' is not a number");
        }
    }

    private static void requireHost(final String name, final String host)
    {
        if (null == host || host.isBlank())
        {
            throw new IllegalArgumentException(name + " is empty");
        }
    }

    private static void requireRange(final String name, final int value, final int min, final int max)
    {
        if (value < min || value > max)
        {
            throw new IllegalArgumentException(name + " " + value + " is out of range " + min + ".." + max);
        }
    }
}
