package org.roce4j.transport.provider;

import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;
import org.roce4j.transport.cc.CongestionControl;

/**
 * Tunables of one engine. Defaults suit both interop with rxe and the in-memory fabric.
 */
public final class EngineConfig
{
    /**
     * AckReq on at least every 64th packet of a long message, as rxe's RXE_MAX_PKT_PER_ACK (rxe_param.h), so a
     * responder that only ACKs on request keeps the window moving.
     */
    public static final int DEFAULT_ACK_REQ_INTERVAL = 64;
    /**
     * Unacknowledged PSNs the requester allows. rxe uses 128 (RXE_MAX_UNACKED_PSNS); roce4j allows more because
     * its retransmission rebuilds packets from the WQE and memory (nothing is buffered per PSN) and because a
     * larger window keeps a fast link busy. Peers accept any window: it is the requester's choice (IBA 9.7.7).
     */
    public static final int DEFAULT_SEND_WINDOW = 1024;
    /** Frames taken from the link per duty cycle. */
    public static final int DEFAULT_RECEIVE_BATCH = 64;
    /** Packets one QP may send per duty cycle before the next QP gets a turn. */
    public static final int DEFAULT_QP_SEND_BUDGET = 32;

    private NanoClock clock = SystemNanoClock.INSTANCE;
    private int ackReqInterval = DEFAULT_ACK_REQ_INTERVAL;
    private int sendWindow = DEFAULT_SEND_WINDOW;
    private int receiveBatch = DEFAULT_RECEIVE_BATCH;
    private int qpSendBudget = DEFAULT_QP_SEND_BUDGET;
    private boolean coalesceAcks = true;
    private boolean retryCountSevenForever;
    private boolean rxeFlushIcrc;
    private int firstQpn = 0x11;
    private CongestionControl congestionControl = CongestionControl.NONE;

    /**
     * @return the clock every timer uses.
     */
    public NanoClock clock()
    {
        return clock;
    }

    /**
     * @param clock the clock every timer uses (tests pass a CachedNanoClock they advance).
     * @return this.
     */
    public EngineConfig clock(final NanoClock clock)
    {
        this.clock = clock;
        return this;
    }

    /**
     * @return packets between forced AckReq bits inside a message.
     */
    public int ackReqInterval()
    {
        return ackReqInterval;
    }

    /**
     * @param interval packets between forced AckReq bits inside a message (at least 1).
     * @return this.
     */
    public EngineConfig ackReqInterval(final int interval)
    {
        this.ackReqInterval = requirePositive(interval, "ackReqInterval");
        return this;
    }

    /**
     * @return unacknowledged PSNs allowed.
     */
    public int sendWindow()
    {
        return sendWindow;
    }

    /**
     * @param window unacknowledged PSNs allowed (1 .. 2^23 - 1).
     * @return this.
     */
    public EngineConfig sendWindow(final int window)
    {
        if (window < 1 || window >= (1 << 23))
        {
            throw new IllegalArgumentException("sendWindow must be 1 .. 8388607 PSNs, got " + window);
        }
        this.sendWindow = window;
        return this;
    }

    /**
     * @return frames taken from the link per duty cycle.
     */
    public int receiveBatch()
    {
        return receiveBatch;
    }

    /**
     * @param batch frames taken from the link per duty cycle (at least 1).
     * @return this.
     */
    public EngineConfig receiveBatch(final int batch)
    {
        this.receiveBatch = requirePositive(batch, "receiveBatch");
        return this;
    }

    /**
     * @return packets a QP may send per duty cycle.
     */
    public int qpSendBudget()
    {
        return qpSendBudget;
    }

    /**
     * @param budget packets a QP may send per duty cycle (at least 1).
     * @return this.
     */
    public EngineConfig qpSendBudget(final int budget)
    {
        this.qpSendBudget = requirePositive(budget, "qpSendBudget");
        return this;
    }

