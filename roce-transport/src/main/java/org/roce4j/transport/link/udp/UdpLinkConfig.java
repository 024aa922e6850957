package org.roce4j.transport.link.udp;

import java.util.List;
import java.util.Set;

import org.roce4j.transport.link.LinkSpec;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.header.UdpHeader;

/**
 * Parsed form of a kernel UDP link spec ({@link #GRAMMAR}):
 * <ul>
 *   <li>{@code IP}: the local address to bind, IPv4 or IPv6 (brackets optional: {@code udp:[fd00:77::1]}); it
 *   becomes the link's (and so the device's) IP address.</li>
 *   <li>{@code port}: local UDP port, 4791 (the RoCEv2 port) by default. It is the source port of every datagram
 *   sent; peers always send to 4791.</li>
 *   <li>{@code transport}: Netty transport. Without it: epoll, or NIO (with a logged reason) where epoll cannot
 *   run. An explicit transport that cannot run is an error naming Netty's reason.</li>
 *   <li>{@code send}: {@link UdpSendMode}; {@code direct} by default on epoll and io_uring, {@code eventloop} on
 *   NIO (the only mode there).</li>
 *   <li>{@code recv}: {@link UdpReceiveMode}; {@code direct} by default on epoll and io_uring, {@code eventloop}
 *   on NIO (the only mode there).</li>
 *   <li>{@code icrc=unverified}: let the NIO transport run where it cannot make the kernel send IPv4 ID 0 (JDK
 *   17 and 18), accepting that the ICRC of outgoing frames will not match the IP header on the wire; only peers
 *   that do not check ICRCs (another roce4j udp link) will accept them.</li>
 * </ul>
 *
 * @param spec               the spec as given.
 * @param address            the address to bind (IPv4 as its IPv4-mapped GID).
 * @param port               the port to bind.
 * @param transport          the transport asked for, or null for the default.
 * @param sendMode           the send mode asked for, or null for the transport's default.
 * @param receiveMode        the receive mode asked for, or null for the transport's default.
 * @param allowUnmatchedIcrc true when {@code icrc=unverified} was given.
 */
public record UdpLinkConfig(
    String spec, Gid address, int port, UdpTransport transport, UdpSendMode sendMode, UdpReceiveMode receiveMode,
    boolean allowUnmatchedIcrc)
{
    /** Scheme that introduces a kernel UDP link spec. */
    public static final String SCHEME = "udp";
    /** The spec grammar, for error messages and help texts. */
    public static final String GRAMMAR =
        "udp:IP[,port=4791][,transport=epoll|io_uring|nio][,send=direct|eventloop][,recv=direct|eventloop]" +
        "[,icrc=unverified]";

    private static final List<String> OPTIONS = List.of("port", "transport", "send", "recv", "icrc");

    /**
     * Parse a spec.
     *
     * @param spec such as {@code udp:127.0.0.1,transport=io_uring} or {@code udp:[fd00:77::1]}.
     * @return the configuration.
     * @throws IllegalArgumentException naming the offending part and showing the grammar.
     */
    public static UdpLinkConfig parse(final String spec)
    {
        final LinkSpec parsed = LinkSpec.parse(spec, SCHEME, "address", GRAMMAR, OPTIONS, Set.of());
        final Gid address = parsed.ip(parsed.head());
        if (address.isMulticast() || Gid.ZERO.equals(address) || (address.isIpv4Mapped() && 0 == address.ipv4()))
        {
            throw parsed.error("'" + parsed.head() + "' is not a unicast address this link could own");
        }
        final int port = parsed.intOption("port", UdpHeader.ROCE_V2_PORT, 1, 0xFFFF);
        final UdpTransport transport;
        final UdpSendMode sendMode;
        final UdpReceiveMode receiveMode;
        try
        {
            transport = parsed.has("transport") ? UdpTransport.fromSpecName(parsed.option("transport")) : null;
            sendMode = parsed.has("send") ? UdpSendMode.fromSpecName(parsed.option("send")) : null;
            receiveMode = parsed.has("recv") ? UdpReceiveMode.fromSpecName(parsed.option("recv")) : null;
        }
        catch (final IllegalArgumentException ex)
        {
            throw parsed.error(ex.getMessage());
        }
        if (parsed.has("icrc") && !"unverified".equalsIgnoreCase(parsed.option("icrc")))
        {
            throw parsed.error("icrc accepts only 'unverified' (got '" + parsed.option("icrc") + "')");
        }
        if (UdpTransport.NIO == transport && UdpSendMode.DIRECT == sendMode)
        {
            throw parsed.error("send=direct needs a native transport (epoll or io_uring); NIO sends through its " +
                "event loop");
        }
        if (UdpTransport.NIO == transport && UdpReceiveMode.DIRECT == receiveMode)
        {
            throw parsed.error("recv=direct needs a native transport (epoll or io_uring); NIO reads on its event " +
                "loop");
        }
        return new UdpLinkConfig(parsed.spec(), address, port, transport, sendMode, receiveMode, parsed.has("icrc"));
    }

    /**
     * @return true for an IPv6 address.
     */
    public boolean ipv6()
    {
        return !address.isIpv4Mapped();
    }

    /**
     * @return the IPv4 address as a big-endian int, 0 for an IPv6 link.
     */
    public int ipv4()
    {
        return ipv6() ? 0 : address.ipv4();
    }

    /**
     * @return the address as text: a dotted quad, or an IPv6 address in brackets.
     */
    public String addressText()
    {
        return ipv6() ? "[" + address + "]" : Ipv4Header.addressToString(address.ipv4());
    }
}
