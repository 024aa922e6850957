package org.roce4j.transport.engine;

import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.concurrent.Callable;

import org.agrona.BitUtil;
import org.agrona.MutableDirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.transport.AsyncEvent;
import org.roce4j.transport.AsyncEventType;
import org.roce4j.transport.Mtu;
import org.roce4j.transport.QpAttrMask;
import org.roce4j.transport.QpAttributes;
import org.roce4j.transport.QpCapabilities;
import org.roce4j.transport.QpState;
import org.roce4j.transport.QpType;
import org.roce4j.transport.TransportCounter;
import org.roce4j.transport.TransportCounters;
import org.roce4j.transport.link.FrameHandler;
import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.FrameStatusCounters;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.Transport;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.header.BthHeader;
import org.roce4j.wire.header.DethHeader;

/**
 * The RoCEv2 engine of one device: it owns the link, the QPs and memory regions, and runs the {@link Requester},
 * {@link Responder} and {@link Completer} state machines from a duty cycle ({@link #doWork()}), like rxe's per-QP
 * tasks but on one thread with no locks.
 *
 * <p>One duty cycle:
 * <ol>
 *   <li>run control commands queued by other threads (create/modify QP, register memory...);</li>
 *   <li>take doorbells rung by posting threads and schedule those QPs;</li>
 *   <li>poll a batch of frames from the link; parse, validate (rxe_recv.c order: ICRC, destination GID, QPN,
 *   transport vs QP type, QP state, addresses, P_Key, Q_Key) and hand each packet to the responder (requests) or
 *   the completer (responses), in place;</li>
 *   <li>send the ACKs the responder coalesced during the batch;</li>
 *   <li>fire due retransmit and RNR timers;</li>
 *   <li>run the requester of each scheduled QP (a packet budget each, for fairness);</li>
 *   <li>flush the link.</li>
 * </ol>
 *
 * <p>Threading: the engine is an Agrona {@link Agent}. In dedicated mode an AgentRunner thread calls
 * {@link #doWork()}; in invoker mode the application's thread does, with an injected clock, so tests are
 * deterministic. Methods marked "engine thread" must only be called from the thread running the duty cycle (or
 * through {@link #invoke(Callable)}); {@link #ringDoorbell(QpContext)} and the queues' producer sides may be used
 * from any thread.
 */
public final class RoceEngine implements Agent
{
    /** QPN of the GSI QP (IBA 13.5.1). */
    public static final int GSI_QPN = BthHeader.GSI_QPN;
    /** Capacity of the doorbell and command queues. */
    private static final int QUEUE_CAPACITY = 1 << 16;
    /** Largest QPN (24 bits, minus the multicast QPN). */
    private static final int MAX_QPN = 0xFF_FFFE;
    /** Longest a cross-thread control command may take before the caller gives up. */
    private static final long INVOKE_TIMEOUT_MS = 10_000;

    private final Link link;
    private final EngineConfig config;
    private final NanoClock clock;
    private final LinkAddress linkAddress;
    private final Mtu activeMtu;
    private final TransportCounters counters = new TransportCounters();
    private final FrameStatusCounters frameCounters = new FrameStatusCounters();
    private final RoceFrameParser parser = new RoceFrameParser(frameCounters);
    private final MrTable mrTable = new MrTable(new SecureRandom());
    private final Int2ObjectHashMap<QpContext> qps = new Int2ObjectHashMap<>();
    private final ArrayDeque<QpContext> runQueue = new ArrayDeque<>(1024);
    private final ArrayList<QpContext> ackList = new ArrayList<>(256);
    private final ArrayList<QpContext> timerList = new ArrayList<>(256);
    private final ManyToOneConcurrentArrayQueue<QpContext> doorbells =
        new ManyToOneConcurrentArrayQueue<>(QUEUE_CAPACITY);
    private final CommandQueue commands = new CommandQueue("the engine thread", INVOKE_TIMEOUT_MS);
    private final ManyToOneConcurrentArrayQueue<AsyncEvent> events = new ManyToOneConcurrentArrayQueue<>(4096);
    private final PacketSender sender;
    private final Requester requester;
    private final Completer completer;
    private final Responder responder;
    private final FrameHandler frameHandler = this::onFrame;
    private final long[] gidHigh = new long[2];
    private final long[] gidLow = new long[2];

