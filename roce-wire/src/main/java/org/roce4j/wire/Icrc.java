package org.roce4j.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.roce4j.wire.header.BthHeader;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.header.Ipv6Header;
import org.roce4j.wire.header.UdpHeader;

/**
 * The RoCEv2 Invariant CRC (IBA A17.3.3): a standard CRC-32 (the IEEE polynomial of {@link CRC32}, not CRC-32C)
 * over the packet from the IP header to the end of the pad, with the fields that routers may change masked to ones.
 *
 * <p>What is covered, in order (rxe_icrc.c):
 * <ol>
 *   <li>8 bytes of 0xFF standing for the masked LRH of native InfiniBand. rxe starts its crc32_le at 0xdebb20e3,
 *   which is exactly the CRC state after these 8 bytes.</li>
 *   <li>The IP header with, for IPv4, TOS (byte 1), TTL (byte 8) and the header checksum (bytes 10..11) set to ones;
 *   for IPv6, traffic class, flow label and hop limit set to ones. The IPv4 Identification and flags are covered
 *   as sent, which is why a kernel UDP socket must be made to send ID 0 (see docs on the udp link).</li>
 *   <li>The UDP header with the checksum set to 0xFFFF.</li>
 *   <li>The BTH with byte 4 (FECN, BECN, Resv6a) set to 0xFF.</li>
 *   <li>The extension headers, the payload and the pad, as sent.</li>
 * </ol>
 * The result ({@link CRC32#getValue()}, already inverted) is written after the pad in little-endian byte order:
 * the value 0x55ffed6f goes on the wire as {@code 6f ed ff 55}.
 *
 * <p>An instance reuses one {@link CRC32} and one scratch array; it is not thread safe. It never allocates, except
 * once per distinct direct {@link ByteBuffer} it sees (a cached view used to feed the JDK's CRC32 intrinsic).
 */
public final class Icrc
{
    /** Length of the ICRC trailer. */
    public static final int LENGTH = 4;

    /** Bytes of 0xFF that stand for the masked LRH. */
    private static final int LRH_PLACEHOLDER_LENGTH = 8;
    /** Largest IP header: IPv4 with 40 bytes of options (IHL 15). */
    private static final int MAX_IP_HEADER_LENGTH = 60;
    /** Bytes fed from the scratch array: placeholder, IP header, UDP header and BTH. */
    private static final int SCRATCH_LENGTH =
        LRH_PLACEHOLDER_LENGTH + MAX_IP_HEADER_LENGTH + UdpHeader.LENGTH + BthHeader.LENGTH;

    /** The 8 bytes of ones that stand for the masked LRH. */
    private static final byte[] LRH_PLACEHOLDER = {-1, -1, -1, -1, -1, -1, -1, -1};
    /** The low 28 bits of the IPv6 first word: traffic class and flow label (the version is the top 4). */
    private static final int TRAFFIC_CLASS_FLOW_LABEL_BITS = 0x0FFF_FFFF;

    private final CRC32 crc = new CRC32();
    private final byte[] scratch = new byte[Math.max(SCRATCH_LENGTH, 256)];
    private ByteBuffer viewSource;
    private ByteBuffer view;

    /**
     * Compute the ICRC of a packet.
     *
     * @param buffer         holding the packet.
     * @param ipOffset       offset of the IP header.
     * @param ipVersion      4 or 6.
     * @param ipHeaderLength 20 (more with IPv4 options) or 40.
     * @param icrcOffset     offset just past the pad, where the ICRC is or goes.
     * @return the ICRC value; write it with {@link #write(MutableDirectBuffer, int, int)}.
     */
    public int compute(
        final DirectBuffer buffer,
        final int ipOffset,
        final int ipVersion,
        final int ipHeaderLength,
        final int icrcOffset)
    {
        final byte[] scratch = this.scratch;
        final int maskedLength = ipHeaderLength + UdpHeader.LENGTH + BthHeader.LENGTH;
        for (int i = 0; i < LRH_PLACEHOLDER_LENGTH; i++)
        {
            scratch[i] = (byte)0xFF;
        }
        buffer.getBytes(ipOffset, scratch, LRH_PLACEHOLDER_LENGTH, maskedLength);

        final int ip = LRH_PLACEHOLDER_LENGTH;
        if (4 == ipVersion)
        {
            scratch[ip + Ipv4Header.TOS_OFFSET] = (byte)0xFF;
            scratch[ip + Ipv4Header.TTL_OFFSET] = (byte)0xFF;
            scratch[ip + Ipv4Header.CHECKSUM_OFFSET] = (byte)0xFF;
            scratch[ip + Ipv4Header.CHECKSUM_OFFSET + 1] = (byte)0xFF;
        }
        else
        {
            // Version stays; traffic class and flow label (the low 28 bits of the first word) become ones.
            scratch[ip] = (byte)(scratch[ip] | 0x0F);
            scratch[ip + 1] = (byte)0xFF;
            scratch[ip + 2] = (byte)0xFF;
            scratch[ip + 3] = (byte)0xFF;
            scratch[ip + Ipv6Header.HOP_LIMIT_OFFSET] = (byte)0xFF;
        }
        final int udp = ip + ipHeaderLength;
        scratch[udp + UdpHeader.CHECKSUM_OFFSET] = (byte)0xFF;
        scratch[udp + UdpHeader.CHECKSUM_OFFSET + 1] = (byte)0xFF;
        final int bth = udp + UdpHeader.LENGTH;
        scratch[bth + BthHeader.FECN_BECN_OFFSET] = (byte)0xFF;

        final CRC32 crc = this.crc;
        crc.reset();
        crc.update(scratch, 0, LRH_PLACEHOLDER_LENGTH + maskedLength);
        final int restOffset = ipOffset + maskedLength;
        update(buffer, restOffset, icrcOffset - restOffset);
        return (int)crc.getValue();
    }

