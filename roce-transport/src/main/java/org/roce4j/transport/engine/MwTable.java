package org.roce4j.transport.engine;

import java.security.SecureRandom;

import org.agrona.collections.Int2ObjectHashMap;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.MwType;
import org.roce4j.ib.WcStatus;

/**
 * Memory windows of a device (rxe_mw.c): allocation, bind, invalidation, and the responder's lookup of an rkey that
 * names a window.
 *
 * <p>A window's rkey is a 24-bit index in its upper bits and an 8-bit key in its low byte, as in rxe ({@code
 * (mw->elem.index << 8) | key}): binding changes only the key, so the index names the window for its whole life. rxe
 * tells window rkeys from region rkeys by index range (rkey_is_mw); roce4j draws window indexes at random and keeps
 * the two apart instead: no region rkey ever has a window's index in its upper 24 bits ({@link MrTable} skips them,
 * and {@link #alloc} skips indexes a region rkey uses), so {@link #byRkey} decides which an rkey names. Only the
 * engine's thread touches the table.
 */
final class MwTable
{
    /** The key byte of an rkey (rxe: {@code rkey & 0xff}, ibv_inc_rkey's mask). */
    static final int KEY_MASK = 0xFF;
    /** Bits an rkey's index is shifted by (rxe: {@code rkey >> 8}). */
    static final int INDEX_SHIFT = 8;
    /** Distinct keys one index covers: the 256 values of the key byte. */
    private static final int KEYS_PER_INDEX = 256;
    /** Mask of the 24-bit index drawn for a window. */
    private static final int INDEX_MASK = 0xFF_FFFF;

    private final Int2ObjectHashMap<MemoryWindowEntry> byIndex = new Int2ObjectHashMap<>();
    private final MrTable regions;
    private final SecureRandom random;

    /**
     * @param regions the device's memory regions (bind targets; their rkeys avoid window indexes).
     * @param random  key source.
     */
    MwTable(final MrTable regions, final SecureRandom random)
    {
        this.regions = regions;
        this.random = random;
        regions.windows = this;
    }

    /**
     * rxe_alloc_mw: a window with a fresh index and a random first key.
     *
     * @param type     window type.
     * @param pdHandle protection domain.
     * @return the window.
     */
    MemoryWindowEntry alloc(final MwType type, final int pdHandle)
    {
        int index;
        do
        {
            index = random.nextInt() & INDEX_MASK;
        }
        while (0 == index || byIndex.containsKey(index) || regionUsesIndex(index));
        final MemoryWindowEntry mw = new MemoryWindowEntry(type, pdHandle,
            (index << INDEX_SHIFT) | (random.nextInt() & KEY_MASK));
        byIndex.put(index, mw);
        return mw;
    }

    /**
     * rxe_dealloc_mw / rxe_mw_cleanup: unbind and forget the window.
     *
     * @param mw the window.
     * @throws IllegalArgumentException when the window is not this device's.
     */
    void dealloc(final MemoryWindowEntry mw)
    {
        if (!owns(mw))
        {
            throw new IllegalArgumentException("not a memory window of this device: " + mw);
        }
        mw.deallocate();
        byIndex.remove(mw.rkey() >>> INDEX_SHIFT);
    }

    /**
     * @param rkey an rkey.
     * @return the window whose index the rkey carries (whatever its key byte), or null when it names no window.
     */
    MemoryWindowEntry byRkey(final int rkey)
    {
        return byIndex.get(rkey >>> INDEX_SHIFT);
    }

    /**
     * @param rkey a region rkey about to be used.
     * @return true when its index is a window's.
     */
    boolean usesIndexOf(final int rkey)
    {
        return byIndex.containsKey(rkey >>> INDEX_SHIFT);
    }

    /**
     * @return windows allocated.
     */
    int size()
    {
        return byIndex.size();
    }

    /**
     * rxe_bind_mw and rxe_check_bind_mw, in rxe's order: the window and region the WQE names, the access flags, the
     * window's state, then the region's permissions and bounds.
     *
     * @param qp  the QP executing the BIND_MW.
     * @param wqe the BIND_MW work request.
     * @return SUCCESS, or MW_BIND_ERR (rxe_do_local_ops: any bind error is IB_WC_MW_BIND_ERR).
     */
    WcStatus bind(final QpContext qp, final SendWqe wqe)
    {
        final MemoryWindowEntry mw = wqe.bindMw;
        // rxe: the window must exist and the WR must name its current rkey.
        if (!owns(mw) || mw.rkey() != wqe.bindMwRkey)
        {
            return WcStatus.MW_BIND_ERR;
        }
        final long length = wqe.bindLength;
        final MemoryRegionEntry mr = 0 == length ? null : wqe.bindMr;
        // rxe: with a length the region must exist (its lkey found).
        if (0 != length && (null == mr || regions.byLkey(mr.lkey()) != mr || !mr.isValid()))
        {
            return WcStatus.MW_BIND_ERR;
        }
        final int access = wqe.bindAccess;
        // rxe: access & ~RXE_ACCESS_SUPPORTED_MW is -EOPNOTSUPP. roce4j's windows are VA-based: ZERO_BASED is
        // refused for both types (rxe refuses it for type 1, o10-36.2.2, and ibv_bind_mw's rxe provider always).
        if (0 != (access & ~AccessFlags.ALL_MW))
        {
            return WcStatus.MW_BIND_ERR;
        }
        if (MwType.TYPE_1 == mw.type())
        {
            if (MemoryWindowEntry.State.VALID != mw.state())
            {
                return WcStatus.MW_BIND_ERR;
            }
        }
        else
        {
            // o10-37.2.30: a type 2B window must be free (not bound); C10-72: the QP in the window's PD;
            // o10-37.2.40: a type 2B window is not unbound by a bind of length 0 (that is LOCAL_INV's job).
            if (MemoryWindowEntry.State.FREE != mw.state() || qp.pdHandle != mw.pdHandle() || null == mr)
            {
                return WcStatus.MW_BIND_ERR;
            }
        }
        if (null != mr && !regionAllows(mw, mr, access, wqe.bindAddress, length))
        {
            return WcStatus.MW_BIND_ERR;
        }
        mw.bind(wqe.bindNewRkey, qp, mr, wqe.bindAddress, length, access);
        return WcStatus.SUCCESS;
    }