    private long nowNs;
    private long earliestTimerNs = Long.MAX_VALUE;
    private int nextQpn;
    private int nextHandle = 1;
    private volatile Thread engineThread;
    private volatile Throwable lastInternalError;
    private QpContext gsiQp;

    /**
     * @param link   the medium; the engine owns it from now on.
     * @param config tunables.
     */
    public RoceEngine(final Link link, final EngineConfig config)
    {
        this.link = link;
        this.config = config;
        this.clock = config.clock();
        this.linkAddress = link.address();
        this.activeMtu = Mtu.forLinkMtu(link.mtu());
        this.nextQpn = config.firstQpn();
        this.nowNs = clock.nanoTime();
        // rxe's GID table: index 0 the link-local address from the MAC, index 1 the IPv4-mapped address.
        gidHigh[0] = Gid.LINK_LOCAL_HIGH;
        gidLow[0] = linkAddress.linkLocalLow();
        gidHigh[1] = Gid.IPV4_MAPPED_HIGH;
        gidLow[1] = linkAddress.ipv4MappedLow();
        this.sender = new PacketSender(link, counters);
        this.completer = new Completer(this);
        this.requester = new Requester(this, completer);
        this.responder = new Responder(this);
        events.offer(new AsyncEvent(AsyncEventType.PORT_ACTIVE, 1));
    }

    // ------------------------------------------------------------------------------------------------------------
    // Duty cycle
    // ------------------------------------------------------------------------------------------------------------

    /**
     * One duty cycle (engine thread).
     *
     * @return work done; 0 lets an idle strategy back off.
     */
    public int doWork()
    {
        nowNs = clock.nanoTime();
        int work = drainCommands();
        work += drainDoorbells();
        work += link.poll(frameHandler, config.receiveBatch());
        flushAcks();
        work += fireTimers();
        work += runScheduled();
        work += link.flush();
        return work;
    }

    /**
     * Record the current thread as the engine's (called by the agent runner).
     */
    public void onStart()
    {
        engineThread = Thread.currentThread();
    }

    /**
     * Forget the engine thread and close the link.
     */
    public void onClose()
    {
        engineThread = null;
        link.close();
    }

    /**
     * @return "roce-engine".
     */
    public String roleName()
    {
        return "roce-engine";
    }

    private int drainCommands()
    {
        return commands.drain();
    }

    private int drainDoorbells()
    {
        int n = 0;
        QpContext qp;
        while (null != (qp = doorbells.poll()))
        {
            qp.doorbell.set(false);
            if (!qp.destroyed)
            {
                schedule(qp);
            }
            n++;
        }
        return n;
    }

    private int runScheduled()
    {
        int work = 0;
        for (int i = runQueue.size(); i > 0; i--)
        {
            final QpContext qp = runQueue.pollFirst();
            qp.scheduled = false;
            if (qp.destroyed)
            {
                continue;
            }
            work += responder.continueRead(qp, config.qpSendBudget());
            work += requester.run(qp, config.qpSendBudget());
            if (RequesterStall.BUDGET == qp.req.stall || (null != qp.resp.activeRead && qp.resp.activeRead.replying))
            {
                schedule(qp);
            }
        }
        return work;
    }

    private void flushAcks()
    {
        final ArrayList<QpContext> list = ackList;
        final int listed = list.size();
        for (int i = 0; i < listed; i++)
        {
            final QpContext qp = list.get(i);
            qp.ackListed = false;
            responder.sendPendingAck(qp);
        }
        // An ACK that met a full link put its QP back on the list (appended): keep those for the next cycle. Clearing
        // the whole list lost them with ackListed still set, so no later ACK of that QP was ever sent again.
        final int size = list.size();
        for (int i = listed; i < size; i++)
        {
            list.set(i - listed, list.get(i));
        }
        for (int i = size - 1; i >= size - listed; i--)
        {
            list.remove(i);
        }
    }