    /**
     * Compute the ICRC of a packet in a writable buffer in one pass: the variant fields are set to ones in place,
     * the CRC runs over the IP header to the end of the pad in a single call, and the fields get their bytes back
     * before this returns. Same value as {@link #compute}, without copying the headers out (the per-packet path of
     * the frame builder and parser).
     *
     * @param buffer         holding the packet; its bytes are the same after the call.
     * @param ipOffset       offset of the IP header.
     * @param ipVersion      4 or 6.
     * @param ipHeaderLength 20 (more with IPv4 options) or 40.
     * @param icrcOffset     offset just past the pad, where the ICRC is or goes.
     * @return the ICRC value; write it with {@link #write(MutableDirectBuffer, int, int)}.
     */
    public int computeInPlace(
        final MutableDirectBuffer buffer,
        final int ipOffset,
        final int ipVersion,
        final int ipHeaderLength,
        final int icrcOffset)
    {
        final int udpChecksum = ipOffset + ipHeaderLength + UdpHeader.CHECKSUM_OFFSET;
        final int fecnBecn = ipOffset + ipHeaderLength + UdpHeader.LENGTH + BthHeader.FECN_BECN_OFFSET;
        // Save and restore raw bytes; big-endian throughout, as everywhere on the wire.
        final short savedUdpChecksum = buffer.getShort(udpChecksum, ByteOrder.BIG_ENDIAN);
        final byte savedFecnBecn = buffer.getByte(fecnBecn);
        // IPv4: TOS (byte 1), TTL (byte 8) and the header checksum (bytes 10..11). IPv6: the first word's traffic
        // class and flow label (its low 28 bits) and the hop limit.
        final int firstWord = buffer.getInt(ipOffset, ByteOrder.BIG_ENDIAN);
        final int second;
        final int third;
        if (4 == ipVersion)
        {
            second = buffer.getByte(ipOffset + Ipv4Header.TTL_OFFSET);
            third = buffer.getShort(ipOffset + Ipv4Header.CHECKSUM_OFFSET, ByteOrder.BIG_ENDIAN);
            buffer.putByte(ipOffset + Ipv4Header.TOS_OFFSET, (byte)0xFF);
            buffer.putByte(ipOffset + Ipv4Header.TTL_OFFSET, (byte)0xFF);
            buffer.putShort(ipOffset + Ipv4Header.CHECKSUM_OFFSET, (short)0xFFFF, ByteOrder.BIG_ENDIAN);
        }
        else
        {
            second = buffer.getByte(ipOffset + Ipv6Header.HOP_LIMIT_OFFSET);
            third = 0;
            buffer.putInt(ipOffset, firstWord | TRAFFIC_CLASS_FLOW_LABEL_BITS, ByteOrder.BIG_ENDIAN);
            buffer.putByte(ipOffset + Ipv6Header.HOP_LIMIT_OFFSET, (byte)0xFF);
        }
        buffer.putShort(udpChecksum, (short)0xFFFF, ByteOrder.BIG_ENDIAN);
        buffer.putByte(fecnBecn, (byte)0xFF);
        try
        {
            final CRC32 crc = this.crc;
            crc.reset();
            crc.update(LRH_PLACEHOLDER, 0, LRH_PLACEHOLDER_LENGTH);
            update(buffer, ipOffset, icrcOffset - ipOffset);
            return (int)crc.getValue();
        }
        finally
        {
            buffer.putInt(ipOffset, firstWord, ByteOrder.BIG_ENDIAN);
            if (4 == ipVersion)
            {
                buffer.putByte(ipOffset + Ipv4Header.TTL_OFFSET, (byte)second);
                buffer.putShort(ipOffset + Ipv4Header.CHECKSUM_OFFSET, (short)third, ByteOrder.BIG_ENDIAN);
            }
            else
            {
                buffer.putByte(ipOffset + Ipv6Header.HOP_LIMIT_OFFSET, (byte)second);
            }
            buffer.putShort(udpChecksum, savedUdpChecksum, ByteOrder.BIG_ENDIAN);
            buffer.putByte(fecnBecn, savedFecnBecn);
        }
    }

    /**
     * @param buffer     holding the packet.
     * @param icrcOffset offset of the ICRC trailer.
     * @return the ICRC value the packet carries (read little-endian).
     */
    public static int read(final DirectBuffer buffer, final int icrcOffset)
    {
        return buffer.getInt(icrcOffset, ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * @param buffer     holding the packet.
     * @param icrcOffset offset of the ICRC trailer.
     * @param icrc       value from {@link #compute}.
     */
    public static void write(final MutableDirectBuffer buffer, final int icrcOffset, final int icrc)
    {
        buffer.putInt(icrcOffset, icrc, ByteOrder.LITTLE_ENDIAN);
    }

    private void update(final DirectBuffer buffer, final int index, final int length)
    {
        if (length <= 0)
        {
            return;
        }
        final byte[] array = buffer.byteArray();
        if (null != array)
        {
            crc.update(array, buffer.wrapAdjustment() + index, length);
            return;
        }
        final ByteBuffer source = buffer.byteBuffer();
        if (null != source)
        {
            if (source != viewSource)
            {
                viewSource = source;
                view = source.duplicate();
            }
            final int start = buffer.wrapAdjustment() + index;
            view.limit(start + length).position(start);
            crc.update(view);
            return;
        }
        // A buffer over a raw address: feed it through the scratch array.
        int done = 0;
        while (done < length)
        {
            final int chunk = Math.min(scratch.length, length - done);
            buffer.getBytes(index + done, scratch, 0, chunk);
            crc.update(scratch, 0, chunk);
            done += chunk;
        }
    }
}
