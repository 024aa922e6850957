package org.roce4j.verbs;

import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.MwType;
import org.roce4j.ib.QpType;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WrOpcode;
import org.roce4j.transport.provider.MwOps;

/**
 * A memory window (struct ibv_mw): a window of a memory region, with its own rkey and access flags, that peers
 * address by RDMA READ, WRITE and atomics (IBA 10.6.7). Allocated with {@link ProtectionDomain#allocMw}.
 *
 * <ul>
 *   <li>Type 1 ({@link MwType#TYPE_1}): bound with {@link #bind} (ibv_bind_mw), which posts a BIND_MW work request on
 *   a QP and returns the new rkey at once; rebinding moves the window; not invalidated by peers.</li>
 *   <li>Type 2B ({@link MwType#TYPE_2}): bound only by a BIND_MW work request the caller posts
 *   ({@link SendWorkRequest#bindMw}) with a new rkey whose low 8 bits are the key; usable only through the QP that
 *   bound it; unbound by LOCAL_INV or by a peer's SEND with Invalidate.</li>
 * </ul>
 *
 * <p>Bind errors the device finds (region without {@link AccessFlags#MW_BIND}, window outside the region, a bound
 * type 2B window, another protection domain, ...) complete the BIND_MW with {@code MW_BIND_ERR} and move the QP to
 * the error state, as rxe does. {@link #rkey()} follows libibverbs: it changes when a bind is posted; after an error
 * completion the caller undoes it with {@link #restoreRkey()}.
 */
public final class MemoryWindow
{
    /** The key byte of an rkey (ibv_inc_rkey's mask). */
    private static final int KEY_MASK = 0xFF;

    private final ProtectionDomain pd;
    private final MwOps ops;
    private volatile int rkey;
    private volatile boolean deallocated;

    MemoryWindow(final ProtectionDomain pd, final MwOps ops)
    {
        this.pd = pd;
        this.ops = ops;
        this.rkey = ops.rkey();
    }

    /**
     * @return the window's type.
     */
    public MwType type()
    {
        return ops.type();
    }

    /**
     * @return the rkey of the last bind posted (ibv_mw.rkey): the one to give peers once that bind completed.
     */
    public int rkey()
    {
        return rkey;
    }

    /**
     * @return the rkey the device holds now (changed only by a successful bind).
     */
    public int deviceRkey()
    {
        return ops.rkey();
    }

    /**
     * Undo {@link #rkey()} after a bind completed with an error (libibverbs: "user has to undo this if he gets an
     * error wc"): take the device's rkey again.
     */
    public void restoreRkey()
    {
        rkey = ops.rkey();
    }

    /**
     * @return true while bound to a memory region.
     */
    public boolean isBound()
    {
        return ops.isBound();
    }

    /**
     * @return the protection domain.
     */
    public ProtectionDomain pd()
    {
        return pd;
    }

    /**
     * @return true once {@link #dealloc()} ran.
     */
    public boolean isDeallocated()
    {
        return deallocated;
    }

    /**
     * Bind a type 1 window (ibv_bind_mw): post a BIND_MW work request on {@code qp} with the next rkey
     * (ibv_inc_rkey) and return it. The bind completes on the QP's send CQ (opcode BIND_MW) when signaled or
     * failed. With {@code mr} null and length 0 the window is unbound.
     *
     * @param qp        an RC or UC QP in RTS.
     * @param wrId      the work request id of the completion.
     * @param sendFlags {@link SendFlags} (SIGNALED, FENCE).
     * @param mr        the region, or null to unbind.
     * @param addr      first address of the window, inside the region.
     * @param length    bytes in the window.
     * @param access    {@link AccessFlags} of the window (REMOTE_READ, REMOTE_WRITE, REMOTE_ATOMIC, ...).
     * @return the new rkey.
     * @throws IllegalArgumentException when the window is not type 1, mr is null with an address or length, the
     *     region is in another protection domain (EPERM), or the access asks for ZERO_BASED (rxe's provider:
     *     EINVAL).
     */
    public int bind(final QueuePair qp, final long wrId, final int sendFlags, final MemoryRegion mr, final long addr,
        final long length, final int access)
    {
        ProgressGroup.requireNonNull(qp, "qp");
        if (MwType.TYPE_1 != type())
        {
            throw new IllegalArgumentException("ibv_bind_mw binds type 1 windows only (EINVAL): a type 2B window is " +
                "bound by posting a BIND_MW work request (SendWorkRequest.bindMw)");
        }
        if (0 != (access & AccessFlags.ZERO_BASED))
        {
            throw new IllegalArgumentException("ibv_bind_mw: a type 1 window cannot be zero-based (EINVAL)");
        }
        if (null != mr && mr.pd() != pd)
        {
            throw new IllegalArgumentException("ibv_bind_mw: the memory region is in protection domain " +
                mr.pd().handle() + ", the window in " + pd.handle() + " (EPERM)");
        }
        final SendWorkRequest wr = new SendWorkRequest(0).wrId(wrId).opcode(WrOpcode.BIND_MW).sendFlags(sendFlags)
            .bindMw(this, incRkey(rkey), mr, addr, length, access);
        qp.postSend(wr);
        return rkey;
    }