    private int fireTimers()
    {
        if (nowNs - earliestTimerNs < 0)
        {
            return 0;
        }
        int fired = 0;
        long earliest = Long.MAX_VALUE;
        final ArrayList<QpContext> list = timerList;
        for (int i = list.size() - 1; i >= 0; i--)
        {
            final QpContext qp = list.get(i);
            final long retransmit = qp.comp.retransmitDeadlineNs;
            if (0 != retransmit && nowNs - retransmit >= 0)
            {
                qp.comp.retransmitDeadlineNs = 0;
                completer.onRetransmitTimeout(qp);
                fired++;
            }
            if (qp.req.waitingRnrTimer && nowNs - qp.req.rnrDeadlineNs >= 0)
            {
                qp.req.waitingRnrTimer = false;
                qp.req.needRetry = true;
                schedule(qp);
                fired++;
            }
            final long nextRetransmit = qp.comp.retransmitDeadlineNs;
            final boolean rnr = qp.req.waitingRnrTimer;
            if (0 == nextRetransmit && !rnr || qp.destroyed)
            {
                qp.timerListed = false;
                final int last = list.size() - 1;
                list.set(i, list.get(last));
                list.remove(last);
                continue;
            }
            if (0 != nextRetransmit && nextRetransmit < earliest)
            {
                earliest = nextRetransmit;
            }
            if (rnr && qp.req.rnrDeadlineNs < earliest)
            {
                earliest = qp.req.rnrDeadlineNs;
            }
        }
        earliestTimerNs = earliest;
        return fired;
    }

    // ------------------------------------------------------------------------------------------------------------
    // Receive path
    // ------------------------------------------------------------------------------------------------------------

    private void onFrame(final MutableDirectBuffer buffer, final int offset, final int length)
    {
        try
        {
            receive(buffer, offset, length);
        }
        catch (final RuntimeException ex)
        {
            // A bug, never wire input: wire input is classified before it is used. Keep the engine alive.
            counters.increment(TransportCounter.INTERNAL_ERRORS);
            lastInternalError = ex;
        }
    }

    private void receive(final MutableDirectBuffer buffer, final int offset, final int length)
    {
        final RoceFrameParser parser = this.parser;
        final FrameStatus status = parser.parse(buffer, offset, length, link.verifiesIcrc());
        if (FrameStatus.OK != status)
        {
            if (FrameStatus.BAD_ICRC == status)
            {
                counters.increment(TransportCounter.DROP_BAD_ICRC);
            }
            else if (!status.isNotRoce())
            {
                counters.increment(TransportCounter.DROP_MALFORMED_FRAME);
            }
            return;
        }
        // rxe_chk_dgid: the destination must be one of our GIDs.
        if (!isOurDestination(parser))
        {
            counters.increment(TransportCounter.DROP_NOT_OUR_GID);
            return;
        }
        final BthHeader bth = parser.bth();
        final int qpn = bth.destQp();
        final QpContext qp = GSI_QPN == qpn ? gsiQp : qps.get(qpn);
        if (null == qp || qp.destroyed)
        {
            counters.increment(TransportCounter.DROP_NO_QP);
            return;
        }
        final Opcode opcode = parser.opcode();
        // rxe check_type_state: the opcode's transport must be the QP's.
        if (opcode.transport() != qp.type.transport())
        {
            counters.increment(TransportCounter.DROP_WRONG_TRANSPORT);
            return;
        }
        final QpState state = qp.state();
        final boolean request = opcode.isRequest();
        if (request ? !acceptsRequests(state) : !acceptsResponses(state))
        {
            counters.increment(TransportCounter.DROP_WRONG_STATE);
            return;
        }
        // rxe check_keys: P_Key must match the only P_Key, 0xFFFF (pkey_match: low 15 bits equal, one full member).
        if (0x7FFF != (bth.pkey() & 0x7FFF))
        {
            counters.increment(TransportCounter.DROP_BAD_PKEY);
            return;
        }
        if (Transport.UD == opcode.transport())
        {
            final int expectedQkey = GSI_QPN == qpn ? DethHeader.GSI_QKEY : qp.attributes.qkey;
            if (parser.deth().qkey() != expectedQkey)
            {
                counters.increment(TransportCounter.DROP_BAD_QKEY);
                return;
            }
        }
        else if (!addressMatches(qp, parser))
        {
            // rxe check_addr: RC/UC packets must come from the QP's peer to the QP's own address.
            counters.increment(TransportCounter.DROP_ADDRESS_MISMATCH);
            return;
        }
        counters.increment(TransportCounter.PACKETS_RECEIVED);
        if (request)
        {
            if (QpState.RTR == state && !qp.commEstablished)
            {
                // First request on a QP still in RTR: IBA 11.6.3 "communication established" (raised once).
                qp.commEstablished = true;
                raise(AsyncEventType.COMM_EST, qp.qpn);
            }
            responder.onRequest(qp, parser);
        }
        else
        {
            completer.onResponse(qp, parser);
        }
    }

