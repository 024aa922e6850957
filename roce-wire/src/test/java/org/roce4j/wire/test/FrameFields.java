package org.roce4j.wire.test;

import org.roce4j.wire.Opcode;

/**
 * The field values of one frame made by {@link RandomFrames}: what a test expects a decoder (roce-wire's parser,
 * tshark, scapy) to read back. Fields the opcode does not carry keep their previous values and must be ignored.
 */
public final class FrameFields
{
    /** Opcode of the BTH. */
    public Opcode opcode;
    /** 4 or 6. */
    public int ipVersion;
    /** True when the frame has an 802.1Q tag. */
    public boolean vlan;
    /** 802.1Q priority, when tagged. */
    public int vlanPriority;
    /** 802.1Q VLAN id, when tagged. */
    public int vlanId;
    /** Destination MAC. */
    public long destinationMac;
    /** Source MAC. */
    public long sourceMac;
    /** IPv4 source address. */
    public int ipv4Source;
    /** IPv4 destination address. */
    public int ipv4Destination;
    /** IPv6 source, high 64 bits. */
    public long ipv6SourceHigh;
    /** IPv6 source, low 64 bits. */
    public long ipv6SourceLow;
    /** IPv6 destination, high 64 bits. */
    public long ipv6DestinationHigh;
    /** IPv6 destination, low 64 bits. */
    public long ipv6DestinationLow;
    /** IPv4 TOS or IPv6 traffic class. */
    public int trafficClass;
    /** IPv6 flow label. */
    public int flowLabel;
    /** IPv4 TTL or IPv6 hop limit. */
    public int hopLimit;
    /** IPv4 identification. */
    public int ipId;
    /** UDP source port. */
    public int udpSourcePort;
    /** BTH solicited event. */
    public boolean solicitedEvent;
    /** BTH MigReq. */
    public boolean migReq;
    /** BTH P_Key. */
    public int pkey;
    /** BTH FECN. */
    public boolean fecn;
    /** BTH BECN. */
    public boolean becn;
    /** BTH destination QP. */
    public int destQp;
    /** BTH AckReq. */
    public boolean ackReq;
    /** BTH PSN. */
    public int psn;
    /** RETH virtual address. */
    public long rethVa;
    /** RETH R_Key. */
    public int rethRkey;
    /** RETH DMA length, unsigned 32 bits. */
    public long rethDmaLength;
    /** AETH syndrome. */
    public int aethSyndrome;
    /** AETH MSN. */
    public int aethMsn;
    /** AtomicETH virtual address. */
    public long atomicVa;
    /** AtomicETH R_Key. */
    public int atomicRkey;
    /** AtomicETH swap or add data. */
    public long atomicSwapAdd;
    /** AtomicETH compare data. */
    public long atomicCompare;
    /** AtomicAckETH original remote data. */
    public long atomicOriginal;
    /** DETH Q_Key. */
    public int qkey;
    /** DETH source QP. */
    public int srcQp;
    /** Immediate data. */
    public int immediate;
    /** IETH R_Key. */
    public int iethRkey;
    /** FETH selectivity level. */
    public int fethSelectivity;
    /** FETH placement type. */
    public int fethPlacement;
    /** Payload bytes, without pad. */
    public int payloadLength;
    /** PadCnt the frame must carry: (-payloadLength) &amp; 3. */
    public int padCount;
    /** Frame length from the Ethernet header to the end of the ICRC. */
    public int frameLength;
    /** The ICRC the builder wrote, as read little-endian from the wire. */
    public int icrc;
}