    /**
     * Deallocate (ibv_dealloc_mw): a bound window is unbound first; its rkey stops working at once.
     *
     * @throws IllegalStateException when already deallocated.
     */
    public void dealloc()
    {
        pd.deallocMw(this);
    }

    /**
     * @param rkey an rkey.
     * @return the rkey with its key byte incremented (ibv_inc_rkey).
     */
    public static int incRkey(final int rkey)
    {
        return (rkey & ~KEY_MASK) | ((rkey + 1) & KEY_MASK);
    }

    MwOps ops()
    {
        return ops;
    }

    void markDeallocated()
    {
        deallocated = true;
    }

    /**
     * A BIND_MW was posted: the window's rkey becomes the new key byte under its index (rxe rxe_do_bind_mw).
     */
    void posted(final int newRkey)
    {
        rkey = (rkey & ~KEY_MASK) | (newRkey & KEY_MASK);
    }

    /**
     * The checks ibv_post_send and rxe's provider make on BIND_MW and LOCAL_INV (EINVAL, EPERM), before anything is
     * queued; what the device checks at execution completes with an error instead.
     *
     * @param qp    the QP posting.
     * @param wr    a BIND_MW or LOCAL_INV work request.
     * @param index its index in the chain.
     * @throws BadWorkRequestException naming the problem.
     */
    static void checkLocalWr(final QueuePair qp, final SendWorkRequest wr, final int index)
    {
        final WrOpcode opcode = wr.opcode();
        if (QpType.RC != qp.type() && QpType.UC != qp.type())
        {
            throw new BadWorkRequestException(index, wr.wrId(), opcode + " needs an RC or UC QP, not " + qp.type());
        }
        if (0 != wr.numSge() || 0 != (wr.sendFlags() & SendFlags.INLINE) || 0 != wr.immData())
        {
            // rxe's provider (validate_send_wr): a BIND_MW carries no SGEs, no data and no immediate.
            throw new BadWorkRequestException(index, wr.wrId(), opcode + " takes no SGEs, inline data or immediate");
        }
        if (WrOpcode.LOCAL_INV == opcode)
        {
            return;
        }
        final MemoryWindow mw = wr.bindMw();
        if (null == mw)
        {
            throw new BadWorkRequestException(index, wr.wrId(), "BIND_MW names no memory window (wr.bindMw(...))");
        }
        if (mw.isDeallocated() || mw.pd().device() != qp.pd().device())
        {
            throw new BadWorkRequestException(index, wr.wrId(), "BIND_MW's memory window is deallocated or " +
                "belongs to another device");
        }
        final MemoryRegion mr = wr.bindMr();
        if (null == mr && (0 != wr.bindAddr() || 0 != wr.bindLength()))
        {
            throw new BadWorkRequestException(index, wr.wrId(), "BIND_MW without a memory region must have " +
                "address and length 0 (ibv_bind_mw: EINVAL)");
        }
        if (null != mr && (mr.isDeregistered() || mr.pd().device() != qp.pd().device()))
        {
            throw new BadWorkRequestException(index, wr.wrId(), "BIND_MW's memory region is deregistered or " +
                "belongs to another device");
        }
        if (wr.bindLength() < 0)
        {
            throw new BadWorkRequestException(index, wr.wrId(), "BIND_MW length " + wr.bindLength() +
                " is negative");
        }
    }

    /**
     * @return e.g. {@code MW type=TYPE_1 rkey=0x..}.
     */
    public String toString()
    {
        return "MW type=" + type() + " rkey=0x" + Integer.toHexString(rkey) + (isBound() ? " bound" : "");
    }
}
