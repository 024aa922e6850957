package org.roce4j.transport.engine;

import org.agrona.BitUtil;
import org.agrona.collections.Int2ObjectHashMap;
import org.roce4j.ib.AsyncEventType;
import org.roce4j.ib.Mtu;
import org.roce4j.ib.QpAttrMask;
import org.roce4j.ib.QpAttributes;
import org.roce4j.ib.QpCapabilities;
import org.roce4j.ib.QpState;
import org.roce4j.ib.QpType;
import org.roce4j.transport.TransportCounter;
import org.roce4j.wire.header.BthHeader;
import org.roce4j.wire.header.DethHeader;

/**
 * QP control (rxe_qp.c): the QP table and QP numbers, create and destroy, applying modify attributes and the state
 * changes they ask for (with the resources they set up: timeouts, retry budgets, responder resources, the address
 * vector), query, and moving a QP to the error state (rxe_qp_error).
 *
 * <p>Engine thread only: other threads reach these through {@link RoceEngine#invoke}. The caller (roce-verbs) has
 * validated each transition and its attribute mask against the IBA transition table; this class applies them.
 */
final class QpControl
{
    /** Largest QPN (24 bits, minus the multicast QPN 0xFFFFFF). */
    private static final int MAX_QPN = 0xFF_FFFE;

    private final RoceEngine engine;
    private final AddressResolution addresses;
    private final Mtu activeMtu;
    private final int linkMtu;
    private final int firstQpn;
    private final Int2ObjectHashMap<QpContext> qps = new Int2ObjectHashMap<>();
    private int nextQpn;
    private QpContext gsiQp;

    /**
     * @param engine    the engine whose services (scheduling, events, counters) state changes use.
     * @param addresses resolves the address vectors of modify-to-RTR.
     * @param activeMtu the port's active MTU: no path MTU may exceed it.
     * @param linkMtu   the link's IP MTU, for the message when it does.
     * @param firstQpn  the first QPN handed out.
     */
    QpControl(
        final RoceEngine engine,
        final AddressResolution addresses,
        final Mtu activeMtu,
        final int linkMtu,
        final int firstQpn)
    {
        this.engine = engine;
        this.addresses = addresses;
        this.activeMtu = activeMtu;
        this.linkMtu = linkMtu;
        this.firstQpn = firstQpn;
        this.nextQpn = firstQpn;
    }

    /**
     * Create a QP in RESET.
     *
     * @param type      RC, UC, UD or GSI.
     * @param pdHandle  protection domain.
     * @param caps      queue sizes.
     * @param sendCq    send completion queue.
     * @param recvCq    receive completion queue.
     * @param srq       shared receive queue, or null.
     * @param signalAll sq_sig_all.
     * @return the QP.
     * @throws IllegalStateException when a second GSI QP is asked for, or no QP number is free.
     */
    QpContext create(
        final QpType type,
        final int pdHandle,
        final QpCapabilities caps,
        final CompletionRing sendCq,
        final CompletionRing recvCq,
        final ReceiveQueue srq,
        final boolean signalAll)
    {
        final int qpn;
        if (QpType.GSI == type)
        {
            if (null != gsiQp && !gsiQp.destroyed)
            {
                throw new IllegalStateException("the GSI QP (QPN 1) already exists");
            }
            qpn = BthHeader.GSI_QPN;
        }
        else
        {
            qpn = allocateQpn();
        }
        final QpContext qp = new QpContext(qpn, type, pdHandle, caps, sendCq, recvCq, srq, signalAll, engine.doorbells);
        qp.udpSourcePort = rxeUdpSourcePort(qpn);
        qp.address.udpSourcePort(qp.udpSourcePort);
        qp.req.reset(0);
        qp.comp.reset(0, 0, 0);
        qp.resp.reset(0);
        if (null != srq)
        {
            // Sized from the SRQ, whose WQEs it copies: with an SRQ, ibv_create_qp(3) ignores the QP's max_recv_sge,
            // which may be smaller than the SRQ's max_sge.
            qp.srqCopy = new RecvWqe(srq.maxSge());
        }
        if (QpType.GSI == type)
        {
            gsiQp = qp;
            qp.attributes.qkey = DethHeader.GSI_QKEY;
        }
        else
        {
            qps.put(qpn, qp);
        }
        return qp;
    }

    private int allocateQpn()
    {
        for (int tries = 0; tries < MAX_QPN; tries++)
        {
            final int candidate = nextQpn;
            nextQpn = candidate >= MAX_QPN ? firstQpn : candidate + 1;
            if (!qps.containsKey(candidate))
            {
                return candidate;
            }
        }
        throw new IllegalStateException("no free QP number");
    }

    /**
     * The UDP source port rxe uses for a datagram QP (and for any QP until it is connected): 0xC000 +
     * hash_32(qpn, 14) (rxe_qp.c rxe_qp_init_req; the golden captures show it on UD and QP1 packets), so each QP's
     * packets hash to one flow, inside the dynamic port range RoCEv2 requires (IB_ROCE_UDP_ENCAP_VALID_PORT_MIN).
     *
     * @param qpn local QP number.
     * @return the port.
     */
    static int rxeUdpSourcePort(final int qpn)
    {
        // hash_32(val, bits) = (val * GOLDEN_RATIO_32) >> (32 - bits), GOLDEN_RATIO_32 = 0x61C88647 (linux/hash.h).
        final int hash = (qpn * 0x61C8_8647) >>> (32 - 14);
        return 0xC000 + (hash & 0x3FFF);
    }

