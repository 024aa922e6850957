package org.roce4j.wire;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.roce4j.wire.header.AethHeader;
import org.roce4j.wire.header.AtomicAckEthHeader;
import org.roce4j.wire.header.AtomicEthHeader;
import org.roce4j.wire.header.BthHeader;
import org.roce4j.wire.header.CnpHeader;
import org.roce4j.wire.header.DethHeader;
import org.roce4j.wire.header.EthernetHeader;
import org.roce4j.wire.header.FethHeader;
import org.roce4j.wire.header.IethHeader;
import org.roce4j.wire.header.ImmDtHeader;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.header.Ipv6Header;
import org.roce4j.wire.header.RethHeader;
import org.roce4j.wire.header.UdpHeader;

import static java.nio.ByteOrder.BIG_ENDIAN;

/**
 * Builds a whole RoCEv2 frame into a caller's buffer in one pass: Ethernet (optionally 802.1Q tagged), IPv4 or
 * IPv6, UDP to port 4791, BTH, the opcode's extension headers, payload, pad and ICRC.
 *
 * <p>Call in wire order: {@link #wrap}, {@link #ethernet}, {@link #ipv4} or {@link #ipv6}, {@link #udp},
 * {@link #bth}, then set extension-header fields through their flyweights ({@link #reth()}, {@link #aeth()}, ...),
 * then {@link #payload} (or write at {@link #payloadOffset()} and call {@link #payloadLength(int)}), then
 * {@link #finish()}. Each step writes every byte of its header with a sensible default (TTL 64, DF set, IPv4 ID 0,
 * UDP checksum 0, P_Key 0xFFFF, flags clear, extension headers zeroed), so stale buffer contents never leak;
 * change any field through the header flyweights before {@link #finish()}. {@code finish()} fills in PadCnt and
 * the pad bytes, the IP and UDP lengths, the IPv4 header checksum and the ICRC.
 *
 * <p>Calling steps out of order is a programming error and throws {@link IllegalStateException} naming the step.
 * Nothing allocates. Not thread safe: one builder per send path.
 */
public final class RoceFrameBuilder
{
    private static final int STAGE_WRAPPED = 0;
    private static final int STAGE_ETHERNET = 1;
    private static final int STAGE_IP = 2;
    private static final int STAGE_UDP = 3;
    private static final int STAGE_BTH = 4;
    private static final int STAGE_PAYLOAD = 5;
    private static final int STAGE_DONE = 6;
    private static final String[] STAGE_NAMES = {"wrap", "ethernet", "ipv4/ipv6", "udp", "bth", "payload", "finish"};

    /** Hop limit / TTL written by default; rxe uses the address handle's hop limit, 64 for UD pingpong. */
    public static final int DEFAULT_TTL = 64;

    private final EthernetHeader ethernet = new EthernetHeader();
    private final Ipv4Header ipv4 = new Ipv4Header();
    private final Ipv6Header ipv6 = new Ipv6Header();
    private final UdpHeader udp = new UdpHeader();
    private final BthHeader bth = new BthHeader();
    private final RethHeader reth = new RethHeader();
    private final AethHeader aeth = new AethHeader();
    private final AtomicEthHeader atomicEth = new AtomicEthHeader();
    private final AtomicAckEthHeader atomicAckEth = new AtomicAckEthHeader();
    private final DethHeader deth = new DethHeader();
    private final ImmDtHeader immDt = new ImmDtHeader();
    private final IethHeader ieth = new IethHeader();
    private final FethHeader feth = new FethHeader();
    private final CnpHeader cnp = new CnpHeader();
    private final Icrc icrc = new Icrc();

    private MutableDirectBuffer buffer;
    private int stage = STAGE_DONE;
    private int frameOffset;
    private boolean vlanTagged;
    private int ipOffset;
    private int ipVersion;
    private int udpOffset;
    private int bthOffset;
    private Opcode opcode;
    private boolean rxeFlushIcrc;
    private int payloadOffset;
    private int payloadLength;

    /**
     * Start a frame.
     *
     * @param buffer to build into; it must have room for the whole frame.
     * @param offset where the Ethernet header starts.
     * @return this.
     */
    public RoceFrameBuilder wrap(final MutableDirectBuffer buffer, final int offset)
    {
        this.buffer = buffer;
        this.frameOffset = offset;
        this.opcode = null;
        this.payloadLength = 0;
        this.stage = STAGE_WRAPPED;
        return this;
    }

