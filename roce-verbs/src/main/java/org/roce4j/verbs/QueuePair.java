package org.roce4j.verbs;

import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.QpAttrMask;
import org.roce4j.ib.QpAttributes;
import org.roce4j.ib.QpCapabilities;
import org.roce4j.ib.QpState;
import org.roce4j.ib.QpType;
import org.roce4j.ib.WrOpcode;
import org.roce4j.transport.cc.QpRate;
import org.roce4j.transport.provider.DeviceOps;
import org.roce4j.transport.provider.QpOps;
import org.roce4j.wire.addr.Gid;

/**
 * A queue pair (struct ibv_qp): created in RESET, brought up with {@link #modify} (checked against
 * {@link QpTransitions} and the attribute ranges), fed with {@link #postSend} and {@link #postRecv}.
 *
 * <p>Threading: post send WRs from one thread at a time, and receive WRs from one thread at a time (the queues are
 * single-producer rings shared with the engine). Control calls ({@link #modify}, {@link #query}, {@link #destroy})
 * may come from any thread in DEDICATED mode.
 *
 * <p>Posting validates the whole chain before queueing anything and throws {@link BadWorkRequestException} naming
 * the problem and the index of the bad WR; a rejected chain leaves nothing queued. What only the engine can know is
 * reported in completions, as hardware does: an unknown lkey or an SGE outside its region completes with
 * LOC_PROT_ERR. Which states accept work
 * follows rxe: send WRs need RTS, SQD (queued, started after the return to RTS), SQE or ERR (completed with
 * WR_FLUSH_ERR); receive WRs need any state but RESET (C10-97.2.1).
 */
public final class QueuePair
{
    private final ProtectionDomain pd;
    private final RdmaDevice device;
    private final DeviceOps engine;
    private final QpOps qp;
    private final QpInitAttributes init;
    private final QpType type;
    private final WrReader sendReader;
    private final WrReader recvReader;
    private final int maxSendWr;
    private final int maxRecvSge;
    private final String label;
    private final QpAttributes scratch = new QpAttributes();
    private final SendWrChecks sendChecks;
    private volatile int maxRdAtomic;
    private volatile boolean destroyed;

    QueuePair(final ProtectionDomain pd, final QpOps qp, final QpInitAttributes init)
    {
        this.pd = pd;
        this.device = pd.device();
        this.engine = device.ops();
        this.qp = qp;
        this.init = init;
        this.type = init.qpType();
        this.sendReader = new WrReader(device);
        this.recvReader = new WrReader(device);
        final QpCapabilities cap = init.cap();
        this.maxSendWr = cap.maxSendWr;
        this.maxRecvSge = cap.maxRecvSge;
        this.label = "QP 0x" + Integer.toHexString(qp.qpn());
        this.sendChecks = new SendWrChecks(this, cap.maxSendSge, cap.maxInlineData);
    }

    /**
     * @return qp_num.
     */
    public int qpNum()
    {
        return qp.qpn();
    }

    /**
     * @return qp_type.
     */
    public QpType type()
    {
        return type;
    }

    /**
     * @return the current state (the engine moves a QP to ERR on its own after fatal errors).
     */
    public QpState state()
    {
        return qp.state();
    }

    /**
     * @return the protection domain.
     */
    public ProtectionDomain pd()
    {
        return pd;
    }

    /**
     * @return the send completion queue.
     */
    public CompletionQueue sendCq()
    {
        return init.sendCq();
    }

    /**
     * @return the receive completion queue.
     */
    public CompletionQueue recvCq()
    {
        return init.recvCq();
    }

    /**
     * @return the shared receive queue, or null.
     */
    public SharedReceiveQueue srq()
    {
        return init.srq();
    }

    /**
     * @return send WRs posted and not yet completed (retired by the engine, signaled or not), 0 .. max_send_wr.
     */
    public int outstandingSendWrs()
    {
        return qp.sendOutstanding();
    }

    /**
     * @return receive WRs posted to the QP's own receive queue and not yet consumed; 0 for a QP that takes its
     *     receive WRs from an SRQ (see {@link SharedReceiveQueue#available()}).
     */
    public int postedRecvWrs()
    {
        return null != init.srq() ? 0 : qp.receiveQueue().available();
    }

