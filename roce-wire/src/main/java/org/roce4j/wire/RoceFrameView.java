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
 * What {@link RoceFrameParser} leaves after a parse: the offset of every header, the opcode, the payload and the
 * pad, the ICRC verdict, and every header's flyweight wrapped (the extension headers only for the opcode's). The
 * parser fills these fields as it reaches each part, so after a non-OK status the view holds what was parsed before
 * the problem and nothing after it. The one subclass is the parser; its users read the view through it.
 */
abstract sealed class RoceFrameView permits RoceFrameParser
{
    final EthernetHeader ethernet = new EthernetHeader();
    final Ipv4Header ipv4 = new Ipv4Header();
    final Ipv6Header ipv6 = new Ipv6Header();
    final UdpHeader udp = new UdpHeader();
    final BthHeader bth = new BthHeader();
    final RethHeader reth = new RethHeader();
    final AethHeader aeth = new AethHeader();
    final AtomicEthHeader atomicEth = new AtomicEthHeader();
    final AtomicAckEthHeader atomicAckEth = new AtomicAckEthHeader();
    final DethHeader deth = new DethHeader();
    final ImmDtHeader immDt = new ImmDtHeader();
    final IethHeader ieth = new IethHeader();
    final FethHeader feth = new FethHeader();
    final CnpHeader cnp = new CnpHeader();

    MutableDirectBuffer buffer;
    FrameStatus status = FrameStatus.TRUNCATED_ETHERNET;
    int frameOffset;
    int capturedLength;
    int etherType;
    int ipOffset;
    int ipVersion;
    int ipHeaderLength;
    int udpOffset;
    int bthOffset;
    Opcode opcode;
    int payloadOffset;
    int payloadLength;
    int padCount;
    int icrcOffset;
    int computedIcrc;
    boolean icrcVerified;
    boolean rxeFlushIcrc;

    RoceFrameView()
    {
    }

    /**
     * @return status of the last parse.
     */
    public FrameStatus status()
    {
        return status;
    }

    /**
     * @return buffer of the last parsed frame.
     */
    public MutableDirectBuffer buffer()
    {
        return buffer;
    }

    /**
     * @return offset of the Ethernet header.
     */
    public int frameOffset()
    {
        return frameOffset;
    }

    /**
     * @return bytes that were available for the frame.
     */
    public int capturedLength()
    {
        return capturedLength;
    }

    /**
     * @return length from the Ethernet header to the end of the ICRC (excludes Ethernet padding); valid after OK.
     */
    public int frameLength()
    {
        return icrcOffset + Icrc.LENGTH - frameOffset;
    }

    /**
     * @return the payload EtherType.
     */
    public int etherType()
    {
        return etherType;
    }

    /**
     * @return 4 or 6, or 0 when the frame is not IP.
     */
    public int ipVersion()
    {
        return ipVersion;
    }

    /**
     * @return offset of the IP header.
     */
    public int ipOffset()
    {
        return ipOffset;
    }

    /**
     * @return length of the IP header.
     */
    public int ipHeaderLength()
    {
        return ipHeaderLength;
    }

    /**
     * @return offset of the UDP header.
     */
    public int udpOffset()
    {
        return udpOffset;
    }

    /**
     * @return offset of the BTH.
     */
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

    /**
     * @return the opcode, or null when it was not reached or is unknown.
     */
    public Opcode opcode()
    {
        return opcode;
    }

    /**
     * @return offset of the payload.
     */
    public int payloadOffset()
    {
        return payloadOffset;
    }

    /**
     * @return payload length, without pad.
     */
    public int payloadLength()
    {
        return payloadLength;
    }

    /**
     * @return PadCnt of the packet.
     */
    public int padCount()
    {
        return padCount;
    }

    /**
     * @return offset of the ICRC trailer.
     */
    public int icrcOffset()
    {
        return icrcOffset;
    }

    /**
     * @return the ICRC the packet carries.
     */
    public int carriedIcrc()
    {
        return Icrc.read(buffer, icrcOffset);
    }

    /**
     * @return true when the last parse computed the ICRC.
     */
    public boolean icrcVerified()
    {
        return icrcVerified;
    }

    /**
     * @return true when the last frame parsed is an RC FLUSH whose ICRC is not the standard one but rxe's
     * ({@link Icrc#computeRxeFlush}): BAD_ICRC, or OK where the parser accepts rxe's FLUSH ICRC.
     */
    public boolean rxeFlushIcrc()
    {
        return rxeFlushIcrc;
    }

    /**
     * @return the ICRC computed by the last parse (valid when {@link #icrcVerified()}).
     */
    public int computedIcrc()
    {
        return computedIcrc;
    }

    /**
     * @return Ethernet header flyweight.
     */
    public EthernetHeader ethernet()
    {
        return ethernet;
    }

    /**
     * @return IPv4 header flyweight (when {@link #ipVersion()} is 4).
     */
    public Ipv4Header ipv4()
    {
        return ipv4;
    }

    /**
     * @return IPv6 header flyweight (when {@link #ipVersion()} is 6).
     */
    public Ipv6Header ipv6()
    {
        return ipv6;
    }

    /**
     * @return UDP header flyweight.
     */
    public UdpHeader udp()
    {
        return udp;
    }

    /**
     * @return BTH flyweight.
     */
    public BthHeader bth()
    {
        return bth;
    }

    /**
     * @return RETH flyweight (when the opcode carries one).
     */
    public RethHeader reth()
    {
        return reth;
    }

    /**
     * @return AETH flyweight (when the opcode carries one).
     */
    public AethHeader aeth()
    {
        return aeth;
    }

    /**
     * @return AtomicETH flyweight (when the opcode carries one).
     */
    public AtomicEthHeader atomicEth()
    {
        return atomicEth;
    }

    /**
     * @return AtomicAckETH flyweight (when the opcode carries one).
     */
    public AtomicAckEthHeader atomicAckEth()
    {
        return atomicAckEth;
    }

    /**
     * @return DETH flyweight (when the opcode carries one).
     */
    public DethHeader deth()
    {
        return deth;
    }

    /**
     * @return ImmDt flyweight (when the opcode carries one).
     */
    public ImmDtHeader immDt()
    {
        return immDt;
    }

    /**
     * @return IETH flyweight (when the opcode carries one).
     */
    public IethHeader ieth()
    {
        return ieth;
    }

    /**
     * @return FETH flyweight (when the opcode carries one).
     */
    public FethHeader feth()
    {
        return feth;
    }

    /**
     * @return CNP reserved-bytes flyweight (for a CNP).
     */
    public CnpHeader cnp()
    {
        return cnp;
    }
}
