package org.roce4j.wire;

import org.agrona.MutableDirectBuffer;
import org.roce4j.wire.header.BthHeader;
import org.roce4j.wire.header.EthernetHeader;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.header.Ipv6Header;
import org.roce4j.wire.header.UdpHeader;

import static java.nio.ByteOrder.BIG_ENDIAN;

/**
 * Parses an Ethernet frame into a reusable view of a RoCEv2 packet: the offset of every header, the opcode, the
 * payload and the pad, with every header's flyweight already wrapped.
 *
 * <p>{@link #parse(MutableDirectBuffer, int, int, boolean)} never throws on wire input and never allocates: a
 * frame that is not a well-formed RoCEv2 packet yields a {@link FrameStatus} naming the first problem, and every
 * status is counted in {@link #counters()}. After a non-OK status the view holds whatever was parsed before the
 * problem (useful to a decoder), and nothing after it.
 *
 * <p>The extension-header flyweights are wrapped only for the headers the opcode carries; reading one the opcode
 * does not carry reads stale bytes. Check {@link Opcode#has(ExtHeader)} first when the opcode is not known.
 *
 * <p>Not thread safe: one parser per receive path.
 */
public final class RoceFrameParser extends RoceFrameView
{
    /*
     * Extension headers by ordinal and as bits of Opcode.extHeaderMask(): constants, so the parser tests a bit and
     * adds a precomputed offset per carried header.
     */
    private static final int RETH_ORDINAL = ExtHeader.RETH.ordinal();
    private static final int AETH_ORDINAL = ExtHeader.AETH.ordinal();
    private static final int ATOMIC_ETH_ORDINAL = ExtHeader.ATOMIC_ETH.ordinal();
    private static final int ATOMIC_ACK_ETH_ORDINAL = ExtHeader.ATOMIC_ACK_ETH.ordinal();
    private static final int DETH_ORDINAL = ExtHeader.DETH.ordinal();
    private static final int IMM_DT_ORDINAL = ExtHeader.IMM_DT.ordinal();
    private static final int IETH_ORDINAL = ExtHeader.IETH.ordinal();
    private static final int FETH_ORDINAL = ExtHeader.FETH.ordinal();
    private static final int CNP_RESERVED_ORDINAL = ExtHeader.CNP_RESERVED.ordinal();
    private static final int RETH_BIT = 1 << RETH_ORDINAL;
    private static final int AETH_BIT = 1 << AETH_ORDINAL;
    private static final int ATOMIC_ETH_BIT = 1 << ATOMIC_ETH_ORDINAL;
    private static final int ATOMIC_ACK_ETH_BIT = 1 << ATOMIC_ACK_ETH_ORDINAL;
    private static final int DETH_BIT = 1 << DETH_ORDINAL;
    private static final int IMM_DT_BIT = 1 << IMM_DT_ORDINAL;
    private static final int IETH_BIT = 1 << IETH_ORDINAL;
    private static final int FETH_BIT = 1 << FETH_ORDINAL;
    private static final int CNP_RESERVED_BIT = 1 << CNP_RESERVED_ORDINAL;

    private final Icrc icrc = new Icrc();
    private final FrameStatusCounters counters;
    private boolean acceptRxeFlushIcrc;

    /**
     * A parser with its own counters.
     */
    public RoceFrameParser()
    {
        this(new FrameStatusCounters());
    }

    /**
     * A parser that counts into shared counters (single writer: only this parser's thread may update them).
     *
     * @param counters to count every parsed frame's status in.
     */
    public RoceFrameParser(final FrameStatusCounters counters)
    {
        this.counters = counters;
    }

    /**
     * Accept an RC FLUSH that carries rxe's ICRC instead of the standard one ({@link Icrc#computeRxeFlush}): parse
     * returns OK for it and {@link #rxeFlushIcrc()} says so, where otherwise it is BAD_ICRC (and still flagged). For a
     * peer that talks FLUSH with rxe; off by default.
     *
     * @param accept true to accept rxe's FLUSH ICRC.
     * @return this.
     */
    public RoceFrameParser acceptRxeFlushIcrc(final boolean accept)
    {
        this.acceptRxeFlushIcrc = accept;
        return this;
    }

