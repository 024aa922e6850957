package org.roce4j.verbs;

import java.nio.ByteBuffer;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.AhAttributes;
import org.roce4j.ib.MwType;
import org.roce4j.ib.QpCapabilities;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.transport.provider.AhOps;
import org.roce4j.transport.provider.MrOps;
import org.roce4j.transport.provider.MwOps;
import org.roce4j.transport.provider.QpOps;
import org.roce4j.transport.provider.RqOps;
import org.roce4j.wire.addr.Gid;

/**
 * A protection domain (struct ibv_pd): memory regions, QPs, address handles and SRQs of one PD may be used
 * together; an lkey or rkey of another PD fails its protection check. Deallocation refuses while anything still
 * belongs to it.
 *
 * <p>Memory registration policy: direct (native) memory is registered with its native address as the default
 * IOVA, as ibv_reg_mr does; an explicit IOVA may be given instead. Heap memory (byte[]-backed) is refused unless
 * the device was opened with {@link DeviceOptions#allowHeapMemory(boolean)}, and then needs an explicit IOVA, as it
 * has no stable native address.
 */
public final class ProtectionDomain
{
    private final RdmaDevice device;
    private final int handle;
    private int memoryRegions;
    private int memoryWindows;
    private int queuePairs;
    private int addressHandles;
    private int sharedReceiveQueues;
    private boolean deallocated;

    ProtectionDomain(final RdmaDevice device, final int handle)
    {
        this.device = device;
        this.handle = handle;
    }

    /**
     * @return the device.
     */
    public RdmaDevice device()
    {
        return device;
    }

    /**
     * @return the PD's handle (unique within the device).
     */
    public int handle()
    {
        return handle;
    }

    // ------------------------------------------------------------------------------------------------------------
    // Memory regions
    // ------------------------------------------------------------------------------------------------------------

    /**
     * Register the bytes between a buffer's position and limit (ibv_reg_mr), addressed by their native address.
     *
     * @param buffer direct buffer (heap buffers only with {@link DeviceOptions#allowHeapMemory(boolean)} and an
     *               explicit IOVA).
     * @param access {@link AccessFlags}; REMOTE_WRITE and REMOTE_ATOMIC need LOCAL_WRITE; with
     *               {@link AccessFlags#REMOTE_INVALIDATE} a peer's SEND with Invalidate may invalidate the region.
     * @return the region.
     */
    public MemoryRegion registerMemory(final ByteBuffer buffer, final int access)
    {
        return registerByteBuffer(buffer, access, false, 0);
    }

    /**
     * Register the bytes between a buffer's position and limit with an explicit I/O virtual address.
     *
     * @param buffer direct or (when allowed) heap buffer.
     * @param access {@link AccessFlags}.
     * @param iova   address peers and SGEs use for the first byte.
     * @return the region.
     */
    public MemoryRegion registerMemory(final ByteBuffer buffer, final int access, final long iova)
    {
        return registerByteBuffer(buffer, access, true, iova);
    }

    /**
     * Register an Agrona buffer (all its capacity), addressed by its native address.
     *
     * @param buffer off-heap buffer (heap only when allowed, with an explicit IOVA).
     * @param access {@link AccessFlags}.
     * @return the region.
     */
    public MemoryRegion registerMemory(final AtomicBuffer buffer, final int access)
    {
        ProgressGroup.requireNonNull(buffer, "buffer");
        return register(new UnsafeBuffer(buffer), null != buffer.byteArray(), access, false, 0);
    }

    /**
     * Register an Agrona buffer (all its capacity) with an explicit I/O virtual address.
     *
     * @param buffer off-heap or (when allowed) heap buffer.
     * @param access {@link AccessFlags}.
     * @param iova   address peers and SGEs use for the first byte.
     * @return the region.
     */
    public MemoryRegion registerMemory(final AtomicBuffer buffer, final int access, final long iova)
    {
        ProgressGroup.requireNonNull(buffer, "buffer");
        return register(new UnsafeBuffer(buffer), null != buffer.byteArray(), access, true, iova);
    }