    private static boolean acceptsRequests(final QpState state)
    {
        return QpState.RTR == state || QpState.RTS == state || QpState.SQD == state || QpState.SQE == state;
    }

    private static boolean acceptsResponses(final QpState state)
    {
        return QpState.RTS == state || QpState.SQD == state;
    }

    private boolean isOurDestination(final RoceFrameParser parser)
    {
        if (4 == parser.ipVersion())
        {
            return parser.ipv4().destination() == linkAddress.ipv4();
        }
        final long high = parser.ipv6().destinationHigh();
        final long low = parser.ipv6().destinationLow();
        return (high == gidHigh[0] && low == gidLow[0]) || (high == gidHigh[1] && low == gidLow[1]);
    }

    private static boolean addressMatches(final QpContext qp, final RoceFrameParser parser)
    {
        final AddressVector av = qp.address;
        if (4 == parser.ipVersion())
        {
            return !av.ipv6() && parser.ipv4().source() == av.destinationIpv4() &&
                parser.ipv4().destination() == av.sourceIpv4();
        }
        return av.ipv6() && parser.ipv6().sourceHigh() == av.destinationHigh() &&
            parser.ipv6().sourceLow() == av.destinationLow() && parser.ipv6().destinationHigh() == av.sourceHigh() &&
            parser.ipv6().destinationLow() == av.sourceLow();
    }

    // ------------------------------------------------------------------------------------------------------------
    // Services for the role state machines (engine thread)
    // ------------------------------------------------------------------------------------------------------------

    long nowNs()
    {
        return nowNs;
    }

    EngineConfig config()
    {
        return config;
    }

    PacketSender sender()
    {
        return sender;
    }

    MrTable mrTable()
    {
        return mrTable;
    }

    Requester requester()
    {
        return requester;
    }

    Responder responder()
    {
        return responder;
    }

    Completer completer()
    {
        return completer;
    }

    /**
     * Put a QP on the run queue (its requester or READ reply has work).
     *
     * @param qp the QP.
     */
    void schedule(final QpContext qp)
    {
        if (!qp.scheduled)
        {
            qp.scheduled = true;
            runQueue.addLast(qp);
        }
    }

    void listAck(final QpContext qp)
    {
        if (!qp.ackListed)
        {
            qp.ackListed = true;
            ackList.add(qp);
        }
    }

    /**
     * Make sure the timer scan looks at this QP by its retransmit or RNR deadline.
     *
     * @param qp         the QP.
     * @param deadlineNs the deadline just armed.
     */
    void armTimer(final QpContext qp, final long deadlineNs)
    {
        if (!qp.timerListed)
        {
            qp.timerListed = true;
            timerList.add(qp);
        }
        if (deadlineNs - earliestTimerNs < 0)
        {
            earliestTimerNs = deadlineNs;
        }
    }

    void raise(final AsyncEventType type, final int element)
    {
        if (!events.offer(new AsyncEvent(type, element)))
        {
            counters.increment(TransportCounter.INTERNAL_ERRORS);
        }
    }