    /**
     * Parse a frame and verify its ICRC.
     *
     * @param buffer holding the frame.
     * @param offset of the Ethernet header.
     * @param length bytes of the frame available in the buffer.
     * @return OK or the first problem found.
     */
    public FrameStatus parse(final MutableDirectBuffer buffer, final int offset, final int length)
    {
        return parse(buffer, offset, length, true);
    }

    /**
     * Parse a frame.
     *
     * @param buffer     holding the frame.
     * @param offset     of the Ethernet header.
     * @param length     bytes of the frame available in the buffer (may include Ethernet padding after the IP
     *                   packet).
     * @param verifyIcrc false where the ICRC cannot be checked (frames rebuilt from a kernel UDP socket, whose
     *                   real IP header is not visible).
     * @return OK or the first problem found.
     */
    public FrameStatus parse(
        final MutableDirectBuffer buffer, final int offset, final int length, final boolean verifyIcrc)
    {
        final FrameStatus result = doParse(buffer, offset, length, verifyIcrc);
        if (result != status)
        {
            status = result;
        }
        counters.increment(result);
        return result;
    }

    private FrameStatus doParse(
        final MutableDirectBuffer buffer, final int offset, final int length, final boolean verifyIcrc)
    {
        // Every header field is read once, as a whole big-endian word holding several fields, into locals; the view's
        // fields are written as each part is reached, so after a failed parse the view holds exactly what was parsed
        // before the problem, as it always has. A word is read only once the bytes it spans are known to be there.
        if (buffer != this.buffer)
        {
            this.buffer = buffer; // reference stores only when they change: see HeaderFlyweight.wrap
        }
        this.frameOffset = offset;
        this.capturedLength = length;
        this.ipVersion = 0;
        this.icrcVerified = false;
        this.rxeFlushIcrc = false;
        this.payloadLength = 0;
        this.padCount = 0;

        if (length < EthernetHeader.LENGTH)
        {
            return beforeOpcode(FrameStatus.TRUNCATED_ETHERNET);
        }
        ethernet.wrap(buffer, offset);
        final int outerType = buffer.getShort(offset + EthernetHeader.TYPE_OFFSET, BIG_ENDIAN) & 0xFFFF;
        final int ethernetLength;
        final int etherType;
        if (EthernetHeader.TPID_8021Q == outerType)
        {
            ethernetLength = EthernetHeader.VLAN_LENGTH;
            if (length < EthernetHeader.VLAN_LENGTH)
            {
                return beforeOpcode(FrameStatus.TRUNCATED_ETHERNET);
            }
            etherType = buffer.getShort(offset + EthernetHeader.INNER_TYPE_OFFSET, BIG_ENDIAN) & 0xFFFF;
        }
        else
        {
            ethernetLength = EthernetHeader.LENGTH;
            etherType = outerType;
        }
        this.etherType = etherType;
        final int ipOffset = offset + ethernetLength;
        this.ipOffset = ipOffset;
        final int ipAvailable = length - ethernetLength;

        final int ipVersion;
        final int ipHeaderLength;
        final int ipPayloadLength;
        final boolean icrcStaged;
        if (EthernetHeader.ETHERTYPE_IPV4 == etherType)
        {
            ipVersion = 4;
            this.ipVersion = ipVersion;
            if (ipAvailable < Ipv4Header.LENGTH)
            {
                return beforeOpcode(FrameStatus.TRUNCATED_IP);
            }
            ipv4.wrap(buffer, ipOffset);
            // The 20-byte fixed header as five big-endian words (RFC 791): version, IHL, TOS, total length |
            // identification, flags, fragment offset | TTL, protocol, checksum | source | destination.
            final int word0 = buffer.getInt(ipOffset, BIG_ENDIAN);
            if (4 != word0 >>> 28)
            {
                return beforeOpcode(FrameStatus.BAD_IP_VERSION);
            }
            ipHeaderLength = (word0 >>> 24 & 0xF) * 4;
            this.ipHeaderLength = ipHeaderLength;
            if (ipHeaderLength < Ipv4Header.LENGTH)
            {
                return beforeOpcode(FrameStatus.BAD_IP_HEADER_LENGTH);
            }
            if (ipAvailable < ipHeaderLength)
            {
                return beforeOpcode(FrameStatus.TRUNCATED_IP);
            }
            icrcStaged = stageIcrc(buffer, verifyIcrc, ipOffset, ipAvailable, 4, ipHeaderLength);
            final int totalLength = word0 & 0xFFFF;
            if (totalLength > ipAvailable || totalLength < ipHeaderLength)
            {
                return beforeOpcode(FrameStatus.IP_LENGTH_MISMATCH);
            }
            final int word1 = buffer.getInt(ipOffset + Ipv4Header.IDENTIFICATION_OFFSET, BIG_ENDIAN);
            final int word2 = buffer.getInt(ipOffset + Ipv4Header.TTL_OFFSET, BIG_ENDIAN);
            final long sum = (word0 & 0xFFFF_FFFFL) + (word1 & 0xFFFF_FFFFL) + (word2 & 0xFFFF_FFFFL) +
                (buffer.getInt(ipOffset + Ipv4Header.SOURCE_OFFSET, BIG_ENDIAN) & 0xFFFF_FFFFL) +
                (buffer.getInt(ipOffset + Ipv4Header.DESTINATION_OFFSET, BIG_ENDIAN) & 0xFFFF_FFFFL);
            if (!isOnesComplementSumAllOnes(
                Ipv4Header.LENGTH == ipHeaderLength ? sum : sum + optionsSum(buffer, ipOffset, ipHeaderLength)))
            {
                return beforeOpcode(FrameStatus.BAD_IP_CHECKSUM);
            }
            if (0 != (word1 & (Ipv4Header.FLAG_MORE_FRAGMENTS | Ipv4Header.FRAGMENT_OFFSET_MASK)))
            {
                return beforeOpcode(FrameStatus.IP_FRAGMENT);
            }
            if (Ipv4Header.PROTOCOL_UDP != (word2 >>> 16 & 0xFF))
            {
                return beforeOpcode(FrameStatus.NOT_UDP);
            }
            ipPayloadLength = totalLength - ipHeaderLength;
        }
        else if (EthernetHeader.ETHERTYPE_IPV6 == etherType)
        {
            ipVersion = 6;
            this.ipVersion = ipVersion;
            if (ipAvailable < Ipv6Header.LENGTH)
            {
                return beforeOpcode(FrameStatus.TRUNCATED_IP);
            }
            ipv6.wrap(buffer, ipOffset);
            if (6 != (buffer.getByte(ipOffset + Ipv6Header.VERSION_CLASS_FLOW_OFFSET) & 0xFF) >>> 4)
            {
                return beforeOpcode(FrameStatus.BAD_IP_VERSION);
            }
            ipHeaderLength = Ipv6Header.LENGTH;
            this.ipHeaderLength = ipHeaderLength;
            icrcStaged = stageIcrc(buffer, verifyIcrc, ipOffset, ipAvailable, 6, ipHeaderLength);
            // Payload length | next header | hop limit (RFC 8200).
            final int word1 = buffer.getInt(ipOffset + Ipv6Header.PAYLOAD_LENGTH_OFFSET, BIG_ENDIAN);
            ipPayloadLength = word1 >>> 16;
            if (ipPayloadLength > ipAvailable - Ipv6Header.LENGTH)
            {
                return beforeOpcode(FrameStatus.IP_LENGTH_MISMATCH);
            }
            if (Ipv6Header.NEXT_HEADER_UDP != (word1 >>> 8 & 0xFF))
            {
                return beforeOpcode(FrameStatus.NOT_UDP);
            }
        }
        else
        {
            return beforeOpcode(FrameStatus.NOT_IP);
        }

        final int udpOffset = ipOffset + ipHeaderLength;
        this.udpOffset = udpOffset;
        if (ipPayloadLength < UdpHeader.LENGTH)
        {
            return beforeOpcode(FrameStatus.TRUNCATED_UDP);
        }
        udp.wrap(buffer, udpOffset);
        // Source port, destination port | length, checksum (RFC 768).
        final long udpWord = buffer.getLong(udpOffset, BIG_ENDIAN);
        if (UdpHeader.ROCE_V2_PORT != ((int)(udpWord >>> 32) & 0xFFFF))
        {
            return beforeOpcode(FrameStatus.NOT_ROCE_PORT);
        }
        final int udpLength = (int)udpWord >>> 16;
        if (udpLength != ipPayloadLength)
        {
            return beforeOpcode(FrameStatus.UDP_LENGTH_MISMATCH);
        }

        final int bthOffset = udpOffset + UdpHeader.LENGTH;
        this.bthOffset = bthOffset;
        final int roceLength = udpLength - UdpHeader.LENGTH;
        if (roceLength < BthHeader.LENGTH + Icrc.LENGTH)
        {
            return beforeOpcode(FrameStatus.TRUNCATED_BTH);
        }
        final int icrcOffset = bthOffset + roceLength - Icrc.LENGTH;
        // Run the long CRC now that its extent is known and look at its result only after the remaining checks: the
        // CPU runs those in the CRC's shadow. A frame they reject wasted one CRC, but is rejected exactly as before
        // and leaves the view as before (the ICRC fields are set only at the end). Staged is always true here:
        // reaching this point needs a UDP length of at least 8 + 12 + 4 bytes.
        final int computed;
        if (verifyIcrc)
        {
            computed = icrcStaged ?
                icrc.computeStaged(buffer, icrcOffset) :
                icrc.compute(buffer, ipOffset, ipVersion, ipHeaderLength, icrcOffset);
        }
        else
        {
            computed = 0;
        }
        bth.wrap(buffer, bthOffset);
        // OpCode | SE, M, PadCnt, TVer | P_Key (IBA 9.2).
        final int bthWord = buffer.getInt(bthOffset, BIG_ENDIAN);
        final Opcode opcode = Opcode.of(bthWord >>> 24);
        if (null == opcode)
        {
            return beforeOpcode(FrameStatus.UNKNOWN_OPCODE);
        }
        if (opcode != this.opcode)
        {
            this.opcode = opcode;
        }
        if (0 != (bthWord >>> 16 & BthHeader.TVER_MASK))
        {
            return FrameStatus.BAD_TRANSPORT_VERSION;
        }
        final int headerLength = opcode.headerLength();
        if (roceLength < headerLength + Icrc.LENGTH)
        {
            return FrameStatus.TRUNCATED_HEADERS;
        }
        final int extHeaders = opcode.extHeaderMask();
        if (0 != extHeaders)
        {
            wrapExtensionHeaders(buffer, opcode, extHeaders, bthOffset);
        }

        final int payloadOffset = bthOffset + headerLength;
        this.payloadOffset = payloadOffset;
        this.icrcOffset = icrcOffset;
        final int dataAndPad = icrcOffset - payloadOffset;
        final int pad = (bthWord >>> 16 & BthHeader.PAD_MASK) >>> BthHeader.PAD_SHIFT;
        if (!opcode.hasPayload())
        {
            if (0 != dataAndPad)
            {
                return FrameStatus.UNEXPECTED_PAYLOAD;
            }
            if (0 != pad)
            {
                return FrameStatus.PAD_INCONSISTENT;
            }
        }
        else if (pad > dataAndPad || 0 != (dataAndPad & 3))
        {
            return FrameStatus.PAD_INCONSISTENT;
        }
        padCount = pad;
        payloadLength = dataAndPad - pad;

        if (verifyIcrc)
        {
            computedIcrc = computed;
            icrcVerified = true;
            final int carried = Icrc.read(buffer, icrcOffset);
            if (computed != carried)
            {
                // rxe's FLUSH ICRC (headers counted twice): named, and accepted when asked to
                if (Opcode.RC_FLUSH == opcode &&
                    carried == icrc.computeRxeFlush(buffer, ipOffset, ipVersion, ipHeaderLength, icrcOffset, bthOffset))
                {
                    rxeFlushIcrc = true;
                    if (acceptRxeFlushIcrc)
                    {
                        return FrameStatus.OK;
                    }
                }
                return FrameStatus.BAD_ICRC;
            }
        }
        return FrameStatus.OK;
    }

