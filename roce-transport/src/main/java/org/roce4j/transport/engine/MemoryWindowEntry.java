package org.roce4j.transport.engine;

import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.MwType;
import org.roce4j.transport.provider.MwOps;

/**
 * The engine's view of a memory window (rxe struct rxe_mw): its type, rkey, state and, while bound, the window
 * [addr, addr + length) of a memory region with the window's own access flags. Only the engine's thread changes it;
 * {@link #rkey()} and {@link #isBound()} may be read from any thread.
 */
final class MemoryWindowEntry implements MwOps
{
    /** rxe enum rxe_mw_state. */
    enum State
    {
        /** RXE_MW_STATE_INVALID: deallocated. */
        INVALID,
        /** RXE_MW_STATE_FREE: a type 2B window not bound (allocated, or invalidated). */
        FREE,
        /** RXE_MW_STATE_VALID: a type 1 window (bound or not), or a bound type 2B window. */
        VALID
    }

    private final MwType type;
    private final int pdHandle;
    private volatile int rkey;
    private volatile State state;
    /** Bound region, or null. */
    MemoryRegionEntry mr;
    /** The QP that bound a type 2B window (rxe mw->qp), or null. */
    QpContext qp;
    /** First address of the window. */
    long addr;
    /** Bytes in the window; 0 when unbound. */
    long length;
    /** {@link AccessFlags} of the window. */
    int access;

    /**
     * @param type     window type.
     * @param pdHandle protection domain.
     * @param rkey     first rkey: the index in the upper 24 bits, a key in the low 8.
     */
    MemoryWindowEntry(final MwType type, final int pdHandle, final int rkey)
    {
        this.type = type;
        this.pdHandle = pdHandle;
        this.rkey = rkey;
        // rxe_alloc_mw: a type 2 window starts free, a type 1 window valid (and unbound).
        this.state = MwType.TYPE_2 == type ? State.FREE : State.VALID;
    }

    /** {@inheritDoc} */
    public MwType type()
    {
        return type;
    }

    /** {@inheritDoc} */
    public int rkey()
    {
        return rkey;
    }

    /** {@inheritDoc} */
    public boolean isBound()
    {
        return State.VALID == state && 0 != length;
    }

    /**
     * @return protection domain handle.
     */
    int pdHandle()
    {
        return pdHandle;
    }

    /**
     * @return the window's state.
     */
    State state()
    {
        return state;
    }

    /**
     * @param rkey the key an access names.
     * @return true while the window is bound and {@code rkey} is its current rkey (rxe_recheck_mr's test).
     */
    boolean isValid(final int rkey)
    {
        return this.rkey == rkey && isBound() && null != mr && mr.isValid();
    }

    /**
     * Bounds check by offsets, as a region's ({@link MemoryRegionEntry#contains(long, long, long, long)}).
     *
     * @param va    first address.
     * @param bytes length of the access.
     * @return true when the {@code bytes} bytes from {@code va} lie inside the window.
     */
    boolean contains(final long va, final long bytes)
    {
        return MemoryRegionEntry.contains(addr, length, va, bytes);
    }

    /**
     * rxe rxe_do_bind_mw: take the new key, the window, its access and region (a length of 0 leaves it unbound).
     */
    void bind(final int newKey, final QpContext bindingQp, final MemoryRegionEntry region, final long address,
        final long bytes, final int windowAccess)
    {
        unbind();
        rkey = (rkey & ~MwTable.KEY_MASK) | (newKey & MwTable.KEY_MASK);
        access = windowAccess;
        addr = address;
        length = bytes;
        if (0 != bytes)
        {
            mr = region;
            region.windowBound();
        }
        if (MwType.TYPE_2 == type)
        {
            qp = bindingQp;
        }
        state = State.VALID;
    }

    /**
     * rxe rxe_do_invalidate_mw: back to free, without region or QP.
     */
    void invalidate()
    {
        unbind();
        state = State.FREE;
    }

    /**
     * rxe rxe_mw_cleanup: unbound and unusable for good.
     */
    void deallocate()
    {
        unbind();
        state = State.INVALID;
    }

    private void unbind()
    {
        if (null != mr)
        {
            mr.windowUnbound();
            mr = null;
        }
        qp = null;
        access = 0;
        addr = 0;
        length = 0;
    }

    /**
     * @return e.g. {@code MW type=TYPE_2 rkey=0x.. VALID addr=0x.. len=.. access=..}.
     */
    public String toString()
    {
        return "MW type=" + type + " rkey=0x" + Integer.toHexString(rkey) + " " + state + " addr=0x" +
            Long.toHexString(addr) + " len=" + length + " access=" + AccessFlags.toString(access);
    }
}
