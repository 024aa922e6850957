package org.roce4j.cm.perftest;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

import org.roce4j.cm.oob.OobProtocolException;

/**
 * The per-QP record as perftest sends it over TCP (ethernet_write_keys / ethernet_read_keys in
 * perftest_communication.c): a fixed-size, NUL-terminated ASCII line of colon-separated lowercase hex fields.
 * <ul>
 *   <li>with a GID (every RoCE run: perftest picks a GID index on Ethernet ports), 108 bytes (KEY_MSG_SIZE_GID):
 *   {@code lid:out_reads:qpn:psn:rkey:vaddr:g0:g1:...:g15:srqn:} with widths 4, 4, 6, 6, 8, 16, 2 per GID byte and
 *   8, e.g. {@code 0000:0001:000016:6168ea:00000000:000055fb8063d000:00:...:ff:ff:0a:4d:00:02:00000000:};</li>
 *   <li>without a GID (InfiniBand without -x), 59 bytes (KEY_MSG_SIZE): {@code lid:out_reads:qpn:psn:rkey:vaddr:srqn}
 *   with the same widths.</li>
 * </ul>
 * perftest's reader is strtol-based and forgiving; this decoder is strict and names what is wrong.
 */
public final class PerftestKeyMessage
{
    /** Size of the record with a GID, NUL included (KEY_MSG_SIZE_GID). */
    public static final int LENGTH_GID = 108;
    /** Size of the record without a GID, NUL included (KEY_MSG_SIZE). */
    public static final int LENGTH_NO_GID = 59;
    /** Fields before the GID: lid, out_reads, qpn, psn, rkey, vaddr. */
    private static final int HEAD_FIELDS = 6;
    /** Hex digits of lid, out_reads, qpn, psn, rkey, vaddr (KEY_PRINT_FMT). */
    private static final int[] HEAD_WIDTHS = {4, 4, 6, 6, 8, 16};
    private static final String[] HEAD_NAMES = {"LID", "out_reads", "QPN", "PSN", "rkey", "vaddr"};
    /** Bytes in a GID. */
    private static final int GID_BYTES = 16;
    /** Hex digits of the SRQ number. */
    private static final int SRQN_WIDTH = 8;

    private PerftestKeyMessage()
    {
    }

    /**
     * @param withGid true for the 108-byte RoCE form.
     * @return the record's size on the wire.
     */
    public static int length(final boolean withGid)
    {
        return withGid ? LENGTH_GID : LENGTH_NO_GID;
    }

    /**
     * @param dest    the record.
     * @param withGid true for the 108-byte form with the GID.
     * @return the bytes perftest's sprintf(KEY_PRINT_FMT_GID / KEY_PRINT_FMT) produces.
     */
    public static byte[] encode(final PerftestDest dest, final boolean withGid)
    {
        final StringBuilder sb = new StringBuilder(LENGTH_GID);
        sb.append(String.format(Locale.ROOT, "%04x:%04x:%06x:%06x:%08x:%016x:", dest.lid(), dest.outReads(),
            dest.qpn(), dest.psn(), dest.rkey(), dest.vaddr()));
        if (withGid)
        {
            for (int i = 0; i < GID_BYTES; i++)
            {
                sb.append(String.format(Locale.ROOT, "%02x:", gidByte(dest, i)));
            }
            sb.append(String.format(Locale.ROOT, "%08x:", dest.srqn()));
        }
        else
        {
            sb.append(String.format(Locale.ROOT, "%08x", dest.srqn()));
        }
        final byte[] ascii = sb.toString().getBytes(StandardCharsets.US_ASCII);
        final byte[] bytes = new byte[length(withGid)];
        System.arraycopy(ascii, 0, bytes, 0, ascii.length);
        return bytes;
    }

    /**
     * @param bytes   the received record.
     * @param withGid true when the 108-byte form is expected (both sides must agree, as in perftest).
     * @return the record.
     * @throws OobProtocolException naming what is malformed.
     */
    public static PerftestDest decode(final byte[] bytes, final boolean withGid) throws OobProtocolException
    {
        final int length = length(withGid);
        if (length != bytes.length)
        {
            throw new OobProtocolException("a perftest QP record " + (withGid ? "with" : "without") + " GID is " +
                length + " bytes, got " + bytes.length);
        }
        int end = 0;
        while (end < length && 0 != bytes[end])
        {
            end++;
        }
        if (length == end)
        {
            throw new OobProtocolException("perftest QP record is not NUL-terminated: '" + printable(bytes) + "'");
        }
        final String text = new String(bytes, 0, end, StandardCharsets.US_ASCII);
        final String[] fields = text.split(":", -1);
        // With a GID: 6 head fields, 16 GID bytes, srqn and the empty field after the trailing ':'.
        final int expected = withGid ? HEAD_FIELDS + GID_BYTES + 2 : HEAD_FIELDS + 1;
        if (expected != fields.length || (withGid && !fields[expected - 1].isEmpty()))
        {
            throw new OobProtocolException("perftest QP record must be " + (withGid ?
                "lid:out_reads:qpn:psn:rkey:vaddr:16 GID bytes:srqn:" : "lid:out_reads:qpn:psn:rkey:vaddr:srqn") +
                ", got '" + printable(bytes) + "'" + (withGid ? "" : " (does the peer use a GID? roce4j runs " +
                "RoCE, which needs one)"));
        }
        final long[] head = new long[HEAD_FIELDS];
        for (int i = 0; i < HEAD_FIELDS; i++)
        {
            head[i] = hex(fields[i], HEAD_NAMES[i], HEAD_WIDTHS[i]);
        }
        long gidHigh = 0;
        long gidLow = 0;
        int next = HEAD_FIELDS;
        if (withGid)
        {
            for (int i = 0; i < GID_BYTES; i++)
            {
                final long value = hex(fields[next++], "GID byte " + i, 2);
                if (i < 8)
                {
                    gidHigh = (gidHigh << 8) | value;
                }
                else
                {
                    gidLow = (gidLow << 8) | value;
                }
            }
        }
        final long srqn = hex(fields[next], "SRQN", SRQN_WIDTH);
        try
        {
            return new PerftestDest((int)head[0], (int)head[1], (int)head[2], (int)head[3], (int)head[4], head[5],
                gidHigh, gidLow, (int)srqn);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new OobProtocolException("perftest QP record out of range: " + ex.getMessage());
        }
    }

    private static int gidByte(final PerftestDest dest, final int index)
    {
        final long half = index < 8 ? dest.gidHigh() : dest.gidLow();
        return (int)(half >>> (56 - 8 * (index & 7))) & 0xFF;
    }

    private static long hex(final String field, final String name, final int maxDigits) throws OobProtocolException
    {
        if (field.isEmpty() || field.length() > maxDigits)
        {
            throw new OobProtocolException("perftest QP record: " + name + " must be 1.." + maxDigits +
                " hex digits, got '" + field + "'");
        }
        for (int i = 0; i < field.length(); i++)
        {
            if (Character.digit(field.charAt(i), 16) < 0)
            {
                throw new OobProtocolException("perftest QP record: " + name + " is not hex: '" + field + "'");
            }
        }
        return Long.parseUnsignedLong(field, 16);
    }

    static String printable(final byte[] bytes)
    {
        final StringBuilder sb = new StringBuilder();
        for (int i = 0; i < bytes.length && i < 120; i++)
        {
            final int c = bytes[i] & 0xFF;
            if (0 == c)
            {
                break;
            }
            sb.append(c >= 0x20 && c < 0x7F ? (char)c : '?');
        }
        return sb.toString();
    }
}