    /**
     * Stage the ICRC (fold the masked header bytes into its seed and feed that, Icrc.stageHeaders) as soon as the IP
     * header length is known, when the bytes it reads (up to BTH byte 4) are in the frame: the seed's short dependent
     * chain then runs alongside the IP and UDP checks instead of in front of the long CRC.
     *
     * @return true when staged.
     */
    private boolean stageIcrc(
        final MutableDirectBuffer buffer,
        final boolean verifyIcrc,
        final int ipOffset,
        final int ipAvailable,
        final int ipVersion,
        final int ipHeaderLength)
    {
        if (verifyIcrc && ipAvailable >= ipHeaderLength + UdpHeader.LENGTH + BthHeader.LENGTH)
        {
            icrc.stageHeaders(buffer, ipOffset, ipVersion, ipHeaderLength);
            return true;
        }
        return false;
    }

    /**
     * A problem found before the opcode: the view has no opcode. Only a changed reference is stored (see
     * HeaderFlyweight.wrap), so a good frame after a good frame stores no opcode at all.
     */
    private FrameStatus beforeOpcode(final FrameStatus status)
    {
        if (null != opcode)
        {
            opcode = null;
        }
        return status;
    }

    /**
     * @return the IPv4 options (header bytes 20 to ipHeaderLength) as a sum of unsigned 32-bit words.
     */
    private static long optionsSum(final MutableDirectBuffer buffer, final int ipOffset, final int ipHeaderLength)
    {
        long sum = 0;
        for (int i = Ipv4Header.LENGTH; i < ipHeaderLength; i += 4)
        {
            sum += buffer.getInt(ipOffset + i, BIG_ENDIAN) & 0xFFFF_FFFFL;
        }
        return sum;
    }