    /**
     * Move a QP to the error state because of a protocol or local error (rxe_qp_error); its queues are flushed
     * on its next run.
     *
     * @param qp    the QP.
     * @param event the asynchronous event to raise, or null for none.
     */
    void qpError(final QpContext qp, final AsyncEventType event)
    {
        if (QpState.ERR == qp.state())
        {
            return;
        }
        qp.state(QpState.ERR);
        counters.increment(TransportCounter.QP_ERRORS);
        qp.comp.retransmitDeadlineNs = 0;
        qp.req.waitingRnrTimer = false;
        if (null != event)
        {
            raise(event, qp.qpn);
        }
        if (null != qp.srq)
        {
            raise(AsyncEventType.QP_LAST_WQE_REACHED, qp.qpn);
        }
        schedule(qp);
    }

    TransportCounters countersInternal()
    {
        return counters;
    }

    // ------------------------------------------------------------------------------------------------------------
    // Control API (engine thread; other threads go through invoke)
    // ------------------------------------------------------------------------------------------------------------

    /**
     * Run a control operation on the engine's thread and return its result: directly when called from that thread
     * (or in invoker mode, where the caller is the engine's thread), else through the command queue, waiting.
     *
     * @param command the operation.
     * @param <T>     its result type.
     * @return its result.
     */
    public <T> T invoke(final Callable<T> command)
    {
        final Thread owner = engineThread;
        return commands.call(null == owner || Thread.currentThread() == owner, command);
    }

    /**
     * Tell the engine a QP has new send WRs (any thread). Cheap when already rung and not yet seen.
     *
     * @param qp the QP.
     */
    public void ringDoorbell(final QpContext qp)
    {
        if (qp.doorbell.compareAndSet(false, true))
        {
            while (!doorbells.offer(qp))
            {
                Thread.onSpinWait();
            }
        }
    }

    /**
     * @return a fresh handle for CQs, SRQs and PDs.
     */
    public int nextHandle()
    {
        return invoke(() -> nextHandle++);
    }

    /**
     * Create a QP in RESET (engine thread).
     *
     * @param type      RC, UC, UD or GSI.
     * @param pdHandle  protection domain.
     * @param caps      queue sizes.
     * @param sendCq    send completion queue.
     * @param recvCq    receive completion queue.
     * @param srq       shared receive queue, or null.
     * @param signalAll sq_sig_all.
     * @return the QP.
     */
    public QpContext createQp(
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
            qpn = GSI_QPN;
        }
        else
        {
            qpn = allocateQpn();
        }
        final QpContext qp = new QpContext(qpn, type, pdHandle, caps, sendCq, recvCq, srq, signalAll);
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
            nextQpn = candidate >= MAX_QPN ? config.firstQpn() : candidate + 1;
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
    public static int rxeUdpSourcePort(final int qpn)
    {
        // hash_32(val, bits) = (val * GOLDEN_RATIO_32) >> (32 - bits), GOLDEN_RATIO_32 = 0x61C88647 (linux/hash.h).
        final int hash = (qpn * 0x61C8_8647) >>> (32 - 14);
        return 0xC000 + (hash & 0x3FFF);
    }

