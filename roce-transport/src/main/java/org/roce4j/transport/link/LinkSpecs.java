package org.roce4j.transport.link;

import java.io.IOException;

import org.agrona.concurrent.SystemNanoClock;
import org.roce4j.transport.link.fault.FaultSpec;
import org.roce4j.transport.link.fault.FaultyLink;
import org.roce4j.transport.link.memory.MemoryFabric;
import org.roce4j.transport.link.memory.MemoryLinkConfig;
import org.roce4j.transport.link.pcap.PcapLink;
import org.roce4j.transport.link.pcap.PcapLinkConfig;
import org.roce4j.transport.link.tunnel.TunnelLink;
import org.roce4j.transport.link.tunnel.TunnelLinkConfig;
import org.roce4j.transport.link.udp.UdpLink;
import org.roce4j.transport.link.udp.UdpLinkConfig;
import org.roce4j.wire.AgronaAccess;

/**
 * Opens a link from the spec string every roce command accepts with {@code --link}:
 * <ul>
 *   <li>{@code memory}: the in-process fabric; only meaningful inside one JVM, so commands build it themselves
 *   ({@link #isMemory(String)});</li>
 *   <li>{@code memory:IP[,ip=IP]...[,mac=MAC][,mtu=1500]}: for programs, a port of this JVM's default fabric
 *   ({@link MemoryFabric#defaultFabric()}, see {@link MemoryLinkConfig}), so devices opened from spec strings in one
 *   JVM reach each other;</li>
 *   <li>{@code tunnel:BIND_HOST:BIND_PORT:PEER_HOST:PEER_PORT,ip=IP[,ip=IP]...[,mac=MAC]...}: Ethernet frames in UDP
 *   datagrams, compatible with QEMU's {@code -netdev dgram} (see {@link TunnelLinkConfig}); its {@code loss=P,seed=N}
 *   opens it inside a {@link FaultyLink} with the rules {@code drop=P;seed=N};</li>
 *   <li>{@code udp:IP[,port=4791][,transport=epoll|io_uring|nio]}: the kernel's UDP stack, IPv4 or IPv6
 *   ({@code udp:[fd00:77::1]});</li>
 *   <li>{@code pcap:IFACE[,ip=IP]...[,mac=MAC]}: raw Ethernet through libpcap.</li>
 * </ul>
 * Every spec parses through one parser, {@link LinkSpec}. IP addresses may be IPv4 or IPv6 everywhere.
 */
public final class LinkSpecs
{
    /** The spec of the in-process fabric. */
    public static final String MEMORY = "memory";
    /** Every form, for help texts and error messages. */
    public static final String FORMS = "memory | tunnel:BIND_HOST:BIND_PORT:PEER_HOST:PEER_PORT,ip=IP[,ip=IP]..." +
        "[,mac=MAC] | udp:IP[,port=4791][,transport=epoll|io_uring|nio] | pcap:IFACE[,ip=IP]...[,mac=MAC] " +
        "(IP: IPv4 or IPv6, e.g. udp:[fd00:77::1])";
    /** What a program may open besides {@link #FORMS}: a port of this JVM's default fabric. */
    public static final String MEMORY_PORT = MemoryLinkConfig.GRAMMAR;

    private LinkSpecs()
    {
    }

    /**
     * @param spec a link spec.
     * @return true for the in-process fabric.
     */
    public static boolean isMemory(final String spec)
    {
        return MEMORY.equals(spec.trim());
    }

    /**
     * @param spec a link spec.
     * @return true for {@code memory:IP...}, a port of this JVM's default fabric.
     */
    public static boolean isMemoryPort(final String spec)
    {
        final String prefix = MemoryLinkConfig.SCHEME + ":";
        return spec.trim().regionMatches(true, 0, prefix, 0, prefix.length());
    }

    /**
     * Open a link that is not the in-process fabric of a command: a network link, or a port of this JVM's default
     * fabric ({@code memory:IP}).
     *
     * @param spec a link spec.
     * @return the open link.
     * @throws IOException when the medium cannot be opened (port in use, no such interface...).
     * @throws IllegalArgumentException when the spec is malformed, names the in-process fabric, an unknown interface
     *                                  or an address that is not local.
     * @throws IllegalStateException    when a udp port is in use, a transport cannot run here, or raw capture needs
     *                                  root/CAP_NET_RAW.
     */
    public static Link open(final String spec) throws IOException
    {
        AgronaAccess.require();
        final String trimmed = spec.trim();
        if (isMemory(trimmed))
        {
            throw new IllegalArgumentException("the 'memory' link exists only inside one JVM: this command cannot " +
                "open it on its own; a program opens a port of its JVM's fabric with " + MEMORY_PORT + " (forms: " +
                FORMS + ")");
        }
        if (isMemoryPort(trimmed))
        {
            return MemoryFabric.defaultFabric().attach(trimmed);
        }
        if (trimmed.startsWith(TunnelLinkConfig.SCHEME))
        {
            final TunnelLinkConfig config = TunnelLinkConfig.parse(trimmed);
            if (config.loss() > 0)
            {
                // loss=P,seed=N is sugar for the drop rule of a FaultyLink, the same as --faults 'drop=P;seed=N'.
                final TunnelLink link = TunnelLink.open(config.withLoss(0.0, 0L));
                return new FaultyLink(link, FaultSpec.parse("drop=" + config.loss() + ";seed=" + config.lossSeed()),
                    SystemNanoClock.INSTANCE);
            }
            return TunnelLink.open(config);
        }
        if (trimmed.startsWith(UdpLinkConfig.SCHEME + ":"))
        {
            LinkLibraries.requireUdp();
            return UdpLink.open(trimmed);
        }
        if (trimmed.startsWith(PcapLinkConfig.SCHEME + ":"))
        {
            LinkLibraries.requirePcap();
            return PcapLink.open(trimmed);
        }
        throw new IllegalArgumentException("unknown link spec '" + spec + "'; expected " + FORMS);
    }
}