    /**
     * Untagged Ethernet II header; the EtherType is written by {@link #ipv4} or {@link #ipv6}.
     *
     * @param destination MAC in the low 48 bits.
     * @param source      MAC in the low 48 bits.
     * @return this.
     */
    public RoceFrameBuilder ethernet(final long destination, final long source)
    {
        expect(STAGE_WRAPPED);
        ethernet.wrap(buffer, frameOffset);
        // The two MACs as 8 + 4 bytes (two stores instead of four): destination and the source's top 16 bits,
        // then the source's low 32 bits.
        buffer.putLong(frameOffset, (destination << 16) | ((source >>> 32) & 0xFFFF), BIG_ENDIAN);
        buffer.putInt(frameOffset + EthernetHeader.SOURCE_OFFSET + 2, (int)source, BIG_ENDIAN);
        vlanTagged = false;
        ipOffset = frameOffset + EthernetHeader.LENGTH;
        stage = STAGE_ETHERNET;
        return this;
    }

    /**
     * Ethernet II header with an 802.1Q tag; the inner EtherType is written by {@link #ipv4} or {@link #ipv6}.
     *
     * @param destination MAC in the low 48 bits.
     * @param source      MAC in the low 48 bits.
     * @param priority    PCP, 0..7.
     * @param vlanId      VID, 0..4095.
     * @return this.
     */
    public RoceFrameBuilder ethernet(final long destination, final long source, final int priority, final int vlanId)
    {
        expect(STAGE_WRAPPED);
        ethernet.wrap(buffer, frameOffset).destination(destination).source(source)
            .vlanTag(priority, false, vlanId, 0);
        vlanTagged = true;
        ipOffset = frameOffset + EthernetHeader.VLAN_LENGTH;
        stage = STAGE_ETHERNET;
        return this;
    }

    /**
     * IPv4 header without options: TOS 0, ID 0, DF set, TTL 64, protocol UDP. Lengths and checksum come in
     * {@link #finish()}.
     *
     * @param source      address as a big-endian int.
     * @param destination address as a big-endian int.
     * @return this.
     */
    public RoceFrameBuilder ipv4(final int source, final int destination)
    {
        return ipv4(source, destination, 0, DEFAULT_TTL);
    }

    /**
     * IPv4 header without options: ID 0, DF set, protocol UDP, the given TOS and TTL. Lengths and checksum come in
     * {@link #finish()}.
     *
     * @param source      address as a big-endian int.
     * @param destination address as a big-endian int.
     * @param tos         DSCP and ECN byte, 0..255.
     * @param ttl         time to live, 0..255.
     * @return this.
     */
    public RoceFrameBuilder ipv4(final int source, final int destination, final int tos, final int ttl)
    {
        expect(STAGE_ETHERNET);
        writeEtherType(EthernetHeader.ETHERTYPE_IPV4);
        ipv4.wrap(buffer, ipOffset);
        // RFC 791 header as its five 32-bit words (one store each instead of a store per field): version 4 and
        // IHL 5 words | TOS | total length (0 until finish()); ID 0 | DF, fragment offset 0; TTL | protocol |
        // checksum (0 until finish()); source; destination.
        final int at = ipOffset;
        buffer.putInt(at, (4 << 28) | ((Ipv4Header.LENGTH / 4) << 24) | ((tos & 0xFF) << 16), BIG_ENDIAN);
        buffer.putInt(at + Ipv4Header.IDENTIFICATION_OFFSET, Ipv4Header.FLAG_DONT_FRAGMENT, BIG_ENDIAN);
        buffer.putInt(at + Ipv4Header.TTL_OFFSET, ((ttl & 0xFF) << 24) | (Ipv4Header.PROTOCOL_UDP << 16),
            BIG_ENDIAN);
        buffer.putInt(at + Ipv4Header.SOURCE_OFFSET, source, BIG_ENDIAN);
        buffer.putInt(at + Ipv4Header.DESTINATION_OFFSET, destination, BIG_ENDIAN);
        ipVersion = 4;
        udpOffset = ipOffset + Ipv4Header.LENGTH;
        stage = STAGE_IP;
        return this;
    }

