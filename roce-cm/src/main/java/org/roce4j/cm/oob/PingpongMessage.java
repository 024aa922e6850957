package org.roce4j.cm.oob;

import java.nio.charset.StandardCharsets;

/**
 * The out-of-band message of ibv_rc_pingpong, ibv_uc_pingpong and ibv_ud_pingpong (rdma-core
 * libibverbs/examples): 52 bytes, the NUL-terminated ASCII string {@code "%04x:%06x:%06x:%s"} of LID, QPN, PSN
 * and GID, where the GID is its 16 bytes in wire order as 32 lowercase hex digits (gid_to_wire_gid). After the
 * exchange the client sends the 5 bytes {@code "done\0"}.
 */
public final class PingpongMessage
{
    /** Length of the message including its NUL: sizeof "0000:000000:000000:" + 32 hex digits + 1. */
    public static final int LENGTH = 52;
    /** The client's closing message, with its NUL. */
    static final byte[] DONE = {'d', 'o', 'n', 'e', 0};

    private PingpongMessage()
    {
    }

    /**
     * @param info what to send.
     * @return the 52 bytes.
     */
    public static byte[] encode(final QpInfo info)
    {
        final String text = String.format("%04x:%06x:%06x:%016x%016x", info.lid(), info.qpn(), info.psn(),
            info.gidHigh(), info.gidLow());
        final byte[] bytes = new byte[LENGTH];
        final byte[] ascii = text.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(ascii, 0, bytes, 0, ascii.length);
        return bytes;
    }

    /**
     * Parse a received message the way the pingpong examples' sscanf("%x:%x:%x:%s") and wire_gid_to_gid do,
     * but strictly: anything malformed is an error naming what is wrong.
     *
     * @param bytes the 52 received bytes.
     * @return the peer's info.
     * @throws OobProtocolException when the message is malformed.
     */
    public static QpInfo decode(final byte[] bytes) throws OobProtocolException
    {
        if (bytes.length != LENGTH)
        {
            throw new OobProtocolException("pingpong message must be " + LENGTH + " bytes, got " + bytes.length);
        }
        int end = 0;
        while (end < LENGTH && 0 != bytes[end])
        {
            end++;
        }
        if (LENGTH == end)
        {
            throw new OobProtocolException("pingpong message is not NUL-terminated");
        }
        final String text = new String(bytes, 0, end, StandardCharsets.US_ASCII);
        final String[] parts = text.split(":", -1);
        if (4 != parts.length)
        {
            throw new OobProtocolException("pingpong message must be LID:QPN:PSN:GID, got '" + printable(text) + "'");
        }
        final int lid = hex(parts[0], "LID", 4);
        final int qpn = hex(parts[1], "QPN", 6);
        final int psn = hex(parts[2], "PSN", 6);
        final String gid = parts[3];
        if (32 != gid.length())
        {
            throw new OobProtocolException("GID must be 32 hex digits, got '" + printable(gid) + "'");
        }
        final long high;
        final long low;
        try
        {
            high = Long.parseUnsignedLong(gid.substring(0, 16), 16);
            low = Long.parseUnsignedLong(gid.substring(16), 16);
        }
        catch (final NumberFormatException ex)
        {
            throw new OobProtocolException("GID is not hex: '" + printable(gid) + "'");
        }
        return QpInfo.of(lid, qpn, psn, high, low);
    }

    private static int hex(final String field, final String name, final int maxDigits) throws OobProtocolException
    {
        if (field.isEmpty() || field.length() > maxDigits)
        {
            throw new OobProtocolException(name + " must be 1.." + maxDigits + " hex digits, got '" +
                printable(field) + "'");
        }
        try
        {
            return Integer.parseInt(field, 16);
        }
        catch (final NumberFormatException ex)
        {
            throw new OobProtocolException(name + " is not hex: '" + printable(field) + "'");
        }
    }

    static String printable(final String text)
    {
        final StringBuilder sb = new StringBuilder();
        for (int i = 0; i < text.length() && i < 80; i++)
        {
            final char c = text.charAt(i);
            sb.append(c >= 0x20 && c < 0x7F ? c : '?');
        }
        return sb.toString();
    }
}