    private MemoryRegion registerByteBuffer(
        final ByteBuffer buffer, final int access, final boolean explicitIova, final long iova)
    {
        ProgressGroup.requireNonNull(buffer, "buffer");
        if (buffer.isReadOnly() && 0 != (access & (AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE |
            AccessFlags.REMOTE_ATOMIC)))
        {
            throw new IllegalArgumentException("a read-only ByteBuffer cannot be registered with write access (" +
                AccessFlags.toString(access) + ")");
        }
        if (0 == buffer.remaining())
        {
            throw new IllegalArgumentException("cannot register an empty region: the buffer has no bytes between " +
                "position " + buffer.position() + " and limit " + buffer.limit());
        }
        final UnsafeBuffer view = new UnsafeBuffer(buffer, buffer.position(), buffer.remaining());
        return register(view, !buffer.isDirect(), access, explicitIova, iova);
    }

    private MemoryRegion register(
        final UnsafeBuffer view, final boolean heap, final int access, final boolean explicitIova, final long iova)
    {
        checkAccess(access);
        final int length = view.capacity();
        if (0 == length)
        {
            throw new IllegalArgumentException("cannot register an empty region (capacity 0)");
        }
        if (heap)
        {
            if (!device.allowsHeapMemory())
            {
                throw new IllegalArgumentException("heap memory cannot be registered: use a direct ByteBuffer or an " +
                    "off-heap UnsafeBuffer, or open the device with DeviceOptions.allowHeapMemory(true) and pass an " +
                    "explicit IOVA");
            }
            if (!explicitIova)
            {
                throw new IllegalArgumentException("heap memory has no native address: pass an explicit IOVA");
            }
        }
        final long start = explicitIova ? iova : view.addressOffset();
        if (Long.compareUnsigned(start + length - 1, start) < 0)
        {
            throw new IllegalArgumentException("IOVA range 0x" + Long.toHexString(start) + " + " + length +
                " bytes wraps around the 64-bit address space");
        }
        synchronized (this)
        {
            checkAllocated();
            final MrOps entry = device.control(() -> device.ops().registerMemory(start, access, handle, view));
            final MemoryRegion region = new MemoryRegion(this, entry, view);
            memoryRegions++;
            device.regions().update(region, true);
            return region;
        }
    }

    void deregister(final MemoryRegion region)
    {
        synchronized (this)
        {
            if (region.isDeregistered())
            {
                throw new IllegalStateException("memory region lkey=0x" + Integer.toHexString(region.lkey()) +
                    " is already deregistered");
            }
            device.control(() ->
            {
                device.ops().deregisterMemory(region.ops());
                return null;
            });
            region.markDeregistered();
            memoryRegions--;
            device.regions().update(region, false);
        }
    }

    /**
     * Allocate a memory window (ibv_alloc_mw).
     *
     * @param type {@link MwType#TYPE_1} (bound with {@link MemoryWindow#bind}) or {@link MwType#TYPE_2} (type 2B,
     *             bound by a BIND_MW work request).
     * @return the window, unbound.
     */
    public MemoryWindow allocMw(final MwType type)
    {
        ProgressGroup.requireNonNull(type, "type");
        synchronized (this)
        {
            checkAllocated();
            final MwOps ops = device.control(() -> device.ops().allocMw(type, handle));
            memoryWindows++;
            return new MemoryWindow(this, ops);
        }
    }

    void deallocMw(final MemoryWindow window)
    {
        synchronized (this)
        {
            if (window.isDeallocated())
            {
                throw new IllegalStateException("memory window " + window + " is already deallocated");
            }
            device.control(() ->
            {
                device.ops().deallocMw(window.ops());
                return null;
            });
            window.markDeallocated();
            memoryWindows--;
        }
    }