    /**
     * rxe_check_bind_mw's region checks.
     */
    private static boolean regionAllows(
        final MemoryWindowEntry mw, final MemoryRegionEntry mr, final int access, final long addr, final long length)
    {
        // libibverbs ibv_bind_mw (EPERM) and IBA: the region in the window's protection domain (rxe leaves this to
        // libibverbs; a BIND_MW WR posted directly is checked here).
        if (mr.pdHandle() != mw.pdHandle())
        {
            return false;
        }
        // C10-73: the region registered with MW_BIND.
        if (0 == (mr.access() & AccessFlags.MW_BIND))
        {
            return false;
        }
        // C10-74: a window with remote write or atomic access needs a region with local write access.
        if (0 != (access & (AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_ATOMIC)) &&
            0 == (mr.access() & AccessFlags.LOCAL_WRITE))
        {
            return false;
        }
        // C10-75: the window inside the region.
        return mr.contains(addr, length);
    }

    /**
     * Invalidate the window or region an rkey names: rxe's invalidate_rkey (SEND with Invalidate) and the LOCAL_INV
     * branch of rxe_do_local_ops, which both call rxe_invalidate_mw or rxe_invalidate_mr.
     *
     * <p>A window: the rkey must be its current one and the window a bound type 2B (o10-37.2.26: a type 1 window
     * cannot be invalidated; rxe_check_invalidate_mw). A region: it must be registered with
     * {@link AccessFlags#REMOTE_INVALIDATE} (roce4j's stand-in for rxe's fast-registration MRs, the only ones
     * rxe_invalidate_mr accepts) and have no window bound (rxe: "attempt to invalidate an MR while bound to MWs").
     * Both must be in the QP's protection domain (rxe checks neither; a peer holding an rkey of another domain must
     * not reach it).
     *
     * @param qp   the QP the invalidation came through.
     * @param rkey the rkey.
     * @return true when invalidated; false for the error (LOC_QP_OP_ERR locally, class J remotely).
     */
    boolean invalidate(final QpContext qp, final int rkey)
    {
        final MemoryWindowEntry mw = byRkey(rkey);
        if (null != mw)
        {
            // rxe checks only that the window is not INVALID, and would dereference its null region for a FREE one:
            // roce4j refuses any window that is not bound.
            if (mw.rkey() != rkey || MwType.TYPE_1 == mw.type() || MemoryWindowEntry.State.VALID != mw.state() ||
                mw.pdHandle() != qp.pdHandle)
            {
                return false;
            }
            mw.invalidate();
            return true;
        }
        final MemoryRegionEntry mr = regions.byRkey(rkey);
        if (null == mr || mr.pdHandle() != qp.pdHandle || 0 == (mr.access() & AccessFlags.REMOTE_INVALIDATE) ||
            mr.boundWindows() > 0)
        {
            return false;
        }
        mr.invalidate();
        return true;
    }

    /**
     * rxe_lookup_mw: the window an rkey names, usable by this QP for this access: the exact rkey, the QP's
     * protection domain, for type 2B the QP that bound it, bound (a length), every access flag asked for, valid.
     *
     * @param qp     the QP the request came through.
     * @param rkey   the request's rkey.
     * @param access the {@link AccessFlags} the request needs.
     * @return the window, or null (RESPST_ERR_RKEY_VIOLATION).
     */
    MemoryWindowEntry lookup(final QpContext qp, final int rkey, final int access)
    {
        final MemoryWindowEntry mw = byRkey(rkey);
        if (null == mw || mw.rkey() != rkey || mw.pdHandle() != qp.pdHandle ||
            (MwType.TYPE_2 == mw.type() && mw.qp != qp) || 0 == mw.length || access != (mw.access & access) ||
            MemoryWindowEntry.State.VALID != mw.state() || null == mw.mr || !mw.mr.isValid())
        {
            return null;
        }
        return mw;
    }

    /**
     * rxe_recheck_mr: the region behind an rkey for the next packet of a READ response, which may have been
     * deregistered, invalidated or unbound meanwhile.
     *
     * @param rkey  the READ's rkey.
     * @param va    first address of the packet's bytes.
     * @param bytes the packet's bytes.
     * @return the region, or null when the rkey no longer reaches [va, va + bytes).
     */
    MemoryRegionEntry recheck(final int rkey, final long va, final long bytes)
    {
        final MemoryWindowEntry mw = byRkey(rkey);
        if (null != mw)
        {
            return mw.isValid(rkey) && mw.contains(va, bytes) ? mw.mr : null;
        }
        final MemoryRegionEntry mr = regions.byRkey(rkey);
        return null != mr && mr.isValid() && mr.contains(va, bytes) ? mr : null;
    }

    private boolean owns(final MemoryWindowEntry mw)
    {
        return null != mw && byIndex.get(mw.rkey() >>> INDEX_SHIFT) == mw;
    }

    private boolean regionUsesIndex(final int index)
    {
        final int base = index << INDEX_SHIFT;
        for (int key = 0; key < KEYS_PER_INDEX; key++)
        {
            if (null != regions.byRkey(base | key))
            {
                return true;
            }
        }
        return false;
    }
}
