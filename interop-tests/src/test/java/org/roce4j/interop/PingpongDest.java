package org.roce4j.interop;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One side's address as ibv_rc_pingpong and ibv_ud_pingpong exchange it over TCP (rdma-core
 * libibverbs/examples/rc_pingpong.c; protocol-facts.md C.1): the NUL-terminated ASCII record
 * {@code "%04x:%06x:%06x:%s"} of LID, QPN, PSN and the GID as 32 hex digits of its 16 wire bytes, 52 bytes with
 * the NUL. The client writes its record first, the server answers with its own after moving its QP to RTS, and the
 * client ends with the 5 bytes {@code "done\0"}.
 *
 * @param lid LID (0 on RoCE).
 * @param qpn queue pair number, 24 bits.
 * @param psn first PSN the side sends, 24 bits.
 * @param gid the 16 GID bytes.
 */
public record PingpongDest(int lid, int qpn, int psn, byte[] gid)
{
    /** Length of the record: {@code sizeof "0000:000000:000000:00000000000000000000000000000000"}. */
    public static final int WIRE_LENGTH = 52;
    /** What the client sends last, NUL included. */
    public static final byte[] DONE = "done\0".getBytes(StandardCharsets.US_ASCII);

    /**
     * Validate.
     *
     * @throws IllegalArgumentException naming the bad field.
     */
    public PingpongDest
    {
        if (16 != gid.length)
        {
            throw new IllegalArgumentException("a GID has 16 bytes, got " + gid.length);
        }
        gid = gid.clone();
    }

    /**
     * @return the GID bytes (a copy).
     */
    public byte[] gid()
    {
        return gid.clone();
    }

    /**
     * @return the 52 bytes on the wire.
     */
    public byte[] encode()
    {
        final StringBuilder hex = new StringBuilder(32);
        for (final byte b : gid)
        {
            hex.append(String.format("%02x", b & 0xFF));
        }
        final String text = String.format("%04x:%06x:%06x:%s", lid, qpn, psn, hex);
        final byte[] wire = Arrays.copyOf(text.getBytes(StandardCharsets.US_ASCII), WIRE_LENGTH);
        if (WIRE_LENGTH - 1 != text.length())
        {
            throw new IllegalStateException("pingpong record '" + text + "' is not " + (WIRE_LENGTH - 1) + " chars");
        }
        return wire;
    }

    /**
     * @param wire the 52 bytes received.
     * @return the parsed record.
     * @throws IllegalArgumentException naming the bad record.
     */
    public static PingpongDest decode(final byte[] wire)
    {
        final String text = new String(wire, StandardCharsets.US_ASCII);
        final int nul = text.indexOf('\0');
        final String[] parts = (nul < 0 ? text : text.substring(0, nul)).split(":");
        if (4 != parts.length || 32 != parts[3].length())
        {
            throw new IllegalArgumentException("not a pingpong record: '" + text + "'");
        }
        final byte[] gid = new byte[16];
        for (int i = 0; i < 16; i++)
        {
            gid[i] = (byte)Integer.parseInt(parts[3].substring(2 * i, 2 * i + 2), 16);
        }
        return new PingpongDest(
            Integer.parseInt(parts[0], 16), Integer.parseInt(parts[1], 16), Integer.parseInt(parts[2], 16), gid);
    }

    /**
     * @param in     stream.
     * @param length bytes to read.
     * @return exactly that many bytes.
     * @throws EOFException when the stream ends first.
     * @throws IOException  when reading fails.
     */
    public static byte[] readFully(final InputStream in, final int length) throws IOException
    {
        final byte[] bytes = new byte[length];
        int read = 0;
        while (read < length)
        {
            final int n = in.read(bytes, read, length - read);
            if (n < 0)
            {
                throw new EOFException("stream ended after " + read + " of " + length + " bytes");
            }
            read += n;
        }
        return bytes;
    }

    /**
     * @param ipv4 an IPv4 address as a big-endian int.
     * @return the RoCE v2 GID {@code ::ffff:a.b.c.d}.
     */
    public static byte[] ipv4MappedGid(final int ipv4)
    {
        final byte[] gid = new byte[16];
        gid[10] = (byte)0xFF;
        gid[11] = (byte)0xFF;
        gid[12] = (byte)(ipv4 >>> 24);
        gid[13] = (byte)(ipv4 >>> 16);
        gid[14] = (byte)(ipv4 >>> 8);
        gid[15] = (byte)ipv4;
        return gid;
    }

    /**
     * @return e.g. {@code lid=0 qpn=0x000011 psn=0x1a2b3c gid=...}.
     */
    public String toString()
    {
        final byte[] wire = encode();
        return new String(wire, 0, WIRE_LENGTH - 1, StandardCharsets.US_ASCII);
    }
}
