package org.roce4j.verbs;

import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WrOpcode;

/**
 * A send work request (struct ibv_send_wr): mutable and reusable, so a hot loop fills the same object again and
 * again ({@link #reset()} clears it). Chains are built with
 * {@link WorkRequest#next(WorkRequest) next(SendWorkRequest)}.
 *
 * <pre>{@code
 * wr.reset().wrId(7).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
 *     .addSge(localMr, 0, 4096).rdma(remoteAddr, remoteRkey);
 * qp.postSend(wr);
 * }</pre>
 *
 * <p>Field meanings follow libibverbs: {@code rdma.remote_addr/rkey} and {@code atomic.remote_addr/rkey} share one
 * pair here (they are a union in C too); {@code imm_data} is the int whose big-endian bytes go on the wire, and a
 * receive completion reports it the same way. FLUSH and ATOMIC_WRITE, which libibverbs posts only through
 * {@code ibv_wr_flush} and {@code ibv_wr_atomic_write}, take their arguments from {@link #flush} and
 * {@link #atomicWrite} and carry no SGEs.
 */
public final class SendWorkRequest extends WorkRequest<SendWorkRequest>
{
    private WrOpcode opcode = WrOpcode.SEND;
    private int sendFlags;
    private int immData;
    private long remoteAddr;
    private int rkey;
    private long compareAdd;
    private long swap;
    private long atomicWriteValue;
    private long flushLength;
    private int flushType;
    private int flushLevel;
    private AddressHandle ah;
    private int remoteQpn;
    private int remoteQkey;
    private int invalidateRkey;
    private MemoryWindow bindMw;
    private int bindNewRkey;
    private MemoryRegion bindMr;
    private long bindAddr;
    private long bindLength;
    private int bindAccess;

    /**
     * A WR with room for {@link DeviceAttributes#MAX_SGE} SGEs.
     */
    public SendWorkRequest()
    {
        this(DeviceAttributes.MAX_SGE);
    }

    /**
     * @param sgeCapacity most SGEs this object will carry.
     * @throws IllegalArgumentException when negative.
     */
    public SendWorkRequest(final int sgeCapacity)
    {
        super(sgeCapacity);
    }

    /**
     * Clear every field (opcode back to SEND, no SGEs, no flags, no next).
     *
     * @return this.
     */
    public SendWorkRequest reset()
    {
        resetCommon();
        opcode = WrOpcode.SEND;
        sendFlags = 0;
        immData = 0;
        remoteAddr = 0;
        rkey = 0;
        compareAdd = 0;
        swap = 0;
        atomicWriteValue = 0;
        flushLength = 0;
        flushType = 0;
        flushLevel = 0;
        ah = null;
        remoteQpn = 0;
        remoteQkey = 0;
        invalidateRkey = 0;
        bindMw = null;
        bindNewRkey = 0;
        bindMr = null;
        bindAddr = 0;
        bindLength = 0;
        bindAccess = 0;
        return this;
    }

    /**
     * @param opcode what to do.
     * @return this.
     */
    public SendWorkRequest opcode(final WrOpcode opcode)
    {
        this.opcode = opcode;
        return this;
    }

    /**
     * @return opcode.
     */
    public WrOpcode opcode()
    {
        return opcode;
    }

    /**
     * @param flags {@link SendFlags} bits.
     * @return this.
     */
    public SendWorkRequest sendFlags(final int flags)
    {
        this.sendFlags = flags;
        return this;
    }

    /**
     * @return send_flags.
     */
    public int sendFlags()
    {
        return sendFlags;
    }

    /**
     * @param immData immediate data for SEND_WITH_IMM and RDMA_WRITE_WITH_IMM (wire bytes as a big-endian int).
     * @return this.
     */
    public SendWorkRequest immData(final int immData)
    {
        this.immData = immData;
        return this;
    }

    /**
     * @return imm_data.
     */
    public int immData()
    {
        return immData;
    }