    // ------------------------------------------------------------------------------------------------------------
    // Modify and query
    // ------------------------------------------------------------------------------------------------------------

    /**
     * Modify the QP (ibv_modify_qp): the transition and the mask are checked against {@link QpTransitions}, every
     * value in the mask against its range, then the engine applies them. The check and the change happen together
     * on the engine thread, so the state cannot change in between.
     *
     * <p>Beyond the table: CUR_STATE, when given, must equal the QP's state ("cur_qp_state mismatch"); ALT_PATH and
     * PATH_MIG_STATE are refused (no automatic path migration on RoCE, as the kernel refuses them); a QP in SQD that
     * is still draining may only go to ERR (rxe); EN_SQD_ASYNC_NOTIFY is accepted and SQ_DRAINED is always raised.
     *
     * @param attr values (only the fields named in the mask are read).
     * @param mask {@link QpAttrMask} bits.
     * @throws IllegalArgumentException naming an illegal transition, a missing or extra attribute, or a bad value.
     * @throws IllegalStateException on a cur_qp_state mismatch, while draining, or when destroyed.
     */
    public void modify(final QpAttributes attr, final int mask)
    {
        ProgressGroup.requireNonNull(attr, "attr");
        checkAlive();
        device.control(() ->
        {
            validate(attr, mask);
            engine.modifyQp(qp, attr, mask);
            return null;
        });
        if (0 != (mask & QpAttrMask.MAX_QP_RD_ATOMIC))
        {
            maxRdAtomic = attr.maxRdAtomic;
        }
    }

    private void validate(final QpAttributes attr, final int mask)
    {
        if (0 != (mask & ~QpAttrMask.ALL))
        {
            throw new IllegalArgumentException(label + ": unknown attribute mask bits 0x" +
                Integer.toHexString(mask & ~QpAttrMask.ALL));
        }
        final QpState actual = qp.state();
        QpState current = actual;
        if (0 != (mask & QpAttrMask.CUR_STATE))
        {
            final QpState claimed = attr.curQpState;
            if (null == claimed)
            {
                throw new IllegalArgumentException(label + ": CUR_STATE is in the mask but cur_qp_state is null");
            }
            if (claimed != actual)
            {
                throw new IllegalStateException(label + ": cur_qp_state mismatch: the attributes say " + claimed +
                    " but the QP is in " + actual);
            }
            if (QpState.RTR != claimed && QpState.RTS != claimed && QpState.SQD != claimed &&
                QpState.SQE != claimed)
            {
                // ib_modify_qp_is_ok: CUR_STATE is only meaningful when leaving RTR, RTS, SQD or SQE.
                throw new IllegalArgumentException(label + ": CUR_STATE may only be given in RTR, RTS, SQD or " +
                    "SQE; the QP is in " + claimed);
            }
            current = claimed;
        }
        QpState next = current;
        if (0 != (mask & QpAttrMask.STATE))
        {
            if (null == attr.qpState)
            {
                throw new IllegalArgumentException(label + ": STATE is in the mask but qp_state is null");
            }
            next = attr.qpState;
        }
        final String problem = QpTransitions.check(current, next, type, mask);
        if (null != problem)
        {
            throw new IllegalArgumentException(label + ": " + problem);
        }
        if (0 != (mask & QpAttrMask.STATE) && QpState.SQD == current && QpState.ERR != next)
        {
            engine.queryQp(qp, scratch);
            if (scratch.sqDraining)
            {
                // rxe_qp_chk_attr: a QP still draining its send queue may only leave SQD for ERR.
                throw new IllegalStateException(label + " is still draining its send queue: wait for SQ_DRAINED " +
                    "before moving it from SQD to " + next + " (only ERR is allowed while draining)");
            }
        }
        checkValues(attr, mask);
    }