    /**
     * Check memory region access flags as ibv_reg_mr does.
     *
     * @param access {@link AccessFlags}.
     * @throws IllegalArgumentException on unknown bits, FLUSH_PERSISTENT, or remote write/atomic access without
     *     LOCAL_WRITE.
     */
    static void checkAccess(final int access)
    {
        if (0 != (access & ~AccessFlags.ALL_MR))
        {
            throw new IllegalArgumentException("unknown access flag bits 0x" + Integer.toHexString(access &
                ~AccessFlags.ALL_MR) + " (known: LOCAL_WRITE|REMOTE_WRITE|REMOTE_READ|REMOTE_ATOMIC|" +
                "MW_BIND|FLUSH_GLOBAL|FLUSH_PERSISTENT|REMOTE_INVALIDATE)");
        }
        if (0 != (access & AccessFlags.FLUSH_PERSISTENT))
        {
            // rxe registers FLUSH_PERSISTENT only over persistent memory ("Page can't be persistent", -EINVAL);
            // a Java buffer never is.
            throw new IllegalArgumentException("FLUSH_PERSISTENT needs persistent memory (rxe refuses it for any " +
                "other page with EINVAL) and a roce4j region is ordinary memory; register with FLUSH_GLOBAL");
        }
        final int needsLocalWrite = access & (AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_ATOMIC);
        if (0 != needsLocalWrite && 0 == (access & AccessFlags.LOCAL_WRITE))
        {
            // ibv_reg_mr(3), after the IBA: remote write and remote atomic access require local write access.
            throw new IllegalArgumentException(AccessFlags.toString(needsLocalWrite) + " requires LOCAL_WRITE " +
                "(ibv_reg_mr(3)); access was " + AccessFlags.toString(access));
        }
    }

    // ------------------------------------------------------------------------------------------------------------
    // Queue pairs, address handles, shared receive queues
    // ------------------------------------------------------------------------------------------------------------

    /**
     * Create a queue pair in RESET (ibv_create_qp).
     *
     * @param init type, CQs, optional SRQ, capabilities and sq_sig_all.
     * @return the QP.
     */
    public QueuePair createQp(final QpInitAttributes init)
    {
        ProgressGroup.requireNonNull(init, "init");
        final QpInitAttributes copy = new QpInitAttributes().copyFrom(init);
        checkInit(copy);
        synchronized (this)
        {
            checkAllocated();
            final CompletionQueue sendCq = copy.sendCq();
            final CompletionQueue recvCq = copy.recvCq();
            final SharedReceiveQueue srq = copy.srq();
            final QpCapabilities caps = copy.cap();
            final QpOps qp = device.control(() -> device.ops().createQp(copy.qpType(), handle, caps, sendCq.ops(),
                recvCq.ops(), null != srq ? srq.ops() : null, copy.sqSigAll()));
            sendCq.addUse();
            if (recvCq != sendCq)
            {
                recvCq.addUse();
            }
            if (null != srq)
            {
                srq.addUse();
            }
            queuePairs++;
            return new QueuePair(this, qp, copy);
        }
    }

    private void checkInit(final QpInitAttributes init)
    {
        if (null == init.qpType())
        {
            throw new IllegalArgumentException("qp_type must be set (RC, UC, UD or GSI)");
        }
        checkCq(init.sendCq(), "send_cq");
        checkCq(init.recvCq(), "recv_cq");
        final SharedReceiveQueue srq = init.srq();
        if (null != srq)
        {
            if (srq.pd() != this)
            {
                throw new IllegalArgumentException("the SRQ belongs to protection domain " + srq.pd().handle() +
                    ", the QP would belong to " + handle + ": they must share one PD");
            }
            if (srq.isDestroyed())
            {
                throw new IllegalArgumentException("the SRQ was destroyed");
            }
        }
        final QpCapabilities cap = init.cap();
        checkRange(cap.maxSendWr, 1, DeviceAttributes.MAX_QP_WR, "cap.max_send_wr");
        checkRange(cap.maxSendSge, 0, DeviceAttributes.MAX_SGE, "cap.max_send_sge");
        checkRange(cap.maxInlineData, 0, DeviceAttributes.MAX_INLINE_DATA, "cap.max_inline_data");
        if (null == srq)
        {
            checkRange(cap.maxRecvWr, 1, DeviceAttributes.MAX_QP_WR, "cap.max_recv_wr");
            checkRange(cap.maxRecvSge, 0, DeviceAttributes.MAX_SGE, "cap.max_recv_sge");
        }
    }

