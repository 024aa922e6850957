package org.roce4j.cm.rdmacm;

import org.roce4j.cm.ib.CmConnection;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.Mtu;
import org.roce4j.ib.QpAttrMask;
import org.roce4j.ib.QpAttributes;
import org.roce4j.ib.QpState;
import org.roce4j.ib.QpType;
import org.roce4j.verbs.ProtectionDomain;
import org.roce4j.verbs.QpInitAttributes;
import org.roce4j.verbs.QueuePair;
import org.roce4j.verbs.RdmaDevice;
import org.roce4j.wire.addr.Gid;

/**
 * An {@link RdmaCmId}'s QP: the checks of rdma_create_qp and of attaching a QP created elsewhere, and the transitions
 * the kernel's rdma_cm makes on an RC QP: INIT with no remote access (rdma_create_qp), INIT/RTR/RTS with the
 * connection's values (cma_accept_ib, cma_rep_recv; cm.c cm_init_qp_*_attr) and the error state
 * (cma_modify_qp_err). {@link RdmaCmUd} brings a UD QP up. CM thread only, but for the argument checks.
 */
final class RdmaCmQp
{
    private RdmaCmQp()
    {
    }

    /**
     * The caller's arguments to {@link RdmaCmId#createQp}, checked on the caller's thread.
     *
     * @return the QP type the identifier's port space takes (UD for RDMA_PS_UDP, RC for RDMA_PS_TCP).
     */
    static QpType checkCreate(final RdmaCmId id, final ProtectionDomain pd, final QpInitAttributes init)
    {
        if (null == pd || null == init)
        {
            throw new NullPointerException("pd and init must not be null");
        }
        if (pd.device() != id.cm().device())
        {
            throw new IllegalArgumentException("the protection domain belongs to device " + pd.device().name() +
                ", not to this RdmaCm's " + id.cm().device().name());
        }
        // As the kernel's rdma_create_qp: the QP type must be the id's (UD for RDMA_PS_UDP, RC for RDMA_PS_TCP).
        final QpType type = id.isUd() ? QpType.UD : QpType.RC;
        if (null != init.qpType() && type != init.qpType())
        {
            throw new IllegalArgumentException("identifier " + id.number() + " is in " + id.portSpaceName() +
                ", whose QPs are " + type + "; got " + init.qpType());
        }
        return type;
    }

    /**
     * rdma_create_qp: create the QP and bring it to INIT (RC) or RTS (UD, {@link RdmaCmUd#bringUp}).
     */
    static QueuePair create(final ProtectionDomain pd, final QpInitAttributes init, final QpType type)
    {
        final QueuePair created = pd.createQp(new QpInitAttributes().copyFrom(init).qpType(type));
        if (QpType.UD == type)
        {
            RdmaCmUd.bringUp(created);
        }
        else
        {
            toInit(created);
        }
        return created;
    }

    /**
     * The caller's argument to {@link RdmaCmId#attachQp}, checked on the caller's thread.
     */
    static void checkAttach(final RdmaCmId id, final QueuePair existing)
    {
        if (null == existing)
        {
            throw new NullPointerException("qp must not be null");
        }
        if (existing.pd().device() != id.cm().device())
        {
            throw new IllegalArgumentException("QP " + existing.qpNum() + " belongs to device " +
                existing.pd().device().name() + ", not to this RdmaCm's " + id.cm().device().name());
        }
        // As rdma_create_qp: an RDMA_PS_UDP identifier takes a UD QP, an RDMA_PS_TCP one an RC QP.
        final QpType expected = id.isUd() ? QpType.UD : QpType.RC;
        if (expected != existing.type())
        {
            throw new IllegalArgumentException("an identifier of rdma_cm's " + (id.isUd() ? "UDP" : "TCP") +
                " port space takes a " + expected + " QP; QP " + existing.qpNum() + " is " + existing.type());
        }
    }

    /**
     * Take a QP created elsewhere: one in RESET is brought up as {@link #create} does (an RC QP to INIT, a UD QP to
     * RTS with RDMA_UDP_QKEY), an RC QP in INIT is taken as it is.
     *
     * @throws IllegalArgumentException for any other state.
     */
    static void attach(final QueuePair existing)
    {
        final QpState current = existing.state();
        if (QpState.RESET == current)
        {
            if (QpType.UD == existing.type())
            {
                RdmaCmUd.bringUp(existing);
            }
            else
            {
                toInit(existing);
            }
        }
        else if (QpType.UD == existing.type())
        {
            throw new IllegalArgumentException("UD QP " + existing.qpNum() + " is in " + current + "; the CM " +
                "takes a UD QP in RESET and brings it up with RDMA_UDP_QKEY itself");
        }
        else if (QpState.INIT != current)
        {
            throw new IllegalArgumentException("QP " + existing.qpNum() + " is in " + current + "; the CM " +
                "takes a QP in RESET or INIT and moves it to RTR and RTS itself");
        }
    }