    /**
     * Destroy a QP (engine thread): later packets for it are dropped as "no QP".
     *
     * @param qp the QP.
     */
    public void destroyQp(final QpContext qp)
    {
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
    public QpContext qp(final int qpn)
    {
        return GSI_QPN == qpn ? gsiQp : qps.get(qpn);
    }

    /**
     * @return number of QPs (without the GSI QP).
     */
    public int qpCount()
    {
        return qps.size();
    }

    /**
     * Apply attributes (engine thread). The caller has validated the transition and the mask against the
     * transition table; this applies the values, resolves the address vector and performs the state change.
     *
     * @param qp   the QP.
     * @param attr values.
     * @param mask which of them to apply ({@link QpAttrMask}).
     */
    public void modifyQp(final QpContext qp, final QpAttributes attr, final int mask)
    {
        final QpAttributes current = qp.attributes;
        if (0 != (mask & QpAttrMask.PATH_MTU))
        {
            if (attr.pathMtu.bytes() > activeMtu.bytes())
            {
                throw new IllegalArgumentException("path MTU " + attr.pathMtu.bytes() + " exceeds the port's active" +
                    " MTU " + activeMtu.bytes() + " (link MTU " + link.mtu() + ")");
            }
            current.pathMtu = attr.pathMtu;
            qp.mtuBytes = attr.pathMtu.bytes();
        }
        if (0 != (mask & QpAttrMask.AV))
        {
            resolveAddress(attr.ahAttr, qp.address);
            qp.address.udpSourcePort(qp.udpSourcePort);
            current.ahAttr.copyFrom(attr.ahAttr);
            // As the kernel resolves the destination MAC at modify time, warm the link's neighbour table.
            warmNeighbour(qp.address);
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
            qp.udpSourcePort = connectedUdpSourcePort(current.ahAttr.flowLabel(), qp.qpn, current.destQpNum);
            qp.address.udpSourcePort(qp.udpSourcePort);
        }
        if (0 != (mask & QpAttrMask.STATE))
        {
            changeState(qp, attr.qpState);
        }
    }

    /**
     * The UDP source port of a connected (RC/UC) QP: rdma_get_udp_sport(flow label, local QPN, remote QPN) from the
     * kernel's ib_verbs.h. A zero flow label is replaced by rdma_calc_flow_label(lqpn, rqpn); the 20-bit label
     * is folded to 14 bits and put in the dynamic range 0xC000-0xFFFF.
     *
     * @param flowLabel the address's flow label, 0 for "derive it".
     * @param localQpn  this QP.
     * @param remoteQpn the peer QP.
     * @return the port.
     */
    public static int connectedUdpSourcePort(final int flowLabel, final int localQpn, final int remoteQpn)
    {
        int label = flowLabel & 0xFFFFF;
        if (0 == label)
        {
            long v = (localQpn & 0xFFFF_FFFFL) * (remoteQpn & 0xFFFF_FFFFL);
            v ^= v >>> 20;
            v ^= v >>> 40;
            label = (int)(v & 0xFFFFF);
        }
        return ((label & 0x3FFF) ^ ((label & 0xFC000) >>> 14)) | 0xC000;
    }

    private void changeState(final QpContext qp, final QpState target)
    {
        switch (target)
        {
            case RESET:
                resetQp(qp);
                break;
            case RTS:
                qp.state(QpState.RTS);
                qp.sqDraining = false;
                schedule(qp);
                break;
            case SQD:
                qp.state(QpState.SQD);
                qp.sqDraining = true;
                schedule(qp);
                break;
            case ERR:
                qp.state(QpState.ERR);
                qp.comp.retransmitDeadlineNs = 0;
                qp.req.waitingRnrTimer = false;
                if (null != qp.srq)
                {
                    raise(AsyncEventType.QP_LAST_WQE_REACHED, qp.qpn);
                }
                schedule(qp);
                break;
            default:
                qp.state(target);
                break;
        }
    }

    private void resetQp(final QpContext qp)
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
     * Start resolving the layer-2 address of a vector's destination (engine thread): the kernel resolves the
     * destination MAC when an address handle is created (ib_create_ah resolves the DMAC for RoCE) and when a
     * connected QP gets its path, so the first datagrams do not wait for ARP or overflow the link's hold queue.
     *
     * @param vector a resolved address vector.
     */
    public void warmNeighbour(final AddressVector vector)
    {
        if (!vector.ipv6())
        {
            link.resolve(vector.destinationIpv4());
        }
    }

    /**
     * Fill an address vector from address-handle attributes and this device's GID table (engine thread or any
     * thread: reads only immutable state).
     *
     * @param ah  attributes.
     * @param out vector to fill.
     */
    public void resolveAddress(final org.roce4j.transport.AhAttributes ah, final AddressVector out)
    {
        final int index = ah.sgidIndex();
        if (index < 0 || index >= gidHigh.length)
        {
            throw new IllegalArgumentException("sgid_index " + index + " is not in the GID table (0: link-local " +
                "IPv6, 1: IPv4-mapped)");
        }
        out.gids(gidHigh[index], gidLow[index], ah.dgidHigh(), ah.dgidLow())
            .trafficClass(ah.trafficClass())
            .hopLimit(ah.hopLimit())
            .flowLabel(ah.flowLabel())
            .serviceLevel(ah.serviceLevel());
    }

    /**
     * @param qp  the QP.
     * @param out filled with the QP's current attributes.
     */
    public void queryQp(final QpContext qp, final QpAttributes out)
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
     * Register memory (engine thread).
     *
     * @param iova     address peers use for the first byte.
     * @param access   access flags.
     * @param pdHandle protection domain.
     * @param memory   the bytes.
     * @return the region with fresh keys.
     */
    public MemoryRegionEntry registerMemory(
        final long iova, final int access, final int pdHandle, final UnsafeBuffer memory)
    {
        return mrTable.register(iova, access, pdHandle, memory);
    }

    /**
     * Register memory under chosen keys (engine thread); see {@link MrTable#registerWithKeys}.
     *
     * @param iova     address peers use for the first byte.
     * @param access   access flags.
     * @param pdHandle protection domain.
     * @param memory   the bytes.
     * @param lkey     local key.
     * @param rkey     remote key.
     * @return the region.
     */
    public MemoryRegionEntry registerMemoryWithKeys(
        final long iova, final int access, final int pdHandle, final UnsafeBuffer memory, final int lkey, final int rkey)
    {
        return mrTable.registerWithKeys(iova, access, pdHandle, memory, lkey, rkey);
    }

    /**
     * Deregister memory (engine thread).
     *
     * @param region the region.
     */
    public void deregisterMemory(final MemoryRegionEntry region)
    {
        mrTable.deregister(region);
    }

    /**
     * @return number of registered memory regions.
     */
    public int memoryRegionCount()
    {
        return mrTable.size();
    }

    // ------------------------------------------------------------------------------------------------------------
    // Observation
    // ------------------------------------------------------------------------------------------------------------

    /**
     * @return the engine's counters (any thread).
     */
    public TransportCounters counters()
    {
        return counters;
    }

    /**
     * @return per-reason counts of frames the parser rejected (any thread).
     */
    public FrameStatusCounters frameCounters()
    {
        return frameCounters;
    }

    /**
     * @return the next asynchronous event, or null (any single consumer thread).
     */
    public AsyncEvent pollEvent()
    {
        return events.poll();
    }

    /**
     * @return the link.
     */
    public Link link()
    {
        return link;
    }

    /**
     * @return the port's active MTU, derived from the link MTU as rxe does.
     */
    public Mtu activeMtu()
    {
        return activeMtu;
    }

    /**
     * @param index 0 or 1.
     * @return high 64 bits of that GID.
     */
    public long gidHigh(final int index)
    {
        return gidHigh[index];
    }

    /**
     * @param index 0 or 1.
     * @return low 64 bits of that GID.
     */
    public long gidLow(final int index)
    {
        return gidLow[index];
    }

    /**
     * @return size of the GID table (2: link-local and IPv4-mapped).
     */
    public int gidTableLength()
    {
        return gidHigh.length;
    }

    /**
     * @return the last exception an engine bug raised while processing a frame, or null.
     */
    public Throwable lastInternalError()
    {
        return lastInternalError;
    }

    /**
     * @return the engine's clock.
     */
    public NanoClock clock()
    {
        return clock;
    }

    /**
     * @return true when no work is scheduled and no timer is armed: a quiet engine.
     */
    public boolean isIdle()
    {
        return runQueue.isEmpty() && timerList.isEmpty() && doorbells.isEmpty() && commands.isEmpty();
    }

    /**
     * @return the earliest armed timer deadline, or Long.MAX_VALUE (lets invoker-mode tests jump the clock).
     */
    public long earliestDeadlineNs()
    {
        long earliest = Long.MAX_VALUE;
        for (int i = 0, n = timerList.size(); i < n; i++)
        {
            final QpContext qp = timerList.get(i);
            if (0 != qp.comp.retransmitDeadlineNs && qp.comp.retransmitDeadlineNs < earliest)
            {
                earliest = qp.comp.retransmitDeadlineNs;
            }
            if (qp.req.waitingRnrTimer && qp.req.rnrDeadlineNs < earliest)
            {
                earliest = qp.req.rnrDeadlineNs;
            }
        }
        return earliest;
    }
}