    /**
     * Destroy a QP: later packets for it are dropped as "no QP", its doorbells and timers are ignored.
     *
     * @param qp the QP.
     */
    void destroy(final QpContext qp)
    {
        if (qp.mcastAttachments > 0)
        {
            // rxe_qp_chk_destroy: "Attempt to destroy a QP while attached to multicast group", -EBUSY.
            throw new IllegalStateException("destroy_qp: QP 0x" + Integer.toHexString(qp.qpn) + " is still attached " +
                "to " + qp.mcastAttachments + " multicast group(s): detach it first (rxe: EBUSY)");
        }
        qp.destroyed = true;
        qp.state(QpState.RESET);
        if (gsiQp == qp)
        {
            gsiQp = null;
        }
        else
        {
            qps.remove(qp.qpn);
        }
    }

    /**
     * @param qpn a QP number.
     * @return the QP, or null.
     */
    QpContext lookup(final int qpn)
    {
        return BthHeader.GSI_QPN == qpn ? gsiQp : qps.get(qpn);
    }

    /**
     * @return number of QPs (without the GSI QP).
     */
    int count()
    {
        return qps.size();
    }

    /**
     * Apply attributes: the values, the address vector, then the state change.
     *
     * @param qp   the QP.
     * @param attr values.
     * @param mask which of them to apply ({@link QpAttrMask}).
     * @throws IllegalArgumentException when the path MTU exceeds the port's active MTU, or the address is bad.
     */
    void modify(final QpContext qp, final QpAttributes attr, final int mask)
    {
        final QpAttributes current = qp.attributes;
        if (0 != (mask & QpAttrMask.PATH_MTU))
        {
            if (attr.pathMtu.bytes() > activeMtu.bytes())
            {
                throw new IllegalArgumentException("path MTU " + attr.pathMtu.bytes() + " exceeds the port's active" +
                    " MTU " + activeMtu.bytes() + " (link MTU " + linkMtu + ")");
            }
            current.pathMtu = attr.pathMtu;
            qp.mtuBytes = attr.pathMtu.bytes();
        }
        if (0 != (mask & QpAttrMask.AV))
        {
            addresses.resolve(attr.ahAttr, qp.address);
            qp.address.udpSourcePort(qp.udpSourcePort);
            current.ahAttr.copyFrom(attr.ahAttr);
            // As the kernel resolves the destination MAC at modify time, warm the link's neighbour table.
            addresses.warmNeighbour(qp.address);
        }
        if (0 != (mask & QpAttrMask.ACCESS_FLAGS))
        {
            current.qpAccessFlags = attr.qpAccessFlags;
        }
        if (0 != (mask & QpAttrMask.QKEY))
        {
            current.qkey = attr.qkey;
        }
        if (0 != (mask & QpAttrMask.PKEY_INDEX))
        {
            current.pkeyIndex = attr.pkeyIndex;
        }
        if (0 != (mask & QpAttrMask.PORT))
        {
            current.portNum = attr.portNum;
        }
        if (0 != (mask & QpAttrMask.DEST_QPN))
        {
            current.destQpNum = attr.destQpNum & BthHeader.MASK_24;
        }
        applyTimersAndResources(qp, attr, mask);
        if (0 != (mask & QpAttrMask.RQ_PSN))
        {
            current.rqPsn = attr.rqPsn & BthHeader.MASK_24;
            qp.resp.psn = current.rqPsn;
        }
        if (0 != (mask & QpAttrMask.SQ_PSN))
        {
            current.sqPsn = attr.sqPsn & BthHeader.MASK_24;
            qp.req.reset(current.sqPsn);
            qp.comp.psn = current.sqPsn;
        }
        if (0 != (mask & (QpAttrMask.AV | QpAttrMask.DEST_QPN)) && !qp.type.isDatagram())
        {
            // A connected QP's flow: the UDP source port follows the flow label, which defaults to one computed
            // from both QPNs (ib core rdma_calc_flow_label + rdma_get_udp_sport, as the rxe peer in the golden
            // captures does: QPNs 0x11/0x11 send from port 0xC121).
            qp.udpSourcePort = AddressResolution.connectedUdpSourcePort(current.ahAttr.flowLabel(), qp.qpn,
                current.destQpNum);
            qp.address.udpSourcePort(qp.udpSourcePort);
        }
        if (0 != (mask & QpAttrMask.STATE))
        {
            changeState(qp, attr.qpState);
        }
    }

