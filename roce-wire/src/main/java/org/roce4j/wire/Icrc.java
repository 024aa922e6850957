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
 * <p><b>How it is computed without a masked copy.</b> The CRC-32 register is linear over GF(2) in the starting
 * register and the message bits, so:
 * <ul>
 *   <li>Setting byte {@code p} of an n-byte message from {@code a} to {@code 0xFF} changes the final register by the
 *   contribution of {@code d = a ^ 0xFF} at position {@code p}: {@code d}'s table entry shifted through the
 *   {@code n - 1 - p} bytes after it. XORing that same entry shifted <i>back</i> through {@code p + 1} bytes into
 *   the starting register changes the final register by exactly the same amount, whatever {@code n} is. That
 *   correction depends only on {@code a}: one 256-entry table per masked position, built once (run backwards, the
 *   CRC's byte step is invertible).</li>
 *   <li>The 8-byte LRH placeholder only fixes the starting register: 0xdebb20e3.</li>
 *   <li>{@link CRC32} cannot be given a starting register, but its first four bytes can: feeding four bytes
 *   {@code x} (little-endian) from register {@code r} gives the same register as feeding zeros from
 *   {@code r ^ x}. So four bytes {@code seed = 0xFFFFFFFF ^ start ^ M[0..4)}, fed after {@link CRC32#reset()},
 *   leave CRC32 exactly where the definition is after the (masked) first four IP header bytes {@code M[0..4)}.</li>
 * </ul>
 * So the ICRC is one CRC32 over the seed (folded from 7 header bytes with at most 6 table lookups) and the packet
 * from IP header byte 4 to the end of the pad, read in place by the JDK's CRC32 intrinsic: no copy of the headers,
 * no masking stores, one CRC32 call over the bulk of the packet. IcrcTest checks it against captures and
 * independent implementations, and IcrcDifferentialTest against a literal masked-copy implementation.
 *
 * <p>An instance reuses one {@link CRC32} and one scratch array; it is not thread safe. It never allocates, except
 * once per distinct direct {@link ByteBuffer} it sees (a cached view used to feed the JDK's CRC32 intrinsic).
 */
public final class Icrc
{
    /** Length of the ICRC trailer. */
    public static final int LENGTH = 4;

    /** The CRC-32 polynomial (IEEE 802.3) in the bit-reflected form of {@link CRC32} and Linux crc32_le. */
    private static final int POLYNOMIAL = 0xEDB8_8320;
    /** {@link CRC32}'s register after {@code reset()} ({@code getValue()} returns its complement). */
    private static final int RESET_REGISTER = 0xFFFF_FFFF;
    /** Bytes of 0xFF that stand for the masked LRH. */
    private static final int LRH_PLACEHOLDER_LENGTH = 8;
    /** Largest IP header: IPv4 with 40 bytes of options (IHL 15). */
    private static final int MAX_IP_HEADER_LENGTH = 60;
    /** Bytes of the seed: the first four IP header bytes, which the seed replaces. */
    private static final int SEED_LENGTH = 4;
    /** Headers the masking reaches: IP header (from its length), UDP header and BTH; the CRC always covers them. */
    private static final int UDP_BTH_LENGTH = UdpHeader.LENGTH + BthHeader.LENGTH;
    /** Offset of BTH byte 4 (FECN, BECN, Resv6a) from the start of the UDP header. */
    private static final int UDP_TO_BTH_BYTE_4 = UdpHeader.LENGTH + BthHeader.FECN_BECN_OFFSET;

    /** Bytes copied at a time from buffers over raw addresses: a 4 KiB payload plus RETH and pad in one chunk. */
    private static final int CHUNK_LENGTH = 4096 + 64;

    /** TABLE[v]: the register after byte v is fed into register 0 (the usual byte-at-a-time CRC table). */
    private static final int[] TABLE = new int[256];
    /** TOP_BYTE_OWNER[t]: the v whose TABLE[v] has t as its top byte (a permutation); runs the CRC backwards. */
    private static final int[] TOP_BYTE_OWNER = new int[256];

    /*
     * Start-register corrections, indexed by the byte as it is in the packet, for masking it to 0xFF at its position
     * counted from the start of the IP header. The masked bytes among the first four (IPv4 TOS; IPv6 version and
     * traffic class low nibble, flow label) are masked directly in the seed and need no table.
     */
    /** IPv4 TTL, IP byte 8. */
    private static final int[] IPV4_TTL;
    /** IPv4 header checksum high byte, IP byte 10. */
    private static final int[] IPV4_CHECKSUM_HIGH;
    /** IPv4 header checksum low byte, IP byte 11. */
    private static final int[] IPV4_CHECKSUM_LOW;
    /** IPv6 hop limit, IP byte 7. */
    private static final int[] IPV6_HOP_LIMIT;
    /** UDP checksum high byte behind a 20-byte IPv4 header: IP byte 20 + 6. */
    private static final int[] IPV4_UDP_CHECKSUM_HIGH;
    /** UDP checksum low byte behind a 20-byte IPv4 header: IP byte 20 + 7. */
    private static final int[] IPV4_UDP_CHECKSUM_LOW;
    /** BTH byte 4 behind a 20-byte IPv4 header: IP byte 20 + 8 + 4. */
    private static final int[] IPV4_BTH_BYTE_4;
    /** UDP checksum high byte behind the 40-byte IPv6 header: IP byte 40 + 6. */
    private static final int[] IPV6_UDP_CHECKSUM_HIGH;
    /** UDP checksum low byte behind the 40-byte IPv6 header: IP byte 40 + 7. */
    private static final int[] IPV6_UDP_CHECKSUM_LOW;
    /** BTH byte 4 behind the 40-byte IPv6 header: IP byte 40 + 8 + 4. */
    private static final int[] IPV6_BTH_BYTE_4;
    /** Shift a correction back by four more bytes, one table per byte of it (IPv4 options move UDP and BTH). */
    private static final int[] BACK4_BYTE_0;
    /** See {@link #BACK4_BYTE_0}. */
    private static final int[] BACK4_BYTE_1;
    /** See {@link #BACK4_BYTE_0}. */
    private static final int[] BACK4_BYTE_2;
    /** See {@link #BACK4_BYTE_0}. */
    private static final int[] BACK4_BYTE_3;
    /** The seed's constant part: CRC32's reset register XOR the register after the 8-byte LRH placeholder. */
    private static final int SEED_BASE;

    static
    {
        for (int v = 0; v < 256; v++)
        {
            int register = v;
            for (int bit = 0; bit < 8; bit++)
            {
                register = 0 != (register & 1) ? (register >>> 1) ^ POLYNOMIAL : register >>> 1;
            }
            TABLE[v] = register;
        }
        final boolean[] seen = new boolean[256];
        for (int v = 0; v < 256; v++)
        {
            final int top = TABLE[v] >>> 24;
            if (seen[top])
            {
                throw new IllegalStateException("CRC table top bytes are not a permutation");
            }
            seen[top] = true;
            TOP_BYTE_OWNER[top] = v;
        }
        int lrh = RESET_REGISTER;
        for (int i = 0; i < LRH_PLACEHOLDER_LENGTH; i++)
        {
            lrh = TABLE[(lrh ^ 0xFF) & 0xFF] ^ (lrh >>> 8);
        }
        SEED_BASE = RESET_REGISTER ^ lrh;

        IPV4_TTL = maskTable(Ipv4Header.TTL_OFFSET);
        IPV4_CHECKSUM_HIGH = maskTable(Ipv4Header.CHECKSUM_OFFSET);
        IPV4_CHECKSUM_LOW = maskTable(Ipv4Header.CHECKSUM_OFFSET + 1);
        IPV6_HOP_LIMIT = maskTable(Ipv6Header.HOP_LIMIT_OFFSET);
        IPV4_UDP_CHECKSUM_HIGH = maskTable(Ipv4Header.LENGTH + UdpHeader.CHECKSUM_OFFSET);
        IPV4_UDP_CHECKSUM_LOW = maskTable(Ipv4Header.LENGTH + UdpHeader.CHECKSUM_OFFSET + 1);
        IPV4_BTH_BYTE_4 = maskTable(Ipv4Header.LENGTH + UDP_TO_BTH_BYTE_4);
        IPV6_UDP_CHECKSUM_HIGH = maskTable(Ipv6Header.LENGTH + UdpHeader.CHECKSUM_OFFSET);
        IPV6_UDP_CHECKSUM_LOW = maskTable(Ipv6Header.LENGTH + UdpHeader.CHECKSUM_OFFSET + 1);
        IPV6_BTH_BYTE_4 = maskTable(Ipv6Header.LENGTH + UDP_TO_BTH_BYTE_4);
        BACK4_BYTE_0 = backTable(0);
        BACK4_BYTE_1 = backTable(8);
        BACK4_BYTE_2 = backTable(16);
        BACK4_BYTE_3 = backTable(24);
    }


    private final CRC32 crc = new CRC32();
    private final byte[] chunk = new byte[CHUNK_LENGTH];
    private ByteBuffer viewSource;
    private ByteBuffer view;
    private boolean staged;
    private boolean stagedSeedFed;
    private int stagedSeed;
    private int stagedIpOffset;
    private int stagedMinEnd;

    /**
     * An ICRC calculator with its own scratch space.
     */
    public Icrc()
    {
    }

    /**
     * Compute the ICRC of a packet.
     *
     * @param buffer         holding the packet.
     * @param ipOffset       offset of the IP header.
     * @param ipVersion      4 or 6.
     * @param ipHeaderLength 20 (more with IPv4 options) or 40.
     * @param icrcOffset     offset just past the pad, where the ICRC is or goes.
     * @return the ICRC value; write it with {@link #write(MutableDirectBuffer, int, int)}.
     * @throws IllegalArgumentException when ipHeaderLength is not within 20..60.
     */
    public int compute(
        final DirectBuffer buffer,
        final int ipOffset,
        final int ipVersion,
        final int ipHeaderLength,
        final int icrcOffset)
    {
        final int seed = seed(buffer, ipOffset, ipVersion, ipHeaderLength);
        staged = false;
        return crc(buffer, ipOffset, seed, Math.max(icrcOffset, ipOffset + ipHeaderLength + UDP_BTH_LENGTH));
    }

    /**
     * Compute the ICRC of a packet and write it into its trailer: what a sender does last, and what a test or a fault
     * does after changing covered fields so that the change is the only thing wrong with the packet.
     *
     * @param buffer         holding the packet.
     * @param ipOffset       offset of the IP header.
     * @param ipVersion      4 or 6.
     * @param ipHeaderLength 20 (more with IPv4 options) or 40.
     * @param icrcOffset     offset just past the pad, where the ICRC goes.
     * @return the ICRC value written.
     * @throws IllegalArgumentException when ipHeaderLength is not within 20..60.
     */
    public int seal(
        final MutableDirectBuffer buffer,
        final int ipOffset,
        final int ipVersion,
        final int ipHeaderLength,
        final int icrcOffset)
    {
        final int value = compute(buffer, ipOffset, ipVersion, ipHeaderLength, icrcOffset);
        write(buffer, icrcOffset, value);
        return value;
    }

    /**
     * The ICRC rxe puts on an RC FLUSH and expects on one (seen with Linux 6.12; FLUSH arrived in 6.2): the standard
     * ICRC continued over the packet's BTH, FETH and RETH a second time, as sent (nothing masked). rxe_opcode.c gives
     * IB_OPCODE_RC_FLUSH no RXE_PAYLOAD offset, so rxe_icrc_generate and rxe_icrc_check, after the headers, feed
     * {@code payload_addr(pkt)} = the BTH for {@code payload_size(pkt)} = every header byte again. A FLUSH with the
     * standard ICRC fails rxe's check and is dropped silently; PyverbsWithRxeTest shows both directions.
     *
     * @param buffer         holding the packet (a FLUSH: BTH, FETH, RETH, no payload).
     * @param ipOffset       offset of the IP header.
     * @param ipVersion      4 or 6.
     * @param ipHeaderLength 20 (more with IPv4 options) or 40.
     * @param icrcOffset     offset of the ICRC trailer, just past the RETH.
     * @param bthOffset      offset of the BTH.
     * @return the ICRC value rxe computes.
     * @throws IllegalArgumentException when ipHeaderLength is not within 20..60.
     */
    public int computeRxeFlush(
        final DirectBuffer buffer,
        final int ipOffset,
        final int ipVersion,
        final int ipHeaderLength,
        final int icrcOffset,
        final int bthOffset)
    {
        compute(buffer, ipOffset, ipVersion, ipHeaderLength, icrcOffset);
        // this.crc still holds the register after the packet: continue with its headers (at most 32 bytes)
        final int headers = Math.min(icrcOffset - bthOffset, CHUNK_LENGTH);
        buffer.getBytes(bthOffset, chunk, 0, headers);
        crc.update(chunk, 0, headers);
        return (int)crc.getValue();
    }

    /**
     * First half of {@link #compute}: read the masked header bytes (IP, UDP, BTH), fold them into the seed and, for
     * memory CRC32 reads in place, feed the seed to this instance's CRC32 already. The headers must be in the buffer
     * and must not change before {@link #computeStaged}.
     *
     * <p>A receive path calls this as soon as the headers are known to be present and does its other checks before
     * {@link #computeStaged}: feeding the seed is a chain of four dependent table steps (some 30 cycles), which the
     * CPU then runs alongside those checks instead of in front of the long CRC32 call.
     *
     * @param buffer         holding the packet.
     * @param ipOffset       offset of the IP header.
     * @param ipVersion      4 or 6.
     * @param ipHeaderLength 20 (more with IPv4 options) or 40.
     * @throws IllegalArgumentException when ipHeaderLength is not within 20..60.
     */
    public void stageHeaders(
        final DirectBuffer buffer, final int ipOffset, final int ipVersion, final int ipHeaderLength)
    {
        final int seed = seed(buffer, ipOffset, ipVersion, ipHeaderLength);
        stagedSeed = seed;
        stagedIpOffset = ipOffset;
        stagedMinEnd = ipOffset + ipHeaderLength + UDP_BTH_LENGTH;
        final boolean inPlace = null != buffer.byteArray() || null != buffer.byteBuffer();
        if (inPlace)
        {
            crc.reset();
            feedSeed(crc, seed);
        }
        stagedSeedFed = inPlace;
        staged = true;
    }

    /**
     * Second half of {@link #compute}: the ICRC of the packet whose headers the last {@link #stageHeaders} call on
     * this instance read. Each staging is used once, and a {@link #compute} call in between discards it.
     *
     * @param buffer     holding the packet, the same one given to {@link #stageHeaders}.
     * @param icrcOffset offset just past the pad, where the ICRC is or goes.
     * @return the ICRC value.
     * @throws IllegalStateException when nothing was staged since the last computation.
     */
    public int computeStaged(final DirectBuffer buffer, final int icrcOffset)
    {
        if (!staged)
        {
            throw new IllegalStateException("computeStaged() needs stageHeaders() first");
        }
        staged = false;
        final int end = Math.max(icrcOffset, stagedMinEnd);
        return stagedSeedFed ? rest(buffer, stagedIpOffset, end) : crc(buffer, stagedIpOffset, stagedSeed, end);
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

    /**
     * The four bytes that stand for IP header bytes 0..3 (see the class comment): CRC32 fed them after a reset holds
     * the register the definition holds after the placeholder and the masked IP bytes 0..3, corrected for every
     * masked byte further on. Header bytes are read one by one (no wide load spanning several earlier stores), so a
     * builder that has just written the lengths and checksums does not stall on store forwarding.
     */
    private static int seed(
        final DirectBuffer buffer, final int ipOffset, final int ipVersion, final int ipHeaderLength)
    {
        if (ipHeaderLength < Ipv4Header.LENGTH || ipHeaderLength > MAX_IP_HEADER_LENGTH)
        {
            throw badIpHeaderLength(ipHeaderLength);
        }
        final int udp = ipOffset + ipHeaderLength;
        final int udpChecksumHigh = u8(buffer, udp + UdpHeader.CHECKSUM_OFFSET);
        final int udpChecksumLow = u8(buffer, udp + UdpHeader.CHECKSUM_OFFSET + 1);
        final int bthByte4 = u8(buffer, udp + UDP_TO_BTH_BYTE_4);
        // IP bytes 0 and 2..3 as they sit in the first little-endian word of the CRC input.
        final int first =
            u8(buffer, ipOffset) | (buffer.getShort(ipOffset + 2, ByteOrder.LITTLE_ENDIAN) & 0xFFFF) << 16;
        if (4 == ipVersion)
        {
            int udpBth = IPV4_UDP_CHECKSUM_HIGH[udpChecksumHigh] ^ IPV4_UDP_CHECKSUM_LOW[udpChecksumLow] ^
                IPV4_BTH_BYTE_4[bthByte4];
            if (Ipv4Header.LENGTH != ipHeaderLength)
            {
                udpBth = back(udpBth, ipHeaderLength - Ipv4Header.LENGTH);
            }
            // TOS (IP byte 1) masked in place: 0x0000FF00 in the little-endian first word.
            return SEED_BASE ^ first ^ 0x0000_FF00 ^ udpBth ^
                IPV4_TTL[u8(buffer, ipOffset + Ipv4Header.TTL_OFFSET)] ^
                IPV4_CHECKSUM_HIGH[u8(buffer, ipOffset + Ipv4Header.CHECKSUM_OFFSET)] ^
                IPV4_CHECKSUM_LOW[u8(buffer, ipOffset + Ipv4Header.CHECKSUM_OFFSET + 1)];
        }
        final int udpBth;
        if (Ipv6Header.LENGTH == ipHeaderLength)
        {
            udpBth = IPV6_UDP_CHECKSUM_HIGH[udpChecksumHigh] ^ IPV6_UDP_CHECKSUM_LOW[udpChecksumLow] ^
                IPV6_BTH_BYTE_4[bthByte4];
        }
        else
        {
            udpBth = back(
                IPV4_UDP_CHECKSUM_HIGH[udpChecksumHigh] ^ IPV4_UDP_CHECKSUM_LOW[udpChecksumLow] ^
                IPV4_BTH_BYTE_4[bthByte4],
                ipHeaderLength - Ipv4Header.LENGTH);
        }
        // Version kept, traffic class and flow label (the low 28 bits of the first word, big-endian) masked: in the
        // little-endian first word that is the low nibble of byte 0 and bytes 1..3, 0xFFFFFF0F.
        return SEED_BASE ^ (first | 0xFFFF_FF0F) ^ udpBth ^
            IPV6_HOP_LIMIT[u8(buffer, ipOffset + Ipv6Header.HOP_LIMIT_OFFSET)];
    }

    private static IllegalArgumentException badIpHeaderLength(final int ipHeaderLength)
    {
        return new IllegalArgumentException(
            "ipHeaderLength must be 20..60 (IPv4) or 40 (IPv6), got " + ipHeaderLength);
    }

    private static int u8(final DirectBuffer buffer, final int index)
    {
        return buffer.getByte(index) & 0xFF;
    }

    /**
     * The ICRC: CRC32 over the seed, then the packet from IP byte 4 to {@code end}.
     */
    private int crc(final DirectBuffer buffer, final int ipOffset, final int seed, final int end)
    {
        final CRC32 crc = this.crc;
        crc.reset();
        if (null != buffer.byteArray() || null != buffer.byteBuffer())
        {
            feedSeed(crc, seed);
            return rest(buffer, ipOffset, end);
        }
        // A buffer over a raw address (no ByteBuffer to hand to CRC32): copy it out in chunks big enough for a
        // 4 KiB-MTU packet in one go, the seed in place of IP bytes 0..3, so a 4 KiB packet takes one copy and one
        // CRC32 call.
        final byte[] chunk = this.chunk;
        final int restOffset = ipOffset + SEED_LENGTH;
        final int restLength = end - restOffset;
        int n = Math.min(CHUNK_LENGTH, SEED_LENGTH + restLength);
        buffer.getBytes(restOffset, chunk, SEED_LENGTH, n - SEED_LENGTH);
        chunk[0] = (byte)seed;
        chunk[1] = (byte)(seed >>> 8);
        chunk[2] = (byte)(seed >>> 16);
        chunk[3] = (byte)(seed >>> 24);
        crc.update(chunk, 0, n);
        int done = n - SEED_LENGTH;
        while (done < restLength)
        {
            n = Math.min(CHUNK_LENGTH, restLength - done);
            buffer.getBytes(restOffset + done, chunk, 0, n);
            crc.update(chunk, 0, n);
            done += n;
        }
        return (int)crc.getValue();
    }

    /**
     * The ICRC once the seed is fed: the packet from IP byte 4 to {@code end}, read in place (a buffer over a byte
     * array or a ByteBuffer).
     */
    private int rest(final DirectBuffer buffer, final int ipOffset, final int end)
    {
        final CRC32 crc = this.crc;
        final int start = buffer.wrapAdjustment() + ipOffset + SEED_LENGTH;
        final int length = end - ipOffset - SEED_LENGTH;
        final byte[] array = buffer.byteArray();
        if (null != array)
        {
            crc.update(array, start, length);
        }
        else
        {
            final ByteBuffer source = buffer.byteBuffer();
            if (source != viewSource)
            {
                viewSource = source;
                view = source.duplicate();
            }
            view.limit(start + length).position(start);
            crc.update(view);
        }
        return (int)crc.getValue();
    }

    /** Feed the seed's four bytes, lowest first (CRC32 takes the low 8 bits of each argument). */
    private static void feedSeed(final CRC32 crc, final int seed)
    {
        crc.update(seed);
        crc.update(seed >>> 8);
        crc.update(seed >>> 16);
        crc.update(seed >>> 24);
    }

    /**
     * A correction moved back by {@code bytes} more bytes (its masked bytes sit that much further into the packet).
     */
    private static int back(final int correction, final int bytes)
    {
        int value = correction;
        int left = bytes;
        while (left >= 4)
        {
            value = BACK4_BYTE_0[value & 0xFF] ^ BACK4_BYTE_1[(value >>> 8) & 0xFF] ^
                BACK4_BYTE_2[(value >>> 16) & 0xFF] ^ BACK4_BYTE_3[value >>> 24];
            left -= 4;
        }
        while (left > 0)
        {
            value = unstep(value);
            left--;
        }
        return value;
    }

    /** Undo one zero-byte CRC step {@code r -> TABLE[r & 0xFF] ^ (r >>> 8)}: the top byte names the table entry. */
    private static int unstep(final int register)
    {
        final int low = TOP_BYTE_OWNER[register >>> 24];
        return ((register ^ TABLE[low]) << 8) | low;
    }

    /**
     * @param position of a masked byte, counted from the start of the IP header.
     * @return for each value the byte can have in the packet, the start-register correction for masking it to 0xFF:
     * the contribution of {@code value ^ 0xFF} (one CRC step from register 0) run back through position + 1 bytes.
     */
    private static int[] maskTable(final int position)
    {
        final int[] table = new int[256];
        for (int value = 0; value < 256; value++)
        {
            int register = TABLE[value ^ 0xFF];
            for (int i = 0; i <= position; i++)
            {
                register = unstep(register);
            }
            table[value] = register;
        }
        return table;
    }

    /**
     * @param shift of the byte within a correction.
     * @return for each value of that byte, its part of the correction moved back four bytes.
     */
    private static int[] backTable(final int shift)
    {
        final int[] table = new int[256];
        for (int value = 0; value < 256; value++)
        {
            int register = value << shift;
            for (int i = 0; i < 4; i++)
            {
                register = unstep(register);
            }
            table[value] = register;
        }
        return table;
    }
}