    private void checkCq(final CompletionQueue cq, final String what)
    {
        if (null == cq)
        {
            throw new IllegalArgumentException(what + " must be set");
        }
        if (cq.device() != device)
        {
            throw new IllegalArgumentException(what + " belongs to another device (" + cq.device().name() + ")");
        }
        if (cq.isDestroyed())
        {
            throw new IllegalArgumentException(what + " was destroyed");
        }
    }

    static void checkRange(final long value, final long min, final long max, final String what)
    {
        if (value < min || value > max)
        {
            throw new IllegalArgumentException(what + " must be " + min + ".." + max + ", got " + value);
        }
    }

    void releaseQp()
    {
        synchronized (this)
        {
            queuePairs--;
        }
    }

    /**
     * Create an address handle (ibv_create_ah) for UD sends: the attributes are checked and resolved once into the
     * provider's address vector, and the link starts resolving the destination's MAC (as ib_create_ah does on RoCE).
     *
     * @param attributes destination GID, source GID index, hop limit, traffic class, flow label, SL, port.
     * @return the handle.
     */
    public AddressHandle createAh(final AhAttributes attributes)
    {
        ProgressGroup.requireNonNull(attributes, "attributes");
        final AhAttributes copy = new AhAttributes().copyFrom(attributes);
        checkAddress(device, copy, "ah_attr");
        final AhOps vector = device.control(() -> device.ops().createAh(copy));
        synchronized (this)
        {
            checkAllocated();
            device.checkOpen();
            addressHandles++;
            return new AddressHandle(this, copy, vector);
        }
    }

    /**
     * Create an address handle that answers the sender of a received UD datagram (ibv_create_ah_from_wc); see
     * {@link RdmaDevice#initAhFromWc}.
     *
     * @param wc     a UD or GSI receive completion with a GRH.
     * @param buffer holding the receive buffer's 40-byte network header area.
     * @param offset where that area starts.
     * @return the handle.
     */
    public AddressHandle createAhFromWc(final WorkCompletion wc, final DirectBuffer buffer, final int offset)
    {
        return createAh(device.initAhFromWc(wc, buffer, offset, new AhAttributes()));
    }

    void releaseAh()
    {
        synchronized (this)
        {
            addressHandles--;
        }
    }

    /**
     * Check address attributes (an address handle's, or a QP's primary path).
     *
     * @param device the device whose GID table the source index refers to.
     * @param ah     the attributes.
     * @param what   name for messages.
     */
    static void checkAddress(final RdmaDevice device, final AhAttributes ah, final String what)
    {
        RdmaDevice.checkPort(ah.portNum());
        device.checkGidIndex(ah.sgidIndex(), what + ".grh.sgid_index");
        checkRange(ah.hopLimit(), 0, 255, what + ".grh.hop_limit");
        checkRange(ah.trafficClass(), 0, 255, what + ".grh.traffic_class");
        checkRange(ah.flowLabel(), 0, 0xF_FFFF, what + ".grh.flow_label");
        checkRange(ah.serviceLevel(), 0, 15, what + ".sl");
        final Gid dgid = new Gid(ah.dgidHigh(), ah.dgidLow());
        if (0 == dgid.high() && 0 == dgid.low())
        {
            throw new IllegalArgumentException(what + ".grh.dgid is the unspecified address ::");
        }
        final Gid sgid = device.queryGid(ah.sgidIndex());
        if (dgid.isIpv4Mapped() != sgid.isIpv4Mapped())
        {
            throw new IllegalArgumentException(what + ": destination GID " + dgid + " is " +
                (dgid.isIpv4Mapped() ? "IPv4-mapped" : "IPv6") + " but source GID index " + ah.sgidIndex() + " (" +
                sgid + ") is " + (sgid.isIpv4Mapped() ? "IPv4-mapped" : "IPv6") +
                ": RoCEv2 needs both ends in one IP family (" + sameFamilyHint(device, dgid) + ")");
        }
    }