    /**
     * Target of an RDMA WRITE / READ (wr.rdma).
     *
     * @param remoteAddr remote I/O virtual address.
     * @param rkey       remote key.
     * @return this.
     */
    public SendWorkRequest rdma(final long remoteAddr, final int rkey)
    {
        this.remoteAddr = remoteAddr;
        this.rkey = rkey;
        return this;
    }

    /**
     * Target and operands of an atomic (wr.atomic).
     *
     * @param remoteAddr remote I/O virtual address of the 8-byte target (8-byte aligned).
     * @param rkey       remote key.
     * @param compareAdd compare value (CMP_AND_SWP) or addend (FETCH_AND_ADD).
     * @param swap       swap value (CMP_AND_SWP).
     * @return this.
     */
    public SendWorkRequest atomic(final long remoteAddr, final int rkey, final long compareAdd, final long swap)
    {
        this.remoteAddr = remoteAddr;
        this.rkey = rkey;
        this.compareAdd = compareAdd;
        this.swap = swap;
        return this;
    }

    /**
     * Target and value of an ATOMIC_WRITE (ibv_wr_atomic_write, IBA A19): the responder stores the 8 bytes at the
     * remote address in one store. The remote address should be 8-byte aligned: as with rxe, a misaligned one is
     * not refused here but by the responder (invalid request, IBV_WC_REM_INV_REQ_ERR). Needs no SGE.
     *
     * @param remoteAddr remote I/O virtual address of the 8-byte target.
     * @param rkey       remote key of a region with REMOTE_WRITE access.
     * @param value      the 8 bytes, as the long the target reads back in this platform's byte order
     *                   ({@code *(uint64_t *)atomic_wr}).
     * @return this.
     */
    public SendWorkRequest atomicWrite(final long remoteAddr, final int rkey, final long value)
    {
        this.remoteAddr = remoteAddr;
        this.rkey = rkey;
        this.atomicWriteValue = value;
        return this;
    }

    /**
     * Target of a FLUSH (ibv_wr_flush, IBA A19): make earlier writes to a remote range, or the whole region, globally
     * visible or persistent. The region needs the flush access of each placement type, the QP the same in its
     * qp_access_flags. Needs no SGE.
     *
     * @param remoteAddr remote I/O virtual address of the range (ignored for {@link org.roce4j.ib.Flush#MR}).
     * @param rkey       remote key.
     * @param length     bytes of the range (ignored for {@link org.roce4j.ib.Flush#MR}).
     * @param type       placement types: {@link org.roce4j.ib.Flush#GLOBAL}, {@link org.roce4j.ib.Flush#PERSISTENT}.
     * @param level      {@link org.roce4j.ib.Flush#RANGE} or {@link org.roce4j.ib.Flush#MR}.
     * @return this.
     */
    public SendWorkRequest flush(final long remoteAddr, final int rkey, final long length, final int type,
        final int level)
    {
        this.remoteAddr = remoteAddr;
        this.rkey = rkey;
        this.flushLength = length;
        this.flushType = type;
        this.flushLevel = level;
        return this;
    }

    /**
     * @return the 8 bytes of an ATOMIC_WRITE.
     */
    public long atomicWriteValue()
    {
        return atomicWriteValue;
    }

    /**
     * @return bytes of a FLUSH's range.
     */
    public long flushLength()
    {
        return flushLength;
    }

    /**
     * @return placement types of a FLUSH.
     */
    public int flushType()
    {
        return flushType;
    }

    /**
     * @return selectivity level of a FLUSH.
     */
    public int flushLevel()
    {
        return flushLevel;
    }

    /**
     * @return remote address of an RDMA or atomic WR.
     */
    public long remoteAddr()
    {
        return remoteAddr;
    }

    /**
     * @return remote key of an RDMA or atomic WR.
     */
    public int rkey()
    {
        return rkey;
    }

