package org.roce4j.transport.link.udp;

import java.util.Locale;

import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.header.UdpHeader;

/**
 * Parsed form of a kernel UDP link spec:
 * <pre>
 * udp:IPV4[,port=4791][,transport=epoll|io_uring|nio][,send=direct|eventloop][,recv=direct|eventloop]
 *     [,icrc=unverified]
 * </pre>
 * <ul>
 *   <li>{@code IPV4}: the local address to bind; it becomes the link's (and so the device's) IP address.</li>
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
 * @param ipv4               the address to bind, as a big-endian int.
 * @param port               the port to bind.
 * @param transport          the transport asked for, or null for the default.
 * @param sendMode           the send mode asked for, or null for the transport's default.
 * @param receiveMode        the receive mode asked for, or null for the transport's default.
 * @param allowUnmatchedIcrc true when {@code icrc=unverified} was given.
 */
public record UdpLinkConfig(
    String spec, int ipv4, int port, UdpTransport transport, UdpSendMode sendMode, UdpReceiveMode receiveMode,
    boolean allowUnmatchedIcrc)
{
    /** Scheme that introduces a kernel UDP link spec. */
    public static final String SCHEME = "udp";
    /** The spec grammar, for error messages and help texts. */
    public static final String GRAMMAR =
        "udp:IPV4[,port=4791][,transport=epoll|io_uring|nio][,send=direct|eventloop][,recv=direct|eventloop]" +
        "[,icrc=unverified]";

    /**
     * Parse a spec.
     *
     * @param spec such as {@code udp:127.0.0.1,transport=io_uring}.
     * @return the configuration.
     * @throws IllegalArgumentException naming the offending part and showing the grammar.
     */
    public static UdpLinkConfig parse(final String spec)
    {
        if (null == spec)
        {
            throw new IllegalArgumentException("udp link spec is null; expected " + GRAMMAR);
        }
        final String text = spec.trim();
        final String prefix = SCHEME + ":";
        if (!text.regionMatches(true, 0, prefix, 0, prefix.length()))
        {
            throw new IllegalArgumentException("not a udp link spec: '" + spec + "'; expected " + GRAMMAR);
        }
        final String[] parts = text.substring(prefix.length()).split(",", -1);
        final String addressText = parts[0].trim();
        if (addressText.isEmpty())
        {
            throw new IllegalArgumentException("udp link spec '" + spec + "' has no address; expected " + GRAMMAR);
        }
        if (addressText.indexOf(':') >= 0)
        {
            throw new IllegalArgumentException("udp link spec '" + spec + "': IPv6 address '" + addressText +
                "' is not supported; the udp link binds an IPv4 address");
        }
        final int ipv4;
        try
        {
            ipv4 = Ipv4Header.parseAddress(addressText);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException("udp link spec '" + spec + "': " + ex.getMessage(), ex);
        }

        int port = UdpHeader.ROCE_V2_PORT;
        UdpTransport transport = null;
        UdpSendMode sendMode = null;
        UdpReceiveMode receiveMode = null;
        boolean allowUnmatchedIcrc = false;
        for (int i = 1; i < parts.length; i++)
        {
            final String part = parts[i].trim();
            final int equals = part.indexOf('=');
            if (equals <= 0)
            {
                throw new IllegalArgumentException("udp link spec '" + spec + "': option '" + part +
                    "' is not key=value; expected " + GRAMMAR);
            }
            final String key = part.substring(0, equals).trim().toLowerCase(Locale.ROOT);
            final String value = part.substring(equals + 1).trim();
            try
            {
                switch (key)
                {
                    case "port":
                        port = parsePort(value);
                        break;
                    case "transport":
                        transport = UdpTransport.fromSpecName(value);
                        break;
                    case "send":
                        sendMode = UdpSendMode.fromSpecName(value);
                        break;
                    case "recv":
                        receiveMode = UdpReceiveMode.fromSpecName(value);
                        break;
                    case "icrc":
                        if (!"unverified".equalsIgnoreCase(value))
                        {
                            throw new IllegalArgumentException(
                                "icrc accepts only 'unverified' (got '" + value + "')");
                        }
                        allowUnmatchedIcrc = true;
                        break;
                    default:
                        throw new IllegalArgumentException(
                            "unknown option '" + key + "' (valid: port, transport, send, recv, icrc)");
                }
            }
            catch (final IllegalArgumentException ex)
            {
                throw new IllegalArgumentException("udp link spec '" + spec + "': " + ex.getMessage(), ex);
            }
        }
        if (UdpTransport.NIO == transport && UdpSendMode.DIRECT == sendMode)
        {
            throw new IllegalArgumentException("udp link spec '" + spec +
                "': send=direct needs a native transport (epoll or io_uring); NIO sends through its event loop");
        }
        if (UdpTransport.NIO == transport && UdpReceiveMode.DIRECT == receiveMode)
        {
            throw new IllegalArgumentException("udp link spec '" + spec +
                "': recv=direct needs a native transport (epoll or io_uring); NIO reads on its event loop");
        }
        return new UdpLinkConfig(spec, ipv4, port, transport, sendMode, receiveMode, allowUnmatchedIcrc);
    }

    private static int parsePort(final String value)
    {
        final int port;
        try
        {
            port = Integer.parseInt(value);
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("port '" + value + "' is not a number", ex);
        }
        if (port < 1 || port > 0xFFFF)
        {
            throw new IllegalArgumentException("port " + port + " is outside 1..65535");
        }
        return port;
    }

    /**
     * @return the address as dotted quad.
     */
    public String addressText()
    {
        return Ipv4Header.addressToString(ipv4);
    }
}