    private static void applyTimersAndResources(final QpContext qp, final QpAttributes attr, final int mask)
    {
        final QpAttributes current = qp.attributes;
        if (0 != (mask & QpAttrMask.TIMEOUT))
        {
            current.timeout = attr.timeout;
            // IBA 9.7.6.1.3: local ACK timeout = 4.096 µs * 2^timeout; 0 disables the timer (rxe_qp_from_attr).
            qp.timeoutNs = 0 == attr.timeout ? 0 : 4096L << attr.timeout;
        }
        if (0 != (mask & QpAttrMask.RETRY_CNT))
        {
            current.retryCnt = attr.retryCnt;
            qp.comp.retryLeft = attr.retryCnt;
        }
        if (0 != (mask & QpAttrMask.RNR_RETRY))
        {
            current.rnrRetry = attr.rnrRetry;
            qp.comp.rnrRetryLeft = attr.rnrRetry;
        }
        if (0 != (mask & QpAttrMask.MIN_RNR_TIMER))
        {
            current.minRnrTimer = attr.minRnrTimer;
        }
        if (0 != (mask & QpAttrMask.MAX_QP_RD_ATOMIC))
        {
            current.maxRdAtomic = attr.maxRdAtomic;
            // rxe rounds max_rd_atomic up to a power of two (rxe_qp.c).
            qp.maxRdAtomic = 0 == attr.maxRdAtomic ? 0 : BitUtil.findNextPositivePowerOfTwo(attr.maxRdAtomic);
        }
        if (0 != (mask & QpAttrMask.MAX_DEST_RD_ATOMIC))
        {
            current.maxDestRdAtomic = attr.maxDestRdAtomic;
            qp.resp.allocateResources(0 == attr.maxDestRdAtomic ? 0 :
                BitUtil.findNextPositivePowerOfTwo(attr.maxDestRdAtomic));
        }
    }

    private void changeState(final QpContext qp, final QpState target)
    {
        switch (target)
        {
            case RESET:
                reset(qp);
                break;
            case RTS:
                qp.state(QpState.RTS);
                qp.sqDraining = false;
                engine.schedule(qp);
                break;
            case SQD:
                qp.state(QpState.SQD);
                qp.sqDraining = true;
                engine.schedule(qp);
                break;
            case ERR:
                qp.state(QpState.ERR);
                qp.comp.retransmitDeadlineNs = 0;
                qp.req.waitingRnrTimer = false;
                if (null != qp.srq)
                {
                    engine.raise(AsyncEventType.QP_LAST_WQE_REACHED, qp.qpn);
                }
                engine.schedule(qp);
                break;
            default:
                qp.state(target);
                break;
        }
    }

    private static void reset(final QpContext qp)
    {
        qp.state(QpState.RESET);
        // IBA 10.3.1: moving to RESET empties the queues without completions.
        final SendQueue sq = qp.sendQueue;
        final long published = sq.publishedIndex();
        while (sq.completer < published)
        {
            sq.retireOne();
        }
        sq.requester = sq.completer;
        if (null != qp.receiveQueue)
        {
            while (null != qp.receiveQueue.peek())
            {
                qp.receiveQueue.consume();
            }
        }
        qp.req.reset(0);
        qp.comp.reset(0, qp.attributes.retryCnt, qp.attributes.rnrRetry);
        qp.resp.reset(0);
        qp.comp.retransmitDeadlineNs = 0;
        qp.commEstablished = false;
        qp.sqDraining = false;
    }

    /**
     * @param qp  the QP.
     * @param out filled with the QP's current attributes.
     */
    static void query(final QpContext qp, final QpAttributes out)
    {
        final QpAttributes current = qp.attributes;
        out.qpState = qp.state();
        out.curQpState = qp.state();
        out.pathMtu = current.pathMtu;
        out.qkey = current.qkey;
        out.rqPsn = qp.resp.psn;
        out.sqPsn = qp.req.psn;
        out.destQpNum = current.destQpNum;
        out.qpAccessFlags = current.qpAccessFlags;
        out.ahAttr.copyFrom(current.ahAttr);
        out.pkeyIndex = current.pkeyIndex;
        out.portNum = current.portNum;
        out.minRnrTimer = current.minRnrTimer;
        out.timeout = current.timeout;
        out.retryCnt = current.retryCnt;
        out.rnrRetry = current.rnrRetry;
        out.maxRdAtomic = current.maxRdAtomic;
        out.maxDestRdAtomic = current.maxDestRdAtomic;
        out.sqDraining = qp.sqDraining;
        out.cap.copyFrom(qp.capabilities);
    }

    /**
     * Move a QP to the error state because of a protocol or local error (rxe_qp_error); its queues are flushed
     * on its next run.
     *
     * @param qp    the QP.
     * @param event the asynchronous event to raise, or null for none.
     */
    void error(final QpContext qp, final AsyncEventType event)
    {
        if (QpState.ERR == qp.state())
        {
            return;
        }
        qp.state(QpState.ERR);
        engine.counters().increment(TransportCounter.QP_ERRORS);
        qp.comp.retransmitDeadlineNs = 0;
        qp.req.waitingRnrTimer = false;
        if (null != event)
        {
            engine.raise(event, qp.qpn);
        }
        if (null != qp.srq)
        {
            engine.raise(AsyncEventType.QP_LAST_WQE_REACHED, qp.qpn);
        }
        engine.schedule(qp);
    }
}
