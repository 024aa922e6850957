package org.roce4j.wire;

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

/**
 * Test oracle: {@code RoceFrameParser} as it was at commit 1f54666 (before the parse path was tuned for speed), kept
 * verbatim apart from its name, its {@link ReferenceIcrc} and its accessors' Javadoc, written on one line each to keep
 * the class under the house limit of ~600 lines (the parse itself is untouched). ParserDifferentialTest parses
 * millions of mutated frames with both and requires the same status, the same view and the same counters.
 *
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
public final class ReferenceRoceFrameParser
{
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
    private final ReferenceIcrc icrc = new ReferenceIcrc();
    private final FrameStatusCounters counters;

    private MutableDirectBuffer buffer;
    private FrameStatus status = FrameStatus.TRUNCATED_ETHERNET;
    private int frameOffset;
    private int capturedLength;
    private int etherType;
    private int ipOffset;
    private int ipVersion;
    private int ipHeaderLength;
    private int udpOffset;
    private int bthOffset;
    private Opcode opcode;
    private int payloadOffset;
    private int payloadLength;
    private int padCount;
    private int icrcOffset;
    private int computedIcrc;
    private boolean icrcVerified;

    /**
     * A parser with its own counters.
     */
    public ReferenceRoceFrameParser()
    {
        this(new FrameStatusCounters());
    }

    /**
     * A parser that counts into shared counters (single writer: only this parser's thread may update them).
     *
     * @param counters to count every parsed frame's status in.
     */
    public ReferenceRoceFrameParser(final FrameStatusCounters counters)
    {
        this.counters = counters;
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
        status = result;
        counters.increment(result);
        return result;
    }

    private FrameStatus doParse(
        final MutableDirectBuffer buffer, final int offset, final int length, final boolean verifyIcrc)
    {
        this.buffer = buffer;
        this.frameOffset = offset;
        this.capturedLength = length;
        this.opcode = null;
        this.ipVersion = 0;
        this.icrcVerified = false;
        this.payloadLength = 0;
        this.padCount = 0;

        if (length < EthernetHeader.LENGTH)
        {
            return FrameStatus.TRUNCATED_ETHERNET;
        }
        ethernet.wrap(buffer, offset);
        final int ethernetLength = ethernet.length();
        if (length < ethernetLength)
        {
            return FrameStatus.TRUNCATED_ETHERNET;
        }
        etherType = ethernet.etherType();
        ipOffset = offset + ethernetLength;
        final int ipAvailable = length - ethernetLength;

        final int ipPayloadLength;
        if (EthernetHeader.ETHERTYPE_IPV4 == etherType)
        {
            ipVersion = 4;
            if (ipAvailable < Ipv4Header.LENGTH)
            {
                return FrameStatus.TRUNCATED_IP;
            }
            ipv4.wrap(buffer, ipOffset);
            if (4 != ipv4.version())
            {
                return FrameStatus.BAD_IP_VERSION;
            }
            ipHeaderLength = ipv4.length();
            if (ipHeaderLength < Ipv4Header.LENGTH)
            {
                return FrameStatus.BAD_IP_HEADER_LENGTH;
            }
            if (ipAvailable < ipHeaderLength)
            {
                return FrameStatus.TRUNCATED_IP;
            }
            final int totalLength = ipv4.totalLength();
            if (totalLength > ipAvailable || totalLength < ipHeaderLength)
            {
                return FrameStatus.IP_LENGTH_MISMATCH;
            }
            if (!ipv4.isChecksumValid())
            {
                return FrameStatus.BAD_IP_CHECKSUM;
            }
            if (ipv4.moreFragments() || 0 != ipv4.fragmentOffset())
            {
                return FrameStatus.IP_FRAGMENT;
            }
            if (Ipv4Header.PROTOCOL_UDP != ipv4.protocol())
            {
                return FrameStatus.NOT_UDP;
            }
            ipPayloadLength = totalLength - ipHeaderLength;
        }
        else if (EthernetHeader.ETHERTYPE_IPV6 == etherType)
        {
            ipVersion = 6;
            if (ipAvailable < Ipv6Header.LENGTH)
            {
                return FrameStatus.TRUNCATED_IP;
            }
            ipv6.wrap(buffer, ipOffset);
            if (6 != ipv6.version())
            {
                return FrameStatus.BAD_IP_VERSION;
            }
            ipHeaderLength = Ipv6Header.LENGTH;
            ipPayloadLength = ipv6.payloadLength();
            if (ipPayloadLength > ipAvailable - Ipv6Header.LENGTH)
            {
                return FrameStatus.IP_LENGTH_MISMATCH;
            }
            if (Ipv6Header.NEXT_HEADER_UDP != ipv6.nextHeader())
            {
                return FrameStatus.NOT_UDP;
            }
        }
        else
        {
            return FrameStatus.NOT_IP;
        }

        udpOffset = ipOffset + ipHeaderLength;
        if (ipPayloadLength < UdpHeader.LENGTH)
        {
            return FrameStatus.TRUNCATED_UDP;
        }
        udp.wrap(buffer, udpOffset);
        if (UdpHeader.ROCE_V2_PORT != udp.destinationPort())
        {
            return FrameStatus.NOT_ROCE_PORT;
        }
        // Stage the ICRC's masked headers now and run the CRC last: the checks in between hide the wait of the CRC's
        // vector loads for the bytes just stored (see Icrc.stageHeaders).
        final boolean icrcStaged = verifyIcrc && ipAvailable >= ipHeaderLength + UdpHeader.LENGTH + BthHeader.LENGTH;
        if (icrcStaged)
        {
            icrc.stageHeaders(buffer, ipOffset, ipVersion, ipHeaderLength);
        }
        final int udpLength = udp.datagramLength();
        if (udpLength != ipPayloadLength)
        {
            return FrameStatus.UDP_LENGTH_MISMATCH;
        }

        bthOffset = udpOffset + UdpHeader.LENGTH;
        final int roceLength = udpLength - UdpHeader.LENGTH;
        if (roceLength < BthHeader.LENGTH + Icrc.LENGTH)
        {
            return FrameStatus.TRUNCATED_BTH;
        }
        bth.wrap(buffer, bthOffset);
        final Opcode opcode = Opcode.of(bth.opcode());
        if (null == opcode)
        {
            return FrameStatus.UNKNOWN_OPCODE;
        }
        this.opcode = opcode;
        if (0 != bth.transportVersion())
        {
            return FrameStatus.BAD_TRANSPORT_VERSION;
        }
        final int headerLength = opcode.headerLength();
        if (roceLength < headerLength + Icrc.LENGTH)
        {
            return FrameStatus.TRUNCATED_HEADERS;
        }
        wrapExtensionHeaders(buffer, opcode);

        payloadOffset = bthOffset + headerLength;
        icrcOffset = bthOffset + roceLength - Icrc.LENGTH;
        final int dataAndPad = icrcOffset - payloadOffset;
        final int pad = bth.padCount();
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
            // Staged is always true here: reaching this point needs a UDP length of at least 8 + 12 + 4 bytes.
            computedIcrc = icrcStaged ?
                icrc.computeStaged(buffer, icrcOffset) :
                icrc.compute(buffer, ipOffset, ipVersion, ipHeaderLength, icrcOffset);
            icrcVerified = true;
            if (computedIcrc != Icrc.read(buffer, icrcOffset))
            {
                return FrameStatus.BAD_ICRC;
            }
        }
        return FrameStatus.OK;
    }

    private void wrapExtensionHeaders(final MutableDirectBuffer buffer, final Opcode opcode)
    {
        final int base = bthOffset;
        for (int i = 0, n = opcode.extHeaderCount(); i < n; i++)
        {
            final ExtHeader header = opcode.extHeader(i);
            final int at = base + opcode.offsetOf(header);
            switch (header)
            {
                case RETH:
                    reth.wrap(buffer, at);
                    break;
                case AETH:
                    aeth.wrap(buffer, at);
                    break;
                case ATOMIC_ETH:
                    atomicEth.wrap(buffer, at);
                    break;
                case ATOMIC_ACK_ETH:
                    atomicAckEth.wrap(buffer, at);
                    break;
                case DETH:
                    deth.wrap(buffer, at);
                    break;
                case IMM_DT:
                    immDt.wrap(buffer, at);
                    break;
                case IETH:
                    ieth.wrap(buffer, at);
                    break;
                case FETH:
                    feth.wrap(buffer, at);
                    break;
                case CNP_RESERVED:
                    cnp.wrap(buffer, at);
                    break;
                default:
                    throw new IllegalStateException("extension header without a flyweight: " + header);
            }
        }
    }

    /** @return counters of every status this parser returned. */
    public FrameStatusCounters counters()
    {
        return counters;
    }

    /** @return status of the last parse. */
    public FrameStatus status()
    {
        return status;
    }

    /** @return buffer of the last parsed frame. */
    public MutableDirectBuffer buffer()
    {
        return buffer;
    }

    /** @return offset of the Ethernet header. */
    public int frameOffset()
    {
        return frameOffset;
    }

    /** @return bytes that were available for the frame. */
    public int capturedLength()
    {
        return capturedLength;
    }

    /** @return length from the Ethernet header to the end of the ICRC (excludes Ethernet padding); valid after OK. */
    public int frameLength()
    {
        return icrcOffset + Icrc.LENGTH - frameOffset;
    }

    /** @return the payload EtherType. */
    public int etherType()
    {
        return etherType;
    }

    /** @return 4 or 6, or 0 when the frame is not IP. */
    public int ipVersion()
    {
        return ipVersion;
    }

    /** @return offset of the IP header. */
    public int ipOffset()
    {
        return ipOffset;
    }

    /** @return length of the IP header. */
    public int ipHeaderLength()
    {
        return ipHeaderLength;
    }

    /** @return offset of the UDP header. */
    public int udpOffset()
    {
        return udpOffset;
    }

    /** @return offset of the BTH. */
    public int bthOffset()
    {
        return bthOffset;
    }

    /**
     * @param header an extension header kind.
     * @return its offset in the buffer, or -1 when the opcode does not carry it.
     */
    public int extOffset(final ExtHeader header)
    {
        final int relative = null == opcode ? -1 : opcode.offsetOf(header);
        return relative < 0 ? -1 : bthOffset + relative;
    }

    /** @return the opcode, or null when it was not reached or is unknown. */
    public Opcode opcode()
    {
        return opcode;
    }

    /** @return offset of the payload. */
    public int payloadOffset()
    {
        return payloadOffset;
    }

    /** @return payload length, without pad. */
    public int payloadLength()
    {
        return payloadLength;
    }

    /** @return PadCnt of the packet. */
    public int padCount()
    {
        return padCount;
    }

    /** @return offset of the ICRC trailer. */
    public int icrcOffset()
    {
        return icrcOffset;
    }

    /** @return the ICRC the packet carries. */
    public int carriedIcrc()
    {
        return Icrc.read(buffer, icrcOffset);
    }

    /** @return true when the last parse computed the ICRC. */
    public boolean icrcVerified()
    {
        return icrcVerified;
    }

    /** @return the ICRC computed by the last parse (valid when {@link #icrcVerified()}). */
    public int computedIcrc()
    {
        return computedIcrc;
    }

    /** @return Ethernet header flyweight. */
    public EthernetHeader ethernet()
    {
        return ethernet;
    }

    /** @return IPv4 header flyweight (when {@link #ipVersion()} is 4). */
    public Ipv4Header ipv4()
    {
        return ipv4;
    }

    /** @return IPv6 header flyweight (when {@link #ipVersion()} is 6). */
    public Ipv6Header ipv6()
    {
        return ipv6;
    }

    /** @return UDP header flyweight. */
    public UdpHeader udp()
    {
        return udp;
    }

    /** @return BTH flyweight. */
    public BthHeader bth()
    {
        return bth;
    }

    /** @return RETH flyweight (when the opcode carries one). */
    public RethHeader reth()
    {
        return reth;
    }

    /** @return AETH flyweight (when the opcode carries one). */
    public AethHeader aeth()
    {
        return aeth;
    }

    /** @return AtomicETH flyweight (when the opcode carries one). */
    public AtomicEthHeader atomicEth()
    {
        return atomicEth;
    }

    /** @return AtomicAckETH flyweight (when the opcode carries one). */
    public AtomicAckEthHeader atomicAckEth()
    {
        return atomicAckEth;
    }

    /** @return DETH flyweight (when the opcode carries one). */
    public DethHeader deth()
    {
        return deth;
    }

    /** @return ImmDt flyweight (when the opcode carries one). */
    public ImmDtHeader immDt()
    {
        return immDt;
    }

    /** @return IETH flyweight (when the opcode carries one). */
    public IethHeader ieth()
    {
        return ieth;
    }

    /** @return FETH flyweight (when the opcode carries one). */
    public FethHeader feth()
    {
        return feth;
    }

    /** @return CNP reserved-bytes flyweight (for a CNP). */
    public CnpHeader cnp()
    {
        return cnp;
    }
}