    /**
     * @return compare_add.
     */
    public long compareAdd()
    {
        return compareAdd;
    }

    /**
     * @return swap.
     */
    public long swap()
    {
        return swap;
    }

    /**
     * Destination of a UD send (wr.ud).
     *
     * @param ah         address handle.
     * @param remoteQpn  destination QP number (24 bits).
     * @param remoteQkey Q_Key; with its high bit set the QP's own Q_Key is sent instead (IBA 10.2.5).
     * @return this.
     */
    public SendWorkRequest ud(final AddressHandle ah, final int remoteQpn, final int remoteQkey)
    {
        this.ah = ah;
        this.remoteQpn = remoteQpn;
        this.remoteQkey = remoteQkey;
        return this;
    }

    /**
     * @return ud.ah.
     */
    public AddressHandle ah()
    {
        return ah;
    }

    /**
     * @return ud.remote_qpn.
     */
    public int remoteQpn()
    {
        return remoteQpn;
    }

    /**
     * @return ud.remote_qkey.
     */
    public int remoteQkey()
    {
        return remoteQkey;
    }

    /**
     * The arguments of a BIND_MW (ibv_send_wr bind_mw: mw, rkey, bind_info). The opcode is set apart
     * ({@link #opcode(WrOpcode) opcode(BIND_MW)}).
     *
     * @param mw       the window.
     * @param newRkey  the rkey the window takes: its low 8 bits are the new key, the rest is the window's index
     *                 (for type 1 {@link MemoryWindow#bind} passes {@link MemoryWindow#incRkey}).
     * @param mr       the region, or null (address and length 0) to unbind a type 1 window.
     * @param addr     first address of the window.
     * @param length   bytes in the window.
     * @param access   {@code org.roce4j.ib.AccessFlags} of the window.
     * @return this.
     */
    public SendWorkRequest bindMw(final MemoryWindow mw, final int newRkey, final MemoryRegion mr, final long addr,
        final long length, final int access)
    {
        this.bindMw = mw;
        this.bindNewRkey = newRkey;
        this.bindMr = mr;
        this.bindAddr = addr;
        this.bindLength = length;
        this.bindAccess = access;
        return this;
    }

    /**
     * @return BIND_MW's window, or null.
     */
    public MemoryWindow bindMw()
    {
        return bindMw;
    }

    /**
     * @return BIND_MW's new rkey.
     */
    public int bindNewRkey()
    {
        return bindNewRkey;
    }

    /**
     * @return BIND_MW's region, or null.
     */
    public MemoryRegion bindMr()
    {
        return bindMr;
    }

    /**
     * @return BIND_MW's first address.
     */
    public long bindAddr()
    {
        return bindAddr;
    }

    /**
     * @return BIND_MW's length.
     */
    public long bindLength()
    {
        return bindLength;
    }

    /**
     * @return BIND_MW's access flags.
     */
    public int bindAccess()
    {
        return bindAccess;
    }

    /**
     * @param rkey remote key the responder invalidates (SEND_WITH_INV), or the local one LOCAL_INV invalidates
     *             (a type 2B window's rkey; they share ibv_send_wr's invalidate_rkey).
     * @return this.
     */
    public SendWorkRequest invalidateRkey(final int rkey)
    {
        this.invalidateRkey = rkey;
        return this;
    }

    /**
     * @return invalidate_rkey.
     */
    public int invalidateRkey()
    {
        return invalidateRkey;
    }

    /**
     * @return e.g. {@code send_wr{wr_id=1 RDMA_WRITE flags=SIGNALED sge=1 len=4096}}.
     */
    public String toString()
    {
        return "send_wr{wr_id=" + wrId() + " " + opcode + " flags=" + SendFlags.toString(sendFlags) +
            " sge=" + numSge() + " len=" + totalLength() + "}";
    }

    @Override
    SendWorkRequest self()
    {
        return this;
    }
}
