package org.roce4j.cm.rdmacm;

import org.roce4j.cm.ib.CmConnection;
import org.roce4j.ib.AhAttributes;
import org.roce4j.ib.QpAttrMask;
import org.roce4j.ib.QpAttributes;
import org.roce4j.ib.QpState;
import org.roce4j.verbs.QueuePair;
import org.roce4j.wire.mad.CmSidrRepMessage;

/**
 * rdma_cm's UDP port space (RDMA_PS_UDP) on the {@link RdmaCmId} side: bringing a UD QP up as librdmacm's
 * ucma_init_ud_qp does, and turning a SIDR_REP into the event cma.c cma_sidr_rep_handler delivers. CM thread only.
 */
final class RdmaCmUd
{
    private RdmaCmUd()
    {
    }

    /**
     * librdmacm ucma_init_ud_qp: INIT with pkey index 0, port 1 and {@link UdParam#RDMA_UDP_QKEY} (the kernel's
     * rdma_init_qp_attr for a UDP id, cma_set_qkey), then RTR, then RTS with send PSN 0. A UD QP needs no peer: it
     * is usable as soon as it is created.
     *
     * @param q a UD QP in RESET.
     */
    static void bringUp(final QueuePair q)
    {
        final QpAttributes attr = new QpAttributes();
        attr.qpState = QpState.INIT;
        attr.pkeyIndex = 0;
        attr.portNum = 1;
        attr.qkey = UdParam.RDMA_UDP_QKEY;
        q.modify(attr, QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.QKEY);
        attr.qpState = QpState.RTR;
        q.modify(attr, QpAttrMask.STATE);
        attr.qpState = QpState.RTS;
        attr.sqPsn = 0;
        q.modify(attr, QpAttrMask.STATE | QpAttrMask.SQ_PSN);
    }

    /**
     * cma.c cma_sidr_rep_handler: a status other than IB_SIDR_SUCCESS gives UNREACHABLE with that status; a Q_Key
     * other than RDMA_UDP_QKEY gives ADDR_ERROR -EINVAL (cma_set_qkey); otherwise ESTABLISHED with the peer's QPN,
     * Q_Key and the address vector of the route, and the SIDR_REP's 136 bytes of private data.
     *
     * @param id     the active identifier.
     * @param c      the SIDR exchange, its SIDR_REP fields filled.
     * @param ah     the address vector to the peer, from the route.
     * @param remote the peer's address, for the message.
     * @return the event.
     */
    static RdmaCmEvent replyEvent(final RdmaCmId id, final CmConnection c, final AhAttributes ah, final String remote)
    {
        final int status = c.sidrStatus();
        if (CmSidrRepMessage.STATUS_SUCCESS != status)
        {
            return new RdmaCmEvent(RdmaCmEventType.UNREACHABLE, id, null, status, c.privateData(), null,
                remote + " answered our SIDR_REQ with " + CmSidrRepMessage.describeStatus(status));
        }
        if (UdParam.RDMA_UDP_QKEY != c.remoteQkey())
        {
            return new RdmaCmEvent(RdmaCmEventType.ADDR_ERROR, id, null, RdmaCmEvent.EINVAL, c.privateData(), null,
                remote + " named Q_Key 0x" + Integer.toHexString(c.remoteQkey()) + " in its SIDR_REP, not " +
                "RDMA_UDP_QKEY 0x" + Integer.toHexString(UdParam.RDMA_UDP_QKEY));
        }
        final UdParam ud = new UdParam(new AhAttributes().copyFrom(ah), c.remoteQpn(), c.remoteQkey());
        return new RdmaCmEvent(RdmaCmEventType.ESTABLISHED, id, null, 0, c.privateData(), null,
            "resolved " + remote + " to UD QPN 0x" + Integer.toHexString(c.remoteQpn()), ud);
    }
}