    /**
     * @return true when the responder sends one ACK per burst of a QP's frames in a receive batch (at the end of the
     *     burst; one per batch for a QP whose frames come interleaved with other QPs') instead of one per AckReq.
     */
    public boolean coalesceAcks()
    {
        return coalesceAcks;
    }

    /**
     * @param coalesce false makes the responder ACK every AckReq immediately, exactly as rxe does.
     * @return this.
     */
    public EngineConfig coalesceAcks(final boolean coalesce)
    {
        this.coalesceAcks = coalesce;
        return this;
    }

    /**
     * @return true when a QP's retry_cnt of 7 means "retry forever", as rxe takes it.
     */
    public boolean retryCountSevenForever()
    {
        return retryCountSevenForever;
    }

    /**
     * @param forever true to take a retry_cnt of 7 as "retry forever", as rxe does (rxe_comp.c: "if
     *                (qp->comp.retry_cnt != 7) qp->comp.retry_cnt--"). false (the default) follows IBA 9.7.6.1.3:
     *                7 is seven retries, so a QP whose peer died fails with RETRY_EXC_ERR after about local ACK
     *                timeout x 8. Only rnr_retry 7 means forever in the IBA. Fault-injection suites that want every
     *                WR to survive any loss rate set this.
     * @return this.
     */
    public EngineConfig retryCountSevenForever(final boolean forever)
    {
        this.retryCountSevenForever = forever;
        return this;
    }

    /**
     * @return true when FLUSH packets use rxe's ICRC instead of the standard one (see {@link #rxeFlushIcrc(boolean)}).
     */
    public boolean rxeFlushIcrc()
    {
        return rxeFlushIcrc;
    }

    /**
     * @param rxe true to talk FLUSH with rxe (seen with Linux 6.12): rxe computes the ICRC of an RC FLUSH over its
     *            headers twice (rxe_opcode.c gives RC_FLUSH no payload offset; {@link org.roce4j.wire.Icrc#computeRxeFlush})
     *            and drops a FLUSH with the standard ICRC silently. With this set, FLUSH requests go out sealed the
     *            rxe way and a received FLUSH carrying rxe's ICRC is accepted and counted
     *            ({@link org.roce4j.transport.TransportCounter#RXE_FLUSH_ICRC}). false (the default) follows IBA
     *            A17.3.3, under which rxe's FLUSH is a bad ICRC.
     * @return this.
     */
    public EngineConfig rxeFlushIcrc(final boolean rxe)
    {
        this.rxeFlushIcrc = rxe;
        return this;
    }

    /**
     * @return the first QPN handed out.
     */
    public int firstQpn()
    {
        return firstQpn;
    }

    /**
     * @param qpn the first QPN handed out (rxe starts at 0x11, RXE_MIN_QP_INDEX + 1); 2 .. 0xFFFFFE.
     * @return this.
     */
    public EngineConfig firstQpn(final int qpn)
    {
        if (qpn < 2 || qpn >= 0xFF_FFFF)
        {
            throw new IllegalArgumentException("firstQpn must be 2 .. 0xFFFFFE, got " + qpn);
        }
        this.firstQpn = qpn;
        return this;
    }

    /**
     * @return the device's congestion control ({@link CongestionControl#NONE} unless set).
     */
    public CongestionControl congestionControl()
    {
        return congestionControl;
    }

    /**
     * @param congestionControl {@link CongestionControl#NONE} (rxe's behaviour, the default) or DCQCN with its
     *                          parameters ({@link CongestionControl#parse(String)}).
     * @return this.
     */
    public EngineConfig congestionControl(final CongestionControl congestionControl)
    {
        if (null == congestionControl)
        {
            throw new IllegalArgumentException("congestionControl must not be null (CongestionControl.NONE turns it " +
                "off)");
        }
        this.congestionControl = congestionControl;
        return this;
    }

    private static int requirePositive(final int value, final String name)
    {
        if (value < 1)
        {
            throw new IllegalArgumentException(name + " must be >= 1, got " + value);
        }
        return value;
    }
}
