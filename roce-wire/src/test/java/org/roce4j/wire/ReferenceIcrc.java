package org.roce4j.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.zip.CRC32;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.roce4j.wire.header.BthHeader;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.header.Ipv6Header;
import org.roce4j.wire.header.UdpHeader;

/**
 * Test oracle: {@code Icrc} as it was at commit 1f54666, a literal implementation of the definition (the headers
 * copied into a scratch array, the variant fields overwritten with ones, then CRC32 over it and the rest), kept
 * verbatim apart from its name. IcrcDifferentialTest compares the table-driven {@link Icrc} with it.
 *
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
 * <p>An instance reuses one {@link CRC32} and two scratch arrays; it is not thread safe. It never allocates, except
 * once per distinct direct {@link ByteBuffer} it sees (a cached view used to feed the JDK's CRC32 intrinsic).
 */
public final class ReferenceIcrc
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

    /** Bytes copied at a time from buffers over raw addresses: a 4 KiB payload plus RETH and pad in one chunk. */
    private static final int CHUNK_LENGTH = 4096 + 64;

    private final CRC32 crc = new CRC32();
    private final byte[] scratch = new byte[SCRATCH_LENGTH];
    private final byte[] chunk = new byte[CHUNK_LENGTH];
    private ByteBuffer viewSource;
    private ByteBuffer view;
    private int stagedLength;
    private int stagedRestOffset;

    /**
     * An ICRC calculator with its own scratch space.
     */
    public ReferenceIcrc()
    {
        Arrays.fill(scratch, 0, LRH_PLACEHOLDER_LENGTH, (byte)0xFF);
    }

    /**
     * Compute the ICRC of a packet: {@link #stageHeaders} then {@link #computeStaged}.
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
        stageHeaders(buffer, ipOffset, ipVersion, ipHeaderLength);
        return computeStaged(buffer, icrcOffset);
    }

    /**
     * First half of {@link #compute}: copy the IP, UDP and BTH headers into this instance's scratch array with the
     * variant fields masked to ones. The headers must already be in the buffer.
     *
     * <p>A receive path calls this as soon as the headers are known to be present and does its other checks before
     * {@link #computeStaged}: the CRC32 intrinsic reads the scratch with wide vector loads, and loads of bytes stored
     * a moment before cannot be served from the CPU's store buffer, so they wait for the stores to reach the cache
     * (10 to 20 ns per packet on the bench machine, see bench/README.md). Work done in between hides that wait.
     *
     * @param buffer         holding the packet.
     * @param ipOffset       offset of the IP header.
     * @param ipVersion      4 or 6.
     * @param ipHeaderLength 20 (more with IPv4 options) or 40.
     */
    public void stageHeaders(
        final DirectBuffer buffer, final int ipOffset, final int ipVersion, final int ipHeaderLength)
    {
        final byte[] scratch = this.scratch;
        final int maskedLength = ipHeaderLength + UdpHeader.LENGTH + BthHeader.LENGTH;
        // scratch[0..8) holds the LRH placeholder for good: it is filled once, in the constructor.
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
        stagedLength = LRH_PLACEHOLDER_LENGTH + maskedLength;
        stagedRestOffset = ipOffset + maskedLength;
    }

    /**
     * Second half of {@link #compute}: the CRC of the headers staged by the last {@link #stageHeaders} call on this
     * instance, followed by the rest of the packet (extension headers, payload, pad) read in place. Each staging is
     * used once.
     *
     * @param buffer     holding the packet, the same one given to {@link #stageHeaders}.
     * @param icrcOffset offset just past the pad, where the ICRC is or goes.
     * @return the ICRC value.
     * @throws IllegalStateException when nothing was staged since the last computation.
     */
    public int computeStaged(final DirectBuffer buffer, final int icrcOffset)
    {
        final int stagedLength = this.stagedLength;
        if (0 == stagedLength)
        {
            throw new IllegalStateException("computeStaged() needs stageHeaders() first");
        }
        this.stagedLength = 0;
        final CRC32 crc = this.crc;
        crc.reset();
        crc.update(scratch, 0, stagedLength);
        update(buffer, stagedRestOffset, icrcOffset - stagedRestOffset);
        return (int)crc.getValue();
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
        // A buffer over a raw address (no ByteBuffer to hand to CRC32): copy it out in chunks big enough for a
        // 4 KiB-MTU packet in one go, so the copy and the CRC each run once per packet rather than once per 256 bytes.
        final byte[] chunk = this.chunk;
        int done = 0;
        while (done < length)
        {
            final int n = Math.min(CHUNK_LENGTH, length - done);
            buffer.getBytes(index + done, chunk, 0, n);
            crc.update(chunk, 0, n);
            done += n;
        }
    }
}