    private void checkValues(final QpAttributes attr, final int mask)
    {
        if (0 != (mask & QpAttrMask.PATH_MTU))
        {
            if (null == attr.pathMtu)
            {
                throw new IllegalArgumentException(label + ": PATH_MTU is in the mask but path_mtu is null");
            }
            if (attr.pathMtu.bytes() > device.activeMtu().bytes())
            {
                throw new IllegalArgumentException(label + ": path_mtu " + attr.pathMtu.bytes() + " exceeds the " +
                    "port's active MTU " + device.activeMtu().bytes() + " (link MTU " + device.link().mtu() + ")");
            }
        }
        if (0 != (mask & QpAttrMask.TIMEOUT))
        {
            range(attr.timeout, 0, 31, "timeout (local ACK timeout 4.096 µs × 2^timeout, 0 = infinite)");
        }
        if (0 != (mask & QpAttrMask.RETRY_CNT))
        {
            range(attr.retryCnt, 0, 7, "retry_cnt (7 = retry forever)");
        }
        if (0 != (mask & QpAttrMask.RNR_RETRY))
        {
            range(attr.rnrRetry, 0, 7, "rnr_retry (7 = retry forever)");
        }
        if (0 != (mask & QpAttrMask.MIN_RNR_TIMER))
        {
            range(attr.minRnrTimer, 0, 31, "min_rnr_timer (an IBA RNR timer code)");
        }
        if (0 != (mask & QpAttrMask.MAX_QP_RD_ATOMIC))
        {
            range(attr.maxRdAtomic, 0, DeviceAttributes.MAX_QP_INIT_RD_ATOM, "max_rd_atomic");
        }
        if (0 != (mask & QpAttrMask.MAX_DEST_RD_ATOMIC))
        {
            range(attr.maxDestRdAtomic, 0, DeviceAttributes.MAX_QP_RD_ATOM, "max_dest_rd_atomic");
        }
        if (0 != (mask & QpAttrMask.DEST_QPN))
        {
            fits24(attr.destQpNum, "dest_qp_num");
        }
        if (0 != (mask & QpAttrMask.RQ_PSN))
        {
            fits24(attr.rqPsn, "rq_psn");
        }
        if (0 != (mask & QpAttrMask.SQ_PSN))
        {
            fits24(attr.sqPsn, "sq_psn");
        }
        if (0 != (mask & QpAttrMask.PKEY_INDEX) && 0 != attr.pkeyIndex)
        {
            throw new IllegalArgumentException(label + ": pkey_index must be 0 (the P_Key table holds only the " +
                "default P_Key 0xFFFF), got " + attr.pkeyIndex);
        }
        if (0 != (mask & QpAttrMask.PORT) && RdmaDevice.PORT_NUM != attr.portNum)
        {
            throw new IllegalArgumentException(label + ": port_num must be 1 (a roce4j device has one port), got " +
                attr.portNum);
        }
        if (0 != (mask & QpAttrMask.ACCESS_FLAGS) && 0 != (attr.qpAccessFlags & ~AccessFlags.ALL))
        {
            throw new IllegalArgumentException(label + ": unknown qp_access_flags bits 0x" +
                Integer.toHexString(attr.qpAccessFlags & ~AccessFlags.ALL));
        }
        if (0 != (mask & QpAttrMask.AV))
        {
            try
            {
                ProtectionDomain.checkAddress(device, attr.ahAttr, "ah_attr");
            }
            catch (final IllegalArgumentException ex)
            {
                throw new IllegalArgumentException(label + ": " + ex.getMessage(), ex);
            }
        }
        if (0 != (mask & (QpAttrMask.ALT_PATH | QpAttrMask.PATH_MIG_STATE)))
        {
            // The kernel (_ib_modify_qp) refuses alternate paths on RoCE: APM exists only for InfiniBand.
            throw new IllegalArgumentException(label + ": " +
                QpAttrMask.toString(mask & (QpAttrMask.ALT_PATH | QpAttrMask.PATH_MIG_STATE)) +
                ": alternate paths and automatic path migration are not supported on RoCE");
        }
    }

    private void range(final int value, final int min, final int max, final String what)
    {
        if (value < min || value > max)
        {
            throw new IllegalArgumentException(label + ": " + what + " must be " + min + ".." + max + ", got " +
                value);
        }
    }

    private void fits24(final int value, final String what)
    {
        if (0 != (value & ~0xFF_FFFF))
        {
            throw new IllegalArgumentException(label + ": " + what + " 0x" + Integer.toHexString(value) +
                " does not fit in 24 bits");
        }
    }

