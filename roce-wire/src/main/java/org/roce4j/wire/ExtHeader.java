package org.roce4j.wire;

import org.roce4j.wire.header.AethHeader;
import org.roce4j.wire.header.AtomicAckEthHeader;
import org.roce4j.wire.header.AtomicEthHeader;
import org.roce4j.wire.header.CnpHeader;
import org.roce4j.wire.header.DethHeader;
import org.roce4j.wire.header.FethHeader;
import org.roce4j.wire.header.IethHeader;
import org.roce4j.wire.header.ImmDtHeader;
import org.roce4j.wire.header.RethHeader;

/**
 * The extension transport headers that may follow the BTH, with their lengths (IBA 9.3; rxe_hdr.h enum
 * rxe_hdr_length). Which ones an opcode carries, and in what order, is in {@link Opcode}.
 */
public enum ExtHeader
{
    /** RDMA ETH: VA, R_Key, DMA length. */
    RETH(RethHeader.LENGTH),
    /** ACK ETH: syndrome and MSN. */
    AETH(AethHeader.LENGTH),
    /** Atomic ETH: VA, R_Key, swap/add, compare. */
    ATOMIC_ETH(AtomicEthHeader.LENGTH),
    /** Atomic acknowledge ETH: original remote data. */
    ATOMIC_ACK_ETH(AtomicAckEthHeader.LENGTH),
    /** Datagram ETH: Q_Key and source QP. */
    DETH(DethHeader.LENGTH),
    /** Immediate data. */
    IMM_DT(ImmDtHeader.LENGTH),
    /** Invalidate ETH: R_Key to invalidate. */
    IETH(IethHeader.LENGTH),
    /** Flush ETH: selectivity and placement type. */
    FETH(FethHeader.LENGTH),
    /** The 16 reserved bytes of a RoCEv2 CNP. */
    CNP_RESERVED(CnpHeader.LENGTH);

    /** Number of extension header kinds, for arrays indexed by ordinal. */
    public static final int COUNT = values().length;

    private final int length;

    ExtHeader(final int length)
    {
        this.length = length;
    }

    /**
     * @return length in bytes on the wire.
     */
    public int length()
    {
        return length;
    }
}