    /**
     * IPv6 header: traffic class 0, flow label 0 (as rxe), hop limit 64, next header UDP.
     *
     * @param sourceHigh      high 64 bits of the source address.
     * @param sourceLow       low 64 bits of the source address.
     * @param destinationHigh high 64 bits of the destination address.
     * @param destinationLow  low 64 bits of the destination address.
     * @return this.
     */
    public RoceFrameBuilder ipv6(
        final long sourceHigh, final long sourceLow, final long destinationHigh, final long destinationLow)
    {
        expect(STAGE_ETHERNET);
        writeEtherType(EthernetHeader.ETHERTYPE_IPV6);
        ipv6.wrap(buffer, ipOffset)
            .versionClassFlow(0, 0)
            .payloadLength(0)
            .nextHeader(Ipv6Header.NEXT_HEADER_UDP)
            .hopLimit(DEFAULT_TTL)
            .source(sourceHigh, sourceLow)
            .destination(destinationHigh, destinationLow);
        ipVersion = 6;
        udpOffset = ipOffset + Ipv6Header.LENGTH;
        stage = STAGE_IP;
        return this;
    }

    /**
     * UDP header to port 4791 with checksum 0 (the ICRC protects the packet, as rxe does).
     *
     * @param sourcePort rxe uses 0xC000 + a hash of the QPN; any value is accepted by receivers.
     * @return this.
     */
    public RoceFrameBuilder udp(final int sourcePort)
    {
        expect(STAGE_IP);
        udp.wrap(buffer, udpOffset);
        // Two 32-bit words: source port | destination port; length (0 until finish()) | checksum 0.
        buffer.putInt(udpOffset, ((sourcePort & 0xFFFF) << 16) | UdpHeader.ROCE_V2_PORT, BIG_ENDIAN);
        buffer.putInt(udpOffset + UdpHeader.LENGTH_OFFSET, 0, BIG_ENDIAN);
        bthOffset = udpOffset + UdpHeader.LENGTH;
        stage = STAGE_UDP;
        return this;
    }

    /**
     * BTH with P_Key 0xFFFF and every flag clear, and the opcode's extension headers zeroed and wrapped.
     *
     * @param opcode the packet's opcode.
     * @param destQp destination QP, 24 bits.
     * @param psn    packet sequence number, 24 bits.
     * @return this.
     */
    public RoceFrameBuilder bth(final Opcode opcode, final int destQp, final int psn)
    {
        expect(STAGE_UDP);
        if (null == opcode)
        {
            throw new IllegalArgumentException("bth() needs an opcode, got null");
        }
        this.opcode = opcode;
        bth.wrap(buffer, bthOffset);
        // IBA 5.2.1 BTH first word: opcode | SE, M, PadCnt, TVer all 0 | P_Key, in one 32-bit store.
        buffer.putInt(bthOffset, ((opcode.code() & 0xFF) << 24) | BthHeader.DEFAULT_PKEY, BIG_ENDIAN);
        // Byte 4 (FECN/BECN/Resv6a) and byte 8 (AckReq/Resv7) are written whole by the 32-bit stores.
        buffer.putInt(bthOffset + BthHeader.FECN_BECN_OFFSET, destQp & BthHeader.MASK_24, BIG_ENDIAN);
        buffer.putInt(bthOffset + BthHeader.ACK_REQ_OFFSET, psn & BthHeader.MASK_24, BIG_ENDIAN);
        // Zero the extension headers. They are whole 32-bit words (IBA 5.2: every header is a multiple of 4 bytes,
        // 4 to 28 here), and a few int stores beat setMemory's native call at these lengths.
        final int extStart = bthOffset + BthHeader.LENGTH;
        final int extEnd = bthOffset + opcode.headerLength();
        int zeroAt = extStart;
        for (; zeroAt + Integer.BYTES <= extEnd; zeroAt += Integer.BYTES)
        {
            buffer.putInt(zeroAt, 0);
        }
        for (; zeroAt < extEnd; zeroAt++)
        {
            buffer.putByte(zeroAt, (byte)0);
        }
        payloadOffset = bthOffset + opcode.headerLength();
        payloadLength = 0;
        stage = STAGE_BTH;
        return this;
    }