    /**
     * Read the QP's attributes (ibv_query_qp). Every field is filled whatever the mask; the mask is checked for
     * unknown bits only.
     *
     * @param out  filled.
     * @param mask {@link QpAttrMask} bits of interest.
     * @return out.
     */
    public QpAttributes query(final QpAttributes out, final int mask)
    {
        ProgressGroup.requireNonNull(out, "out");
        if (0 != (mask & ~QpAttrMask.ALL))
        {
            throw new IllegalArgumentException(label + ": unknown attribute mask bits 0x" +
                Integer.toHexString(mask & ~QpAttrMask.ALL));
        }
        checkAlive();
        device.control(() ->
        {
            engine.queryQp(qp, out);
            return null;
        });
        return out;
    }

    /**
     * Attach the QP to a multicast group (ibv_attach_mcast): UD SENDs to the group (an address handle whose GID is the
     * group, remote QPN 0xFFFFFF) reach this QP from now on, with the Q_Key checked against the QP's own. On RoCE the
     * group is its IP address as a GID (IPv4-mapped or IPv6) and there is no LID, so ibv_attach_mcast's lid has no
     * counterpart. As in rxe, attaching twice to one group succeeds and changes nothing; a device holds at most 8192
     * groups of at most 56 QPs each (RXE_MAX_MCAST_GRP, RXE_MAX_MCAST_QP_ATTACH).
     *
     * @param gid the group: ff00::/8, or IPv4-mapped 224.0.0.0/4 ({@code Gid.parse("::ffff:239.0.0.1")}).
     * @throws IllegalArgumentException when the QP is not UD or the GID is not a multicast group (EINVAL).
     * @throws IllegalStateException    when destroyed, a group limit is reached, or the link cannot join the group.
     */
    public void attachMcast(final Gid gid)
    {
        checkMcast(gid, "attach_mcast");
        device.control(() ->
        {
            engine.attachMcast(qp, gid.high(), gid.low());
            return null;
        });
    }

    /**
     * Detach the QP from a multicast group it was attached to (ibv_detach_mcast). A QP still attached to a group
     * cannot be destroyed (rxe: EBUSY).
     *
     * @param gid the group.
     * @throws IllegalArgumentException when the QP is not attached to that group, is not UD, or the GID is not a
     *                                  multicast group (EINVAL).
     * @throws IllegalStateException    when destroyed.
     */
    public void detachMcast(final Gid gid)
    {
        checkMcast(gid, "detach_mcast");
        device.control(() ->
        {
            engine.detachMcast(qp, gid.high(), gid.low());
            return null;
        });
    }

    private void checkMcast(final Gid gid, final String verb)
    {
        ProgressGroup.requireNonNull(gid, "gid");
        checkAlive();
        if (QpType.UD != type)
        {
            throw new IllegalArgumentException(label + ": " + verb + " needs a UD QP, this one is " + type +
                " (ib_attach_mcast: EINVAL)");
        }
        if (!Gid.isMulticastGroup(gid.high(), gid.low()))
        {
            throw new IllegalArgumentException(label + ": " + verb + ": " + gid + " is not a multicast GID " +
                "(ff00::/8, or IPv4-mapped 224.0.0.0/4 such as ::ffff:239.0.0.1)");
        }
    }

    /**
     * Read the QP's congestion-control state: with DCQCN ({@code EngineConfig.congestionControl}), whether a rate
     * limiter holds it since a CNP, its current rate (what the pacer holds it to) and target rate, and alpha; without
     * a limiter, the line rate. ConnectX shows these only in firmware dumps; roce4j lets users read them.
     *
     * @return a snapshot at the engine clock's time.
     */
    public QpRate queryRate()
    {
        checkAlive();
        return device.control(() -> engine.qpRate(qp));
    }

    /**
     * @param out filled with the attributes the QP was created with (the init_attr of ibv_query_qp).
     * @return out.
     */
    public QpInitAttributes queryInitAttributes(final QpInitAttributes out)
    {
        return out.copyFrom(init);
    }

