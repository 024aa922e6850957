package org.roce4j.transport.provider;

import java.util.concurrent.Callable;

import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.ib.AhAttributes;
import org.roce4j.ib.AsyncEvent;
import org.roce4j.ib.Mtu;
import org.roce4j.ib.MwType;
import org.roce4j.ib.QpAttrMask;
import org.roce4j.ib.QpAttributes;
import org.roce4j.ib.QpCapabilities;
import org.roce4j.ib.QpType;
import org.roce4j.transport.TransportCounters;
import org.roce4j.transport.cc.QpRate;
import org.roce4j.wire.FrameStatusCounters;

/**
 * One open device of a {@link Provider}: its control path, after rdma-core's verbs_context_ops (create, modify and
 * destroy QPs; register memory; create CQs, SRQs and address handles; query the port and the GID table; take
 * asynchronous events), and the duty cycle that runs it. The data path is on the objects it creates: posting on
 * {@link QpOps} and {@link RqOps}, polling on {@link CqOps}, as libibverbs' extended QPs and CQs carry their own
 * post and poll functions.
 *
 * <p>Threading. The device runs on one thread at a time, the "engine thread": the thread that calls
 * {@link #doWork()} (an agent thread, or the application's in invoker mode). Methods marked "engine thread" must run
 * there: from another thread, wrap them in {@link #invoke(Callable)}. The others may be called from any thread.
 *
 * <p>The objects passed back in ({@link QpOps}, {@link CqOps}, {@link RqOps}, {@link MrOps}, {@link AhOps}) must
 * be ones this device created, as a provider takes back only its own objects.
 */
public interface DeviceOps
{
    // ------------------------------------------------------------------------------------------------------------
    // Running the device
    // ------------------------------------------------------------------------------------------------------------

    /**
     * One duty cycle: commands from other threads, doorbells, received frames, timers, sending (engine thread).
     *
     * @return work done; 0 lets an idle strategy back off.
     */
    int doWork();

    /**
     * Record the calling thread as the engine thread: from now on {@link #invoke} hands other threads' commands to
     * it (called by an agent thread before its first duty cycle).
     */
    void onStart();

    /**
     * Send the ACKs and frames still owed to the wire (a coalesced ACK that met a full link, the link's committed
     * frames), then forget the engine thread and close the link.
     */
    void onClose();

    /**
     * @return the earliest armed timer deadline (engine clock), or Long.MAX_VALUE when none is armed: a simulated
     *     clock may jump to it.
     */
    long earliestDeadlineNs();

    /**
     * Run a control operation on the engine thread and return its result: at once when called on that thread (or
     * before any thread called {@link #onStart()}), else queued for it, waiting.
     *
     * @param command the operation.
     * @param <T>     its result type.
     * @return its result.
     */
    <T> T invoke(Callable<T> command);

    // ------------------------------------------------------------------------------------------------------------
    // Queries (any thread)
    // ------------------------------------------------------------------------------------------------------------

    /**
     * @return the clock the device's timers use.
     */
    NanoClock clock();

    /**
     * @return the port's active MTU, derived from the link MTU as rxe does.
     */
    Mtu activeMtu();

    /**
     * @return entries in the GID table.
     */
    int gidTableLength();

    /**
     * @param index GID table index, 0 .. {@link #gidTableLength()} - 1.
     * @return high 64 bits of that GID.
     */
    long gidHigh(int index);

    /**
     * @param index GID table index, 0 .. {@link #gidTableLength()} - 1.
     * @return low 64 bits of that GID.
     */
    long gidLow(int index);

    /**
     * @param gidHigh high 64 bits of a GID.
     * @param gidLow  low 64 bits.
     * @return its index in the GID table, or -1 when it is not one of this device's GIDs.
     */
    int gidIndexOf(long gidHigh, long gidLow);

    /**
     * @return the whole GID table in one line, index by index, for error messages that name an index outside it.
     */
    String gidTableListing();

    /**
     * @return the device's transport counters (live).
     */
    TransportCounters counters();

    /**
     * @return per-reason counts of received frames (live).
     */
    FrameStatusCounters frameCounters();

    /**
     * @return the next asynchronous event, or null (one consumer thread at a time).
     */
    AsyncEvent pollEvent();

    /**
     * @return the last exception an engine bug raised while processing a frame (the frame was dropped and counted
     *     in INTERNAL_ERRORS), or null.
     */
    Throwable lastInternalError();

    // ------------------------------------------------------------------------------------------------------------
    // Control (engine thread)
    // ------------------------------------------------------------------------------------------------------------

    /**
     * @return a fresh handle, unique within the device, for a protection domain (engine thread).
     */
    int allocHandle();

    /**
     * Create a completion queue (engine thread).
     *
     * @param cqe entries it holds.
     * @return the CQ.
     */
    CqOps createCq(int cqe);

    /**
     * Create a shared receive queue (engine thread).
     *
     * @param maxWr  receive WRs it holds.
     * @param maxSge SGEs per receive WR.
     * @return the SRQ.
     */
    RqOps createSrq(int maxWr, int maxSge);

