package org.roce4j.transport.link.tunnel;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

import org.roce4j.wire.header.EthernetHeader;
import org.roce4j.wire.header.Ipv4Header;

/**
 * Settings of a {@link TunnelLink}, usually parsed from a link spec string:
 * <pre>
 * tunnel:BIND_HOST:BIND_PORT:PEER_HOST:PEER_PORT,ip=IP[,mac=MAC][,peer-mac=MAC][,pcap=FILE][,mtu=N]
 *        [,arp-retries=N][,arp-interval-ms=N][,ring=N][,arp-queue=N]
 * </pre>
 * for example {@code tunnel:127.0.0.1:5000:127.0.0.1:5001,ip=10.77.0.1,pcap=target/run.pcap}, which matches a
 * QEMU guest started with {@code -netdev dgram,local...port=5001,remote...port=5000}. Hosts are names or IPv4
 * literals; an IPv6 literal goes in brackets ({@code [::1]}). A bind port of 0 takes any free port
 * ({@link TunnelLink#localPort()} tells which).
 *
 * @param bindHost      local address the UDP socket binds to.
 * @param bindPort      local UDP port, 0..65535 (0: any free port).
 * @param peerHost      address of the other end (QEMU's {@code local} address).
 * @param peerPort      UDP port of the other end, 1..65535.
 * @param ipv4          the link's own IPv4 address (big-endian int); the link answers ARP for it.
 * @param mac           the link's own MAC (low 48 bits); by default {@link #defaultMac(int)} of the IP.
 * @param peerMac       a fixed destination MAC for every frame, or {@link #NO_MAC} to resolve by ARP.
 * @param pcap          file to record every frame sent and received, or null.
 * @param mtu           IP MTU of the medium (the guest's NIC MTU), {@link #MIN_MTU}..{@link #MAX_MTU}.
 * @param arpRetries    ARP requests sent for one address before its held frames are dropped, 1..100.
 * @param arpIntervalMs time between ARP requests, 1..60000 ms.
 * @param ringFrames    frames the send ring holds between {@code flush()} calls, 1..65536.
 * @param arpQueueFrames frames held while their destination is being resolved, 0..4096 (0: drop at once).
 * @param loss          fraction of frames (not ARP) dropped in each direction on purpose, 0..1: fault injection on
 *                      the Java side of the tunnel (spec option {@code loss=0.02}).
 * @param lossSeed      seed of the loss decisions (spec option {@code seed=N}), so a run can be repeated.
 */
