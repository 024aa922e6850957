package org.roce4j.cm.rdmacm;

import org.roce4j.ib.AhAttributes;

/**
 * The peer's UD address an RDMA_PS_UDP identifier's ESTABLISHED event carries (struct rdma_ud_param: ah_attr,
 * qp_num, qkey; cma.c cma_sidr_rep_handler fills it from the SIDR_REP and the route): create an address handle
 * from {@link #ahAttr()} and send to {@link #qpNum()} with {@link #qkey()}.
 *
 * @param ahAttr the address vector to the peer (its GID, our source GID index, hop limit, traffic class, flow label).
 * @param qpNum  the peer's UD QP, from the SIDR_REP.
 * @param qkey   the Q_Key to send with, from the SIDR_REP ({@link #RDMA_UDP_QKEY} between rdma_cm peers).
 */
public record UdParam(AhAttributes ahAttr, int qpNum, int qkey)
{
    /**
     * RDMA_UDP_QKEY (include/rdma/rdma_cm.h, cma.c cma_set_qkey): the Q_Key of every RDMA_PS_UDP QP, set at
     * rdma_create_qp and sent in the SIDR_REP; a SIDR_REP with another Q_Key is refused (ADDR_ERROR, -EINVAL).
     */
    public static final int RDMA_UDP_QKEY = 0x0123_4567;

    /**
     * @return e.g. {@code qpn 0x11 qkey 0x1234567}.
     */
    public String toString()
    {
        return "qpn 0x" + Integer.toHexString(qpNum) + " qkey 0x" + Integer.toHexString(qkey) + " " + ahAttr;
    }
}