    /**
     * Copy the payload in.
     *
     * @param source       holding the payload.
     * @param sourceOffset of the payload.
     * @param length       of the payload in bytes.
     * @return this.
     */
    public RoceFrameBuilder payload(final DirectBuffer source, final int sourceOffset, final int length)
    {
        checkPayload(length);
        if (length > 0)
        {
            buffer.putBytes(payloadOffset, source, sourceOffset, length);
        }
        payloadLength = length;
        stage = STAGE_PAYLOAD;
        return this;
    }

    /**
     * Declare a payload the caller wrote directly at {@link #payloadOffset()} (no copy).
     *
     * @param length of the payload in bytes.
     * @return this.
     */
    public RoceFrameBuilder payloadLength(final int length)
    {
        checkPayload(length);
        payloadLength = length;
        stage = STAGE_PAYLOAD;
        return this;
    }

    /**
     * Seal RC FLUSH frames with rxe's ICRC ({@link Icrc#computeRxeFlush}) instead of the standard one, so that rxe
     * (which checks FLUSH with its own computation) accepts them. Off by default; every other opcode is unaffected.
     *
     * @param rxe true for rxe's FLUSH ICRC.
     * @return this.
     */
    public RoceFrameBuilder rxeFlushIcrc(final boolean rxe)
    {
        this.rxeFlushIcrc = rxe;
        return this;
    }

    /**
     * Complete the frame: pad, PadCnt, lengths, IPv4 checksum and ICRC.
     *
     * @return length of the frame from the Ethernet header to the end of the ICRC.
     */
    public int finish()
    {
        if (STAGE_BTH != stage && STAGE_PAYLOAD != stage)
        {
            throw new IllegalStateException("finish() needs bth() first; last step was " + STAGE_NAMES[stage]);
        }
        final int pad = (-payloadLength) & 3;
        final int padOffset = payloadOffset + payloadLength;
        for (int i = 0; i < pad; i++)
        {
            buffer.putByte(padOffset + i, (byte)0);
        }
        bth.padCount(pad);
        final int icrcOffset = padOffset + pad;
        final int end = icrcOffset + Icrc.LENGTH;
        udp.datagramLength(end - udpOffset);
        final int ipHeaderLength;
        if (4 == ipVersion)
        {
            ipHeaderLength = Ipv4Header.LENGTH;
            ipv4.totalLength(end - ipOffset).updateChecksum();
        }
        else
        {
            ipHeaderLength = Ipv6Header.LENGTH;
            ipv6.payloadLength(end - udpOffset);
        }
        if (rxeFlushIcrc && Opcode.RC_FLUSH == opcode)
        {
            Icrc.write(buffer, icrcOffset,
                icrc.computeRxeFlush(buffer, ipOffset, ipVersion, ipHeaderLength, icrcOffset, bthOffset));
        }
        else
        {
            icrc.seal(buffer, ipOffset, ipVersion, ipHeaderLength, icrcOffset);
        }
        stage = STAGE_DONE;
        return end - frameOffset;
    }

    /**
     * @return where the payload starts; valid after {@link #bth}.
     */
    public int payloadOffset()
    {
        return payloadOffset;
    }

    /**
     * @return the opcode given to {@link #bth}.
     */
    public Opcode opcode()
    {
        return opcode;
    }

    /**
     * @return offset of the BTH; valid after {@link #udp}.
     */
    public int bthOffset()
    {
        return bthOffset;
    }

    /**
     * @return offset of the IP header; valid after {@link #ethernet}.
     */
    public int ipOffset()
    {
        return ipOffset;
    }

    /**
     * @return Ethernet flyweight over the frame being built.
     */
    public EthernetHeader ethernetHeader()
    {
        return ethernet;
    }

    /**
     * @return IPv4 flyweight, to change TOS, TTL, ID or flags before {@link #finish()}.
     */
    public Ipv4Header ipv4Header()
    {
        if (4 != ipVersion || stage < STAGE_IP)
        {
            throw new IllegalStateException("no IPv4 header in this frame yet");
        }
        return ipv4;
    }

    /**
     * @return IPv6 flyweight, to change traffic class, flow label or hop limit before {@link #finish()}.
     */
    public Ipv6Header ipv6Header()
    {
        if (6 != ipVersion || stage < STAGE_IP)
        {
            throw new IllegalStateException("no IPv6 header in this frame yet");
        }
        return ipv6;
    }