public record TunnelLinkConfig(
    String bindHost,
    int bindPort,
    String peerHost,
    int peerPort,
    int ipv4,
    long mac,
    long peerMac,
    Path pcap,
    int mtu,
    int arpRetries,
    int arpIntervalMs,
    int ringFrames,
    int arpQueueFrames,
    double loss,
    long lossSeed)
{
    /** Prefix of a tunnel link spec. */
    public static final String SCHEME = "tunnel:";
    /** Value of {@link #peerMac()} when the peer's MAC is resolved by ARP. */
    public static final long NO_MAC = -1L;
    /** Default IP MTU: standard Ethernet, which gives rxe an active IB MTU of 1024. */
    public static final int DEFAULT_MTU = 1500;
    /** Smallest MTU accepted: the IPv4 minimum every host must accept (RFC 791). */
    public static final int MIN_MTU = 576;
    /** Largest MTU accepted: common jumbo frames, which gives rxe an active IB MTU of 4096. */
    public static final int MAX_MTU = 9216;
    /** Default ARP requests per resolution: with the default interval, 5 s before giving up on a slow guest. */
    public static final int DEFAULT_ARP_RETRIES = 10;
    /** Default time between ARP requests; an emulated guest can take a few hundred ms to answer. */
    public static final int DEFAULT_ARP_INTERVAL_MS = 500;
    /** Default send ring size in frames. */
    public static final int DEFAULT_RING_FRAMES = 256;
    /** Default number of frames held while ARP runs: a whole 64-packet message and more (UC cannot resend). */
    public static final int DEFAULT_ARP_QUEUE_FRAMES = 256;
    /** First octet of a default MAC: locally administered (bit 1), unicast (bit 0 clear), IEEE 802 clause 9.2. */
    public static final int LOCAL_UNICAST_OCTET = 0x02;

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
        if (0 == ipv4)
        {
            throw new IllegalArgumentException("tunnel link needs its own IPv4 address (ip=a.b.c.d), not 0.0.0.0");
        }
        requireUnicastMac("mac", mac);
        if (NO_MAC != peerMac)
        {
            requireUnicastMac("peer-mac", peerMac);
        }
        requireRange("mtu", mtu, MIN_MTU, MAX_MTU);
        requireRange("arp-retries", arpRetries, 1, 100);
        requireRange("arp-interval-ms", arpIntervalMs, 1, 60_000);
        requireRange("ring", ringFrames, 1, 65_536);
        requireRange("arp-queue", arpQueueFrames, 0, 4096);
    }

    /**
     * A config with every optional setting at its default.
     *
     * @param bindHost local address.
     * @param bindPort local port (0: any free port).
     * @param peerHost peer address.
     * @param peerPort peer port.
     * @param ipv4     the link's own IPv4 address.
     * @return the config.
     */
    public static TunnelLinkConfig of(
        final String bindHost, final int bindPort, final String peerHost, final int peerPort, final int ipv4)
    {
        return new TunnelLinkConfig(bindHost, bindPort, peerHost, peerPort, ipv4, defaultMac(ipv4), NO_MAC, null,
            DEFAULT_MTU, DEFAULT_ARP_RETRIES, DEFAULT_ARP_INTERVAL_MS, DEFAULT_RING_FRAMES, DEFAULT_ARP_QUEUE_FRAMES, 0.0,
            0L);
    }

    /**
     * The MAC a link gets when none is configured: {@code 02:00:a:b:c:d} for IP {@code a.b.c.d}, a locally
     * administered unicast address that cannot clash with QEMU's {@code 52:54:00:...} guests.
     *
     * @param ipv4 the link's IPv4 address.
     * @return the MAC in the low 48 bits.
     */
    public static long defaultMac(final int ipv4)
    {
        return ((long)LOCAL_UNICAST_OCTET << 40) | (ipv4 & 0xFFFF_FFFFL);
    }

    /**
     * @param newLoss fraction of frames dropped each way, 0..1.
     * @param seed    seed of the drops.
     * @return a copy with that loss.
     */
    public TunnelLinkConfig withLoss(final double newLoss, final long seed)
    {
        return new TunnelLinkConfig(bindHost, bindPort, peerHost, peerPort, ipv4, mac, peerMac, pcap, mtu,
            arpRetries, arpIntervalMs, ringFrames, arpQueueFrames, newLoss, seed);
    }

    /**
     * @param newPcap file to record to, or null.
     * @return a copy recording to that file.
     */
    public TunnelLinkConfig withPcap(final Path newPcap)
    {
        return new TunnelLinkConfig(bindHost, bindPort, peerHost, peerPort, ipv4, mac, peerMac, newPcap, mtu,
            arpRetries, arpIntervalMs, ringFrames, arpQueueFrames, loss, lossSeed);
    }

    /**
     * @param newMtu IP MTU.
     * @return a copy with that MTU.
     */
    public TunnelLinkConfig withMtu(final int newMtu)
    {
        return new TunnelLinkConfig(bindHost, bindPort, peerHost, peerPort, ipv4, mac, peerMac, pcap, newMtu,
            arpRetries, arpIntervalMs, ringFrames, arpQueueFrames, loss, lossSeed);
    }

    /**
     * @param newPeerMac fixed peer MAC, or {@link #NO_MAC} to use ARP.
     * @return a copy with that peer MAC.
     */
    public TunnelLinkConfig withPeerMac(final long newPeerMac)
    {
        return new TunnelLinkConfig(bindHost, bindPort, peerHost, peerPort, ipv4, mac, newPeerMac, pcap, mtu,
            arpRetries, arpIntervalMs, ringFrames, arpQueueFrames, loss, lossSeed);
    }

    /**
     * @param retries  ARP requests per resolution.
     * @param interval time between them in milliseconds.
     * @return a copy with that ARP policy.
     */
    public TunnelLinkConfig withArp(final int retries, final int interval)
    {
        return new TunnelLinkConfig(bindHost, bindPort, peerHost, peerPort, ipv4, mac, peerMac, pcap, mtu,
            retries, interval, ringFrames, arpQueueFrames, loss, lossSeed);
    }

    /**
     * @param frames  send ring size in frames.
     * @param queued  frames held while ARP runs.
     * @return a copy with those queue sizes.
     */
    public TunnelLinkConfig withQueues(final int frames, final int queued)
    {
        return new TunnelLinkConfig(bindHost, bindPort, peerHost, peerPort, ipv4, mac, peerMac, pcap, mtu,
            arpRetries, arpIntervalMs, frames, queued, loss, lossSeed);
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
        if (null == spec)
        {
            throw new IllegalArgumentException("tunnel link spec is null");
        }
        try
        {
            return doParse(spec.trim());
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException("bad tunnel link spec '" + spec + "': " + ex.getMessage(), ex);
        }
    }

    /**
     * @return the spec string that {@link #parse(String)} turns back into this config.
     */
    public String toSpec()
    {
        final StringBuilder sb = new StringBuilder(SCHEME)
            .append(hostToSpec(bindHost)).append(':').append(bindPort).append(':')
            .append(hostToSpec(peerHost)).append(':').append(peerPort)
            .append(",ip=").append(Ipv4Header.addressToString(ipv4))
            .append(",mac=").append(EthernetHeader.macToString(mac));
        if (NO_MAC != peerMac)
        {
            sb.append(",peer-mac=").append(EthernetHeader.macToString(peerMac));
        }
        if (null != pcap)
        {
            sb.append(",pcap=").append(pcap);
        }
        return sb.append(",mtu=").append(mtu)
            .append(",arp-retries=").append(arpRetries)
            .append(",arp-interval-ms=").append(arpIntervalMs)
            .append(",ring=").append(ringFrames)
            .append(",arp-queue=").append(arpQueueFrames)
            .append(0.0 == loss ? "" : ",loss=" + loss + ",seed=" + lossSeed)
            .toString();
    }

    private static TunnelLinkConfig doParse(final String spec)
    {
        if (!spec.startsWith(SCHEME))
        {
            throw new IllegalArgumentException("it must start with '" + SCHEME + "'");
        }
        final String body = spec.substring(SCHEME.length());
        final int comma = body.indexOf(',');
        final String endpoints = -1 == comma ? body : body.substring(0, comma);
        final String[] parts = splitEndpoints(endpoints);

        Integer ip = null;
        Long mac = null;
        long peerMac = NO_MAC;
        Path pcap = null;
        int mtu = DEFAULT_MTU;
        int arpRetries = DEFAULT_ARP_RETRIES;
        int arpIntervalMs = DEFAULT_ARP_INTERVAL_MS;
        int ringFrames = DEFAULT_RING_FRAMES;
        int arpQueueFrames = DEFAULT_ARP_QUEUE_FRAMES;
        double loss = 0.0;
        long lossSeed = 0L;
        final Set<String> seen = new HashSet<>();
        if (-1 != comma)
        {
            for (final String option : body.substring(comma + 1).split(",", -1))
            {
                final int eq = option.indexOf('=');
                if (eq <= 0)
                {
                    throw new IllegalArgumentException("option '" + option + "' is not KEY=VALUE");
                }
                final String key = option.substring(0, eq).trim();
                final String value = option.substring(eq + 1).trim();
                if (!seen.add(key))
                {
                    throw new IllegalArgumentException("option '" + key + "' given twice");
                }
                if (value.isEmpty())
                {
                    throw new IllegalArgumentException("option '" + key + "' has no value");
                }
                switch (key)
                {
                    case "ip":
                        ip = Ipv4Header.parseAddress(value);
                        break;
                    case "mac":
                        mac = EthernetHeader.parseMac(value);
                        break;
                    case "peer-mac":
                        peerMac = EthernetHeader.parseMac(value);
                        break;
                    case "pcap":
                        pcap = Path.of(value);
                        break;
                    case "mtu":
                        mtu = parseInt(key, value);
                        break;
                    case "arp-retries":
                        arpRetries = parseInt(key, value);
                        break;
                    case "arp-interval-ms":
                        arpIntervalMs = parseInt(key, value);
                        break;
                    case "ring":
                        ringFrames = parseInt(key, value);
                        break;
                    case "arp-queue":
                        arpQueueFrames = parseInt(key, value);
                        break;
                    case "loss":
                        loss = parseFraction(key, value);
                        break;
                    case "seed":
                        lossSeed = parseLong(key, value);
                        break;
                    default:
                        throw new IllegalArgumentException("unknown option '" + key + "' (known: ip, mac, peer-mac, " +
                            "pcap, mtu, arp-retries, arp-interval-ms, ring, arp-queue, loss, seed)");
                }
            }
        }
        if (null == ip)
        {
            throw new IllegalArgumentException("missing option ip=a.b.c.d (the link's own IPv4 address)");
        }
        return new TunnelLinkConfig(
            parts[0], parsePort("BIND_PORT", parts[1]), parts[2], parsePort("PEER_PORT", parts[3]), ip,
            null == mac ? defaultMac(ip) : mac, peerMac, pcap, mtu, arpRetries, arpIntervalMs, ringFrames,
            arpQueueFrames, loss, lossSeed);
    }

    private static double parseFraction(final String key, final String value)
    {
        final double fraction;
        try
        {
            fraction = Double.parseDouble(value);
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("option '" + key + "' must be a number, got '" + value + "'");
        }
        if (!(fraction >= 0.0 && fraction <= 1.0))
        {
            throw new IllegalArgumentException("option '" + key + "' must be 0..1, got " + value);
        }
        return fraction;
    }

    private static long parseLong(final String key, final String value)
    {
        try
        {
            return Long.decode(value);
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("option '" + key + "' must be an integer, got '" + value + "'");
        }
    }

    /**
     * Split {@code BIND_HOST:BIND_PORT:PEER_HOST:PEER_PORT}, where a host may be a bracketed IPv6 literal.
     */
    private static String[] splitEndpoints(final String endpoints)
    {
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
                    throw new IllegalArgumentException("too many ':' in '" + endpoints +
                        "' (need BIND_HOST:BIND_PORT:PEER_HOST:PEER_PORT; bracket IPv6 literals)");
                }
                parts[index++] = stripBrackets(endpoints.substring(start, i).trim());
                start = i + 1;
            }
        }
        if (4 != index)
        {
            throw new IllegalArgumentException("'" + endpoints + "' is not BIND_HOST:BIND_PORT:PEER_HOST:PEER_PORT");
        }
        if (parts[0].isEmpty())
        {
            throw new IllegalArgumentException("BIND_HOST is empty");
        }
        if (parts[2].isEmpty())
        {
            throw new IllegalArgumentException("PEER_HOST is empty");
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

    private static int parsePort(final String name, final String text)
    {
        try
        {
            return Integer.parseInt(text);
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException(name + " '" + text + "' is not a number", ex);
        }
    }

    private static int parseInt(final String key, final String text)
    {
        try
        {
            return Integer.parseInt(text);
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("option " + key + "='" + text + "' is not a number", ex);
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

    private static void requireUnicastMac(final String name, final long mac)
    {
        if (0 != (mac >>> 48) || 0 == mac)
        {
            throw new IllegalArgumentException(name + " must be a non-zero 48-bit MAC, got 0x" + Long.toHexString(mac));
        }
        // The I/G bit (least significant bit of the first octet) marks group addresses (IEEE 802 clause 8.2).
        if (0 != ((mac >>> 40) & 1))
        {
            throw new IllegalArgumentException(name + " " + EthernetHeader.macToString(mac) +
                " is a multicast/broadcast address; a link needs a unicast MAC");
        }
    }
}
