package org.roce4j.transport.link.host;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Finding one socket's drop count in /proc/net/udp text.
 */
class SocketDropsTest
{
    /** Two sockets as Linux 6.x prints them on a little-endian machine (header, then one row each). */
    private static final String TABLE =
        "   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref " +
        "pointer drops            \n" +
        "  101: 0100007F:12B7 0200007F:12B7 01 00000000:00000000 00:00000000 00000000     0        0 41 2 " +
        "0000000000000000 9\n" +
        "  102: 0100007F:12B7 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 42 2 " +
        "0000000000000000 1749\n" +
        "  103: 0100007F:12B8 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 43 2 " +
        "0000000000000000 3\n";

    @Test
    void printsAddressesAsTheKernelDoes() throws Exception
    {
        final InetSocketAddress loopback = new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 4791);
        final String expected = ByteOrder.LITTLE_ENDIAN == ByteOrder.nativeOrder() ? "0100007F:12B7" : "7F000001:12B7";
        assertEquals(expected, SocketDrops.procAddress(loopback));
        final InetSocketAddress v6 = new InetSocketAddress(InetAddress.getByName("::1"), 1);
        final String expected6 = ByteOrder.LITTLE_ENDIAN == ByteOrder.nativeOrder() ?
            "000000000000000000000000" + "01000000:0001" : "000000000000000000000000" + "00000001:0001";
        assertEquals(expected6, SocketDrops.procAddress(v6));
    }

    @Test
    void takesTheUnconnectedSocketOnTheBoundAddressAndItsLastColumn()
    {
        assertEquals(1749, drops("0100007F:12B7"), "the unconnected socket, not the connected one before it");
        assertEquals(3, drops("0100007F:12B8"));
        assertEquals(SocketDrops.UNKNOWN, drops("0100007F:12B9"), "a socket not listed");
        assertEquals(SocketDrops.UNKNOWN, drops("0100007F:12"), "a prefix of an address is not the address");
    }

    private static long drops(final String local)
    {
        final byte[] bytes = TABLE.getBytes(StandardCharsets.US_ASCII);
        final ByteBuffer table = ByteBuffer.allocateDirect(bytes.length).put(bytes);
        return SocketDrops.dropsIn(table, bytes.length, local.getBytes(StandardCharsets.US_ASCII),
            "00000000:0000".getBytes(StandardCharsets.US_ASCII));
    }
}