    /**
     * rdma_create_qp: INIT with pkey index 0, port 1 and no remote access until the connection negotiates it.
     *
     * @param q an RC QP in RESET.
     */
    static void toInit(final QueuePair q)
    {
        final QpAttributes attr = new QpAttributes();
        attr.qpState = QpState.INIT;
        attr.pkeyIndex = 0;
        attr.portNum = 1;
        attr.qpAccessFlags = 0;
        q.modify(attr, QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.ACCESS_FLAGS);
    }

    /**
     * INIT (access for the negotiated responder resources), RTR and RTS with the connection's values.
     *
     * @param q            the connection's QP, in INIT.
     * @param c            the connection.
     * @param minRnrTimer  the RTR's min_rnr_timer.
     * @param trafficClass the traffic class to use instead of the path's, or -1 for the path's.
     * @param device       the device, for the path's source GID index.
     */
    static void bringUp(final QueuePair q, final CmConnection c, final int minRnrTimer, final int trafficClass,
        final RdmaDevice device)
    {
        final QpAttributes attr = new QpAttributes();
        // cm.c cm_init_qp_init_attr: remote write always, read and atomic when we grant responder resources.
        attr.qpState = QpState.INIT;
        attr.qpAccessFlags = AccessFlags.REMOTE_WRITE |
            (c.responderResources() > 0 ? AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC : 0);
        q.modify(attr, QpAttrMask.STATE | QpAttrMask.ACCESS_FLAGS);

        attr.qpState = QpState.RTR;
        attr.ahAttr.dgid(c.remoteGidHigh(), c.remoteGidLow())
            .sgidIndex(sourceGidIndex(device, c))
            .hopLimit(c.hopLimit())
            .flowLabel(c.flowLabel())
            .trafficClass(trafficClass >= 0 ? trafficClass : c.trafficClass())
            .serviceLevel(0)
            .portNum(1);
        attr.pathMtu = Mtu.fromVerbsValue(c.pathMtu());
        attr.destQpNum = c.remoteQpn();
        // Linux cm.c: the Starting PSN a side puts in its REQ or REP is the PSN its QP expects first (rq_psn); it
        // sends from the peer's (cm_req_handler / cm_rep_handler set sq_psn from the message received). The golden
        // capture agrees: rping's client sends its first SEND with the REP's PSN, the server its READ with the REQ's.
        attr.rqPsn = c.localPsn();
        attr.maxDestRdAtomic = c.responderResources();
        attr.minRnrTimer = minRnrTimer;
        q.modify(attr, QpAttrMask.STATE | QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN |
            QpAttrMask.RQ_PSN | QpAttrMask.MAX_DEST_RD_ATOMIC | QpAttrMask.MIN_RNR_TIMER);

        attr.qpState = QpState.RTS;
        attr.sqPsn = c.remotePsn();
        attr.timeout = c.ackTimeout();
        attr.retryCnt = c.retryCount();
        attr.rnrRetry = c.rnrRetryCount();
        attr.maxRdAtomic = c.initiatorDepth();
        q.modify(attr, QpAttrMask.STATE | QpAttrMask.SQ_PSN | QpAttrMask.TIMEOUT | QpAttrMask.RETRY_CNT |
            QpAttrMask.RNR_RETRY | QpAttrMask.MAX_QP_RD_ATOMIC);
    }

    /**
     * The GID index of the path's local GID (the address the connection was made from or to), or, for a path
     * naming none of ours, the source the kernel would pick for the remote GID.
     */
    private static int sourceGidIndex(final RdmaDevice device, final CmConnection c)
    {
        final int index = device.gidIndexOf(new Gid(c.localGidHigh(), c.localGidLow()));
        return index >= 0 ? index : device.sourceGidIndex(new Gid(c.remoteGidHigh(), c.remoteGidLow()));
    }

    /**
     * cma_modify_qp_err: the QP to the error state, unless it is gone, in RESET or already in error; a failure is
     * noted on the CM, not thrown.
     *
     * @param q     the QP, or null.
     * @param owner the CM.
     */
    static void moveToError(final QueuePair q, final RdmaCm owner)
    {
        if (null == q || q.isDestroyed())
        {
            return;
        }
        final QpState current = q.state();
        if (QpState.RESET == current || QpState.ERR == current)
        {
            return;
        }
        final QpAttributes attr = new QpAttributes();
        attr.qpState = QpState.ERR;
        try
        {
            q.modify(attr, QpAttrMask.STATE);
        }
        catch (final RuntimeException ex)
        {
            owner.noteError(ex);
        }
    }
}