    /**
     * RFC 1071 header checksum verification from 32-bit words: the one's-complement sum of the header's 16-bit
     * words, checksum included, must be 0xFFFF. Since 2^16 = 1 modulo 0xFFFF, a 32-bit word counts as the sum of
     * its two halves, so the sum of at most 15 words (IHL 15) folds end-around-carry to the same 16-bit result:
     * 36 bits to at most 0xFFFF + 0xFFFFF, to at most 0xFFFF + 0x10, to at most 0xFFFF. 0x0000 comes out only for
     * an all-zero header, as with the 16-bit sum (Ipv4Header.isChecksumValid, which this matches bit for bit).
     *
     * @param sum of the header's unsigned 32-bit words.
     * @return true when the checksum is valid.
     */
    private static boolean isOnesComplementSumAllOnes(final long sum)
    {
        long folded = (sum & 0xFFFF) + (sum >>> 16);
        folded = (folded & 0xFFFF) + (folded >>> 16);
        folded = (folded & 0xFFFF) + (folded >>> 16);
        return 0xFFFF == folded;
    }

    private void wrapExtensionHeaders(
        final MutableDirectBuffer buffer, final Opcode opcode, final int extHeaders, final int bthOffset)
    {
        if (0 != (extHeaders & RETH_BIT))
        {
            reth.wrap(buffer, bthOffset + opcode.offsetOf(RETH_ORDINAL));
        }
        if (0 != (extHeaders & AETH_BIT))
        {
            aeth.wrap(buffer, bthOffset + opcode.offsetOf(AETH_ORDINAL));
        }
        if (0 != (extHeaders & ATOMIC_ETH_BIT))
        {
            atomicEth.wrap(buffer, bthOffset + opcode.offsetOf(ATOMIC_ETH_ORDINAL));
        }
        if (0 != (extHeaders & ATOMIC_ACK_ETH_BIT))
        {
            atomicAckEth.wrap(buffer, bthOffset + opcode.offsetOf(ATOMIC_ACK_ETH_ORDINAL));
        }
        if (0 != (extHeaders & DETH_BIT))
        {
            deth.wrap(buffer, bthOffset + opcode.offsetOf(DETH_ORDINAL));
        }
        if (0 != (extHeaders & IMM_DT_BIT))
        {
            immDt.wrap(buffer, bthOffset + opcode.offsetOf(IMM_DT_ORDINAL));
        }
        if (0 != (extHeaders & IETH_BIT))
        {
            ieth.wrap(buffer, bthOffset + opcode.offsetOf(IETH_ORDINAL));
        }
        if (0 != (extHeaders & FETH_BIT))
        {
            feth.wrap(buffer, bthOffset + opcode.offsetOf(FETH_ORDINAL));
        }
        if (0 != (extHeaders & CNP_RESERVED_BIT))
        {
            cnp.wrap(buffer, bthOffset + opcode.offsetOf(CNP_RESERVED_ORDINAL));
        }
    }

    /**
     * @return counters of every status this parser returned.
     */
    public FrameStatusCounters counters()
    {
        return counters;
    }
}