    /**
     * Create a shared receive queue (ibv_create_srq).
     *
     * @param maxWr  receive WRs it holds, 1 .. {@link DeviceAttributes#MAX_SRQ_WR}.
     * @param maxSge SGEs per receive WR, 1 .. {@link DeviceAttributes#MAX_SRQ_SGE}.
     * @return the SRQ.
     */
    public SharedReceiveQueue createSrq(final int maxWr, final int maxSge)
    {
        checkRange(maxWr, 1, DeviceAttributes.MAX_SRQ_WR, "srq max_wr");
        checkRange(maxSge, 1, DeviceAttributes.MAX_SRQ_SGE, "srq max_sge");
        synchronized (this)
        {
            checkAllocated();
            final RqOps queue = device.control(() -> device.ops().createSrq(maxWr, maxSge));
            sharedReceiveQueues++;
            return new SharedReceiveQueue(this, queue, maxSge);
        }
    }

    void releaseSrq()
    {
        synchronized (this)
        {
            sharedReceiveQueues--;
        }
    }

    /**
     * Deallocate the PD (ibv_dealloc_pd).
     *
     * @throws IllegalStateException naming what still uses it, or when already deallocated.
     */
    public void dealloc()
    {
        synchronized (this)
        {
            checkAllocated();
            if (0 != memoryRegions + memoryWindows + queuePairs + addressHandles + sharedReceiveQueues)
            {
                final StringBuilder sb = new StringBuilder();
                appendUse(sb, memoryRegions, "memory region");
                appendUse(sb, memoryWindows, "memory window");
                appendUse(sb, queuePairs, "queue pair");
                appendUse(sb, addressHandles, "address handle");
                appendUse(sb, sharedReceiveQueues, "shared receive queue");
                throw new IllegalStateException("protection domain " + handle + " is still used by " + sb +
                    "; destroy them first (ibv_dealloc_pd fails with EBUSY)");
            }
            deallocated = true;
        }
    }

    private static void appendUse(final StringBuilder sb, final int count, final String what)
    {
        if (0 != count)
        {
            sb.append(sb.length() > 0 ? ", " : "").append(count).append(' ').append(what).append(1 == count ? "" :
                "s");
        }
    }

    /**
     * @return true once deallocated.
     */
    public boolean isDeallocated()
    {
        synchronized (this)
        {
            return deallocated;
        }
    }

    private void checkAllocated()
    {
        if (deallocated)
        {
            throw new IllegalStateException("protection domain " + handle + " was deallocated");
        }
    }

    /**
     * @return e.g. {@code PD 3 (2 MRs, 1 QPs)}.
     */
    public String toString()
    {
        synchronized (this)
        {
            return "PD " + handle + " (" + memoryRegions + " MRs, " + queuePairs + " QPs, " + addressHandles +
                " AHs, " + sharedReceiveQueues + " SRQs)";
        }
    }

    private static String sameFamilyHint(final RdmaDevice device, final Gid destination)
    {
        final int index = device.sourceGidIndex(destination);
        return index < 0 ? "the port has no " + (destination.isIpv4Mapped() ? "IPv4" : "global IPv6") + " address" :
            "use sgid_index " + index;
    }
}
