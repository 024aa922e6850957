package org.roce4j.transport.engine;

import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.concurrent.Callable;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.ib.AhAttributes;
import org.roce4j.ib.AsyncEvent;
import org.roce4j.ib.AsyncEventType;
import org.roce4j.ib.Mtu;
import org.roce4j.ib.QpAttrMask;
import org.roce4j.ib.QpAttributes;
import org.roce4j.ib.QpCapabilities;
import org.roce4j.ib.QpType;
import org.roce4j.transport.TransportCounter;
import org.roce4j.transport.TransportCounters;
import org.roce4j.transport.cc.QpRate;
import org.roce4j.transport.link.Link;
import org.roce4j.transport.provider.CommandQueue;
import org.roce4j.transport.provider.EngineConfig;
import org.roce4j.wire.FrameStatusCounters;

/**
 * The RoCEv2 engine of one device: it owns the link, the QPs and memory regions, and runs the {@link Requester},
 * {@link Responder} and {@link Completer} state machines from a duty cycle ({@link #doWork()}), like rxe's per-QP
 * tasks but on one thread with no locks. The rest is split as rxe splits its files: {@link ReceiveChecks}
 * (rxe_recv.c), {@link QpControl} (rxe_qp.c), {@link GidTable} and {@link AddressResolution} (rxe_av.c); timers are
 * in {@link QpTimers}. This class keeps the duty cycle, the services the parts share (run queue, events, counters,
 * memory registration, commands and doorbells from other threads) and the control API, which delegates. Outside
 * this package it is reached only through the provider interfaces, as {@link RoceVerbs} presents it.
 *
 * <p>One duty cycle:
 * <ol>
 *   <li>run control commands queued by other threads (create/modify QP, register memory...);</li>
 *   <li>take doorbells rung by posting threads and schedule those QPs;</li>
 *   <li>poll a batch of frames from the link; check each ({@link ReceiveChecks}) and hand it to the responder
 *   (requests) or the completer (responses), in place; a frame for another QP ends the burst of the QP before it,
 *   whose coalesced ACK leaves then;</li>
 *   <li>send the ACK of the batch's last burst (and any that met a full link);</li>
 *   <li>fire due retransmit and RNR timers ({@link QpTimers});</li>
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
final class RoceEngine implements Agent
{
    /** Capacity of the doorbell queue: QPs with new send WRs not yet seen by the engine. */
    private static final int DOORBELL_CAPACITY = 1 << 16;
    /** Capacity of the asynchronous event queue. */
    private static final int EVENT_CAPACITY = 4096;
    /** Longest a cross-thread control command may take before the caller gives up. */
    private static final long INVOKE_TIMEOUT_MS = 10_000;
    /**
     * Rounds of sending pending ACKs and flushing the link when the device closes: each round the link may take
     * what its socket or ring freed meanwhile; a few suffice, and the bound keeps a close from spinning on a link
     * that refuses everything.
     */
    private static final int CLOSE_DRAIN_ROUNDS = 16;

    private final Link link;
    final EngineConfig config;
    private final NanoClock clock;
    private final Mtu activeMtu;
    private final TransportCounters counters = new TransportCounters();
    private final FrameStatusCounters frameCounters = new FrameStatusCounters();
    final MrTable mrTable = new MrTable(new SecureRandom());
    final MwTable mwTable = new MwTable(mrTable, new SecureRandom());
    private final ArrayDeque<QpContext> runQueue = new ArrayDeque<>(1024);
    final DoorbellQueue doorbells = new DoorbellQueue(DOORBELL_CAPACITY);
    private final CommandQueue commands = new CommandQueue("the engine thread", INVOKE_TIMEOUT_MS);
    private final ManyToOneConcurrentArrayQueue<AsyncEvent> events =
        new ManyToOneConcurrentArrayQueue<>(EVENT_CAPACITY);
    final GidTable gids;
    final McastTable mcast;
    private final AddressResolution addresses;
    // The parts, package-private so that they reach each other (engine thread).
    final QpControl qpControl;
    final PacketSender sender;
    final Requester requester;
    final Completer completer;
    final Responder responder;
    final QpTimers timers;
    final CongestionPoints congestion;
    private final ReceiveChecks receiveChecks;

    private long nowNs;
    private int nextHandle = 1;
    private volatile Thread engineThread;

    /**
     * @param link   the medium; the engine owns it from now on.
     * @param config tunables.
     */
    RoceEngine(final Link link, final EngineConfig config)
    {
        this.link = link;
        this.config = config;
        this.clock = config.clock();
        this.activeMtu = Mtu.forLinkMtu(link.mtu());
        this.nowNs = clock.nanoTime();
        this.gids = new GidTable(link.address());
        this.mcast = new McastTable(link);
        this.addresses = new AddressResolution(gids, link);
        this.qpControl = new QpControl(this, addresses, activeMtu, link.mtu(), config.firstQpn());
        this.sender = new PacketSender(link, counters, config.congestionControl());
        sender.builder().rxeFlushIcrc(config.rxeFlushIcrc());
        this.congestion = new CongestionPoints(this, config.congestionControl(), counters);
        this.completer = new Completer(this);
        this.requester = new Requester(this, completer);
        this.responder = new Responder(this);
        this.timers = new QpTimers(this, nowNs);
        this.receiveChecks = new ReceiveChecks(this, link, gids, qpControl, mcast, frameCounters,
            config.rxeFlushIcrc());
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
        int work = commands.drain();
        work += doorbells.drain(this);
        work += link.poll(receiveChecks, config.receiveBatch());
        responder.flushAcks();
        work += timers.fire(nowNs);
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
     * Send what the engine still owes the wire, then forget the engine thread and close the link (engine thread: the
     * agent runner calls it after the last duty cycle, an INVOKER device's close after leaving its group).
     *
     * <p>rxe's responder sends the ACK of a message in the same task run that posts its receive completion
     * (rxe_resp.c: RESPST_COMPLETE, then RESPST_ACKNOWLEDGE), and ibv_destroy_qp waits for that task
     * (rxe_qp_destroy: rxe_cleanup_task), so an application that saw its last completion and closes never leaves
     * the ACK its peer waits for unsent. Here a completion is visible before the batch's coalesced ACKs are sent
     * at the end of the duty cycle, and an ACK that met a full link waits for a later cycle: the drain sends those
     * ACKs and the link's committed frames now, in at most {@link #CLOSE_DRAIN_ROUNDS} rounds and without waiting.
     * ACKs the link still refuses are lost and counted ({@link TransportCounter#ACKS_LOST_AT_CLOSE}).
     */
    public void onClose()
    {
        drainOnClose();
        engineThread = null;
        link.close();
    }

    private void drainOnClose()
    {
        for (int round = 0; round < CLOSE_DRAIN_ROUNDS; round++)
        {
            responder.flushAcks();
            final int sent = link.flush();
            if (0 == sent && 0 == responder.unsentAcks())
            {
                break;
            }
        }
        counters.add(TransportCounter.ACKS_LOST_AT_CLOSE, responder.unsentAcks());
    }

    /**
     * @return "roce-engine".
     */
    public String roleName()
    {
        return "roce-engine";
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

    // ------------------------------------------------------------------------------------------------------------
    // Services for the parts (engine thread)
    // ------------------------------------------------------------------------------------------------------------

    long nowNs()
    {
        return nowNs;
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

    void raise(final AsyncEventType type, final int element)
    {
        if (!events.offer(new AsyncEvent(type, element)))
        {
            counters.increment(TransportCounter.INTERNAL_ERRORS);
        }
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
        doorbells.ring(qp);
    }

    /**
     * @return a fresh handle for CQs, SRQs and PDs.
     */
    public int nextHandle()
    {
        return invoke(() -> nextHandle++);
    }

    /**
     * Create a QP in RESET (engine thread); see {@link QpControl#create}.
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
        return qpControl.create(type, pdHandle, caps, sendCq, recvCq, srq, signalAll);
    }

    /**
     * Destroy a QP (engine thread): later packets for it are dropped as "no QP".
     *
     * @param qp the QP.
     */
    public void destroyQp(final QpContext qp)
    {
        qpControl.destroy(qp);
    }

    /**
     * @param qpn a QP number.
     * @return the QP, or null.
     */
    public QpContext qp(final int qpn)
    {
        return qpControl.lookup(qpn);
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
        qpControl.modify(qp, attr, mask);
    }

    /**
     * @param qp  the QP.
     * @param out filled with the QP's current attributes.
     */
    public void queryQp(final QpContext qp, final QpAttributes out)
    {
        QpControl.query(qp, out);
    }

    /**
     * The QP's congestion-control state (engine thread): whether a DCQCN rate limiter holds it, its current and target
     * rate and alpha, brought up to the engine's time first.
     *
     * @param qp the QP.
     * @return a snapshot; a QP without a limiter reports the line rate.
     */
    public QpRate qpRate(final QpContext qp)
    {
        return congestion.rate(qp);
    }

    /**
     * Start resolving the layer-2 address of a vector's destination (engine thread); see
     * {@link AddressResolution#warmNeighbour}.
     *
     * @param vector a resolved address vector.
     */
    public void warmNeighbour(final AddressVector vector)
    {
        addresses.warmNeighbour(vector);
    }

    /**
     * Fill an address vector from address-handle attributes and this device's GID table (any thread: reads only
     * immutable state).
     *
     * @param ah  attributes.
     * @param out vector to fill.
     */
    public void resolveAddress(final AhAttributes ah, final AddressVector out)
    {
        addresses.resolve(ah, out);
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
        final long iova, final int access, final int pdHandle, final UnsafeBuffer memory, final int lkey,
            final int rkey)
    {
        return mrTable.registerWithKeys(iova, access, pdHandle, memory, lkey, rkey);
    }

    /**
     * Deregister memory (engine thread).
     *
     * @param region the region.
     * @throws IllegalStateException while memory windows are bound to it.
     */
    public void deregisterMemory(final MemoryRegionEntry region)
    {
        mrTable.deregister(region);
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
     * @return the last exception an engine bug raised while processing a frame, or null.
     */
    public Throwable lastInternalError()
    {
        return receiveChecks.lastInternalError();
    }

    /**
     * @return the engine's clock.
     */
    public NanoClock clock()
    {
        return clock;
    }

    /**
     * @return the earliest armed timer deadline, or Long.MAX_VALUE (lets invoker-mode tests jump the clock).
     */
    public long earliestDeadlineNs()
    {
        return timers.earliestDeadlineNs();
    }
}