    /**
     * Destroy the QP (ibv_destroy_qp): later packets for it are dropped, outstanding WRs are discarded without
     * completions, and its CQs, SRQ and PD are released.
     *
     * @throws IllegalStateException when already destroyed, or still attached to a multicast group (rxe: EBUSY).
     */
    public void destroy()
    {
        synchronized (this)
        {
            checkAlive();
            device.control(() ->
            {
                engine.destroyQp(qp);
                return null;
            });
            destroyed = true;
        }
        init.sendCq().releaseUse();
        if (init.recvCq() != init.sendCq())
        {
            init.recvCq().releaseUse();
        }
        if (null != init.srq())
        {
            init.srq().releaseUse();
        }
        pd.releaseQp();
    }

    /**
     * @return true once destroyed.
     */
    public boolean isDestroyed()
    {
        return destroyed;
    }

    private void checkAlive()
    {
        if (destroyed)
        {
            throw new IllegalStateException(label + " was destroyed");
        }
    }

    // ------------------------------------------------------------------------------------------------------------
    // Posting
    // ------------------------------------------------------------------------------------------------------------

    /**
     * Post a chain of send WRs (ibv_post_send). Inline data is copied now. All or nothing.
     *
     * @param first the first WR; {@link SendWorkRequest#next()} links the rest.
     * @throws BadWorkRequestException naming the problem and the index of the bad WR.
     */
    public void postSend(final SendWorkRequest first)
    {
        ProgressGroup.requireNonNull(first, "wr");
        checkAlive();
        device.checkOpen();
        final QpState state = qp.state();
        if (QpState.RESET == state || QpState.INIT == state || QpState.RTR == state)
        {
            throw new BadWorkRequestException(0, first.wrId(), label + " is in " + state + ": post_send needs RTS " +
                "(or SQD, SQE, ERR; WRs posted in ERR complete with WR_FLUSH_ERR)");
        }
        final int free = maxSendWr - qp.sendOutstanding();
        int index = 0;
        for (SendWorkRequest wr = first; null != wr; wr = wr.next(), index++)
        {
            if (index >= free)
            {
                throw new BadWorkRequestException(index, wr.wrId(), "send queue full: " + (maxSendWr - free) +
                    " outstanding WRs (max_send_wr " + maxSendWr + "), poll the CQ" +
                    (index > 0 ? " or post a shorter chain" : ""));
            }
            sendChecks.check(wr, index, maxRdAtomic);
        }
        for (SendWorkRequest wr = first; null != wr; wr = wr.next())
        {
            // The provider copies the WR into its send queue (inline data included), as ibv_post_send does.
            qp.postSend(sendReader.wrap(wr));
            if (WrOpcode.BIND_MW == wr.opcode())
            {
                wr.bindMw().posted(wr.bindNewRkey());
            }
        }
        qp.ringDoorbell();
    }

    /**
     * Post a chain of receive WRs (ibv_post_recv). All or nothing.
     *
     * @param first the first WR; {@link RecvWorkRequest#next()} links the rest.
     * @throws BadWorkRequestException naming the problem and the index of the bad WR.
     */
    public void postRecv(final RecvWorkRequest first)
    {
        ProgressGroup.requireNonNull(first, "wr");
        checkAlive();
        device.checkOpen();
        if (null != init.srq())
        {
            throw new BadWorkRequestException(0, first.wrId(), label + " takes its receive WRs from SRQ " +
                init.srq().handle() + ": post them there (ibv_post_srq_recv)");
        }
        final QpState state = qp.state();
        if (QpState.RESET == state)
        {
            throw new BadWorkRequestException(0, first.wrId(), label + " is in RESET: post_recv needs INIT or a " +
                "later state (C10-97.2.1)");
        }
        Posting.postRecv(qp.receiveQueue(), maxRecvSge, first, label, recvReader);
        if (QpState.ERR == state)
        {
            // rxe: receives posted in ERR are flushed at once; the engine flushes when it next runs the QP.
            qp.ringDoorbell();
        }
    }

    /**
     * @return e.g. {@code QP 0x11 RC RTS}.
     */
    public String toString()
    {
        return label + " " + type + " " + qp.state() + (destroyed ? " (destroyed)" : "");
    }
}