    /**
     * @return UDP flyweight.
     */
    public UdpHeader udpHeader()
    {
        if (stage < STAGE_UDP)
        {
            throw new IllegalStateException("no UDP header in this frame yet");
        }
        return udp;
    }

    /**
     * @return BTH flyweight, to set AckReq, SE, MigReq, BECN, P_Key...
     */
    public BthHeader bthHeader()
    {
        if (stage < STAGE_BTH)
        {
            throw new IllegalStateException("no BTH in this frame yet");
        }
        return bth;
    }

    /**
     * @return RETH flyweight of this frame.
     */
    public RethHeader reth()
    {
        return reth.wrap(buffer, extOffset(ExtHeader.RETH));
    }

    /**
     * @return AETH flyweight of this frame.
     */
    public AethHeader aeth()
    {
        return aeth.wrap(buffer, extOffset(ExtHeader.AETH));
    }

    /**
     * @return AtomicETH flyweight of this frame.
     */
    public AtomicEthHeader atomicEth()
    {
        return atomicEth.wrap(buffer, extOffset(ExtHeader.ATOMIC_ETH));
    }

    /**
     * @return AtomicAckETH flyweight of this frame.
     */
    public AtomicAckEthHeader atomicAckEth()
    {
        return atomicAckEth.wrap(buffer, extOffset(ExtHeader.ATOMIC_ACK_ETH));
    }

    /**
     * @return DETH flyweight of this frame.
     */
    public DethHeader deth()
    {
        return deth.wrap(buffer, extOffset(ExtHeader.DETH));
    }

    /**
     * @return ImmDt flyweight of this frame.
     */
    public ImmDtHeader immDt()
    {
        return immDt.wrap(buffer, extOffset(ExtHeader.IMM_DT));
    }

    /**
     * @return IETH flyweight of this frame.
     */
    public IethHeader ieth()
    {
        return ieth.wrap(buffer, extOffset(ExtHeader.IETH));
    }

    /**
     * @return FETH flyweight of this frame.
     */
    public FethHeader feth()
    {
        return feth.wrap(buffer, extOffset(ExtHeader.FETH));
    }

    /**
     * @return CNP reserved-bytes flyweight of this frame.
     */
    public CnpHeader cnp()
    {
        return cnp.wrap(buffer, extOffset(ExtHeader.CNP_RESERVED));
    }

    private int extOffset(final ExtHeader header)
    {
        if (stage < STAGE_BTH || STAGE_DONE == stage)
        {
            throw new IllegalStateException(header + " is set between bth() and finish()");
        }
        final int relative = opcode.offsetOf(header);
        if (relative < 0)
        {
            throw new IllegalStateException("opcode " + opcode + " has no " + header);
        }
        return bthOffset + relative;
    }

    private void writeEtherType(final int etherType)
    {
        if (vlanTagged)
        {
            buffer.putShort(frameOffset + EthernetHeader.INNER_TYPE_OFFSET, (short)etherType,
                BIG_ENDIAN);
        }
        else
        {
            ethernet.etherType(etherType);
        }
    }

    private void checkPayload(final int length)
    {
        if (STAGE_BTH != stage)
        {
            throw new IllegalStateException("payload comes right after bth(); last step was " + STAGE_NAMES[stage]);
        }
        if (length < 0)
        {
            throw new IllegalArgumentException("payload length must be >= 0, got " + length);
        }
        if (length > 0 && !opcode.hasPayload())
        {
            throw new IllegalArgumentException("opcode " + opcode + " carries no payload, got " + length + " bytes");
        }
        // The IPv4 total length and the IPv6 payload length are 16-bit fields: a longer packet cannot be described.
        final long end = (long)payloadOffset + length + ((-length) & 3) + Icrc.LENGTH;
        final long lengthField = end - (4 == ipVersion ? ipOffset : udpOffset);
        if (lengthField > 0xFFFF)
        {
            throw new IllegalArgumentException("payload of " + length + " bytes makes the IPv" + ipVersion +
                " length " + lengthField + ", more than 65535");
        }
    }

    private void expect(final int expectedPrevious)
    {
        if (stage != expectedPrevious)
        {
            throw new IllegalStateException(
                STAGE_NAMES[expectedPrevious + 1] + "() must follow " + STAGE_NAMES[expectedPrevious] +
                "(); last step was " + STAGE_NAMES[stage]);
        }
    }
}