    /**
     * Create a QP in RESET (engine thread).
     *
     * @param type      RC, UC, UD or GSI.
     * @param pdHandle  protection domain.
     * @param caps      queue sizes (checked by the caller).
     * @param sendCq    where send completions go.
     * @param recvCq    where receive completions go.
     * @param srq       shared receive queue, or null for a receive queue of its own.
     * @param signalAll sq_sig_all: every send WR completes.
     * @return the QP.
     * @throws IllegalStateException when a second GSI QP is asked for, or no QP number is free.
     */
    QpOps createQp(
        QpType type, int pdHandle, QpCapabilities caps, CqOps sendCq, CqOps recvCq, RqOps srq, boolean signalAll);

    /**
     * Apply attributes to a QP (engine thread). The caller has checked the transition and the mask against the IBA
     * transition table; this applies the values, resolves the address vector and performs the state change.
     *
     * @param qp   the QP.
     * @param attr values.
     * @param mask which of them to apply ({@link QpAttrMask}).
     */
    void modifyQp(QpOps qp, QpAttributes attr, int mask);

    /**
     * Read a QP's current attributes (engine thread).
     *
     * @param qp  the QP.
     * @param out filled.
     */
    void queryQp(QpOps qp, QpAttributes out);

    /**
     * Read a QP's congestion-control state (engine thread): whether a DCQCN limiter holds it, its current and target
     * rate and alpha.
     *
     * @param qp the QP.
     * @return a snapshot; a QP without a limiter reports the line rate.
     */
    QpRate qpRate(QpOps qp);

    /**
     * Destroy a QP (engine thread): later packets for it are dropped as "no QP", outstanding WRs are discarded.
     *
     * @param qp the QP.
     * @throws IllegalStateException while the QP is attached to a multicast group (rxe_qp_chk_destroy: EBUSY).
     */
    void destroyQp(QpOps qp);

    /**
     * Attach a UD QP to a multicast group (engine thread; ibv_attach_mcast, rxe_attach_mcast): packets to the
     * multicast QPN 0xFFFFFF whose destination is the group reach the QP from now on, and the link joins the group
     * when it is the group's first QP. Attaching a QP twice changes nothing, as in rxe.
     *
     * @param qp      a UD QP.
     * @param gidHigh high 64 bits of the group's GID (ff00::/8, or IPv4-mapped 224.0.0.0/4).
     * @param gidLow  low 64 bits.
     * @throws IllegalArgumentException when the QP is not UD or the GID is not a multicast group.
     * @throws IllegalStateException    when a device or group limit is reached or the link cannot join the group.
     */
    void attachMcast(QpOps qp, long gidHigh, long gidLow);

    /**
     * Detach a QP from a multicast group (engine thread; ibv_detach_mcast, rxe_detach_mcast); the link leaves the
     * group when it was the group's last QP.
     *
     * @param qp      the QP.
     * @param gidHigh high 64 bits of the group's GID.
     * @param gidLow  low 64 bits.
     * @throws IllegalArgumentException when the QP is not attached to that group (rxe: EINVAL).
     */
    void detachMcast(QpOps qp, long gidHigh, long gidLow);

    /**
     * Register memory (engine thread).
     *
     * @param iova     address peers and SGEs use for the first byte.
     * @param access   {@code org.roce4j.ib.AccessFlags}.
     * @param pdHandle protection domain.
     * @param memory   the bytes.
     * @return the region, with fresh keys.
     */
    MrOps registerMemory(long iova, int access, int pdHandle, UnsafeBuffer memory);

    /**
     * Deregister memory (engine thread): its keys stop working at once.
     *
     * @param region the region.
     * @throws IllegalStateException while memory windows are bound to it (rxe_dereg_mr: "Attempt to deregister an
     *     MR while bound to MWs", -EINVAL).
     */
    void deregisterMemory(MrOps region);

    /**
     * Allocate a memory window (engine thread; verbs_context_ops alloc_mw, rxe_alloc_mw): a type 1 window starts
     * valid and unbound, a type 2B window free; either is bound by a BIND_MW work request.
     *
     * @param type     the window's type.
     * @param pdHandle protection domain.
     * @return the window, with a fresh rkey.
     */
    MwOps allocMw(MwType type, int pdHandle);

    /**
     * Deallocate a memory window (engine thread; dealloc_mw, rxe_mw_cleanup): a bound window is unbound first, and
     * its rkey stops working at once.
     *
     * @param window the window.
     */
    void deallocMw(MwOps window);

    /**
     * Create an address handle (engine thread): the attributes (checked by the caller) are resolved once against
     * the GID table into an address vector, and the link starts resolving the destination's MAC address, as
     * ib_create_ah does on RoCE.
     *
     * @param attributes destination GID, source GID index, traffic class, hop limit, flow label, SL.
     * @return the handle.
     */
    AhOps createAh(AhAttributes attributes);
}
