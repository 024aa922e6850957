package org.roce4j.transport.engine;

import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WrOpcode;
import org.roce4j.transport.provider.SendWrView;

/**
 * A send work queue entry: the posted work request (copied in at post time, like a hardware WQE) and the engine's
 * progress on it (rxe struct rxe_send_wqe). One instance per send-queue slot, reused.
 */
final class SendWqe
{
    // ---- posted by the user thread ----
    long wrId;
    WrOpcode opcode;
    /** {@link SendFlags} bits. */
    int flags;
    final Sgl sgl;
    final UnsafeBuffer inlineData;
    int inlineLength;
    long remoteAddress;
    int rkey;
    int immediate;
    int invalidateRkey;
    long compareAdd;
    long swap;
    /** ATOMIC_WRITE: the 8 bytes to store, as ibv_wr_atomic_write's atomic_wr read as a native-order long. */
    long atomicWriteValue;
    /** FLUSH: bytes to flush (the RETH DMA length; ignored by the responder for level MR). */
    long flushLength;
    /** FLUSH: placement type bits (FETH PLT, IBV_FLUSH_GLOBAL / IBV_FLUSH_PERSISTENT). */
    int flushType;
    /** FLUSH: selectivity level (FETH SEL, IBV_FLUSH_RANGE / IBV_FLUSH_MR). */
    int flushLevel;
    /** BIND_MW: the window (rxe wr.mw.mw_rkey names it). */
    MemoryWindowEntry bindMw;
    /** BIND_MW: the window's rkey as the poster knew it (rxe wr.mw.mw_rkey). */
    int bindMwRkey;
    /** BIND_MW: the new rkey; its low 8 bits become the window's key (rxe wr.mw.rkey). */
    int bindNewRkey;
    /** BIND_MW: the region (rxe wr.mw.mr_lkey), or null. */
    MemoryRegionEntry bindMr;
    /** BIND_MW: first address of the window. */
    long bindAddress;
    /** BIND_MW: bytes in the window. */
    long bindLength;
    /** BIND_MW: the window's access flags. */
    int bindAccess;
    final AddressVector udAddress = new AddressVector();
    int remoteQpn;
    int remoteQkey;

    // ---- engine state ----
    WqeState state;
    WcStatus status;
    int firstPsn;
    int lastPsn;
    long length;
    long resid;
    long remoteOffset;
    /** Validated and counted once; a retry does not start it again. */
    boolean started;
    /** Holds one of the requester's max_rd_atomic slots (rxe wqe->has_rd_atomic). */
    boolean holdsOrd;

    /**
     * @param maxSge    SGE capacity.
     * @param maxInline inline data capacity in bytes.
     */
    SendWqe(final int maxSge, final int maxInline)
    {
        this.sgl = new Sgl(Math.max(1, maxSge));
        this.inlineData = new UnsafeBuffer(new byte[Math.max(8, maxInline)]);
    }

    /**
     * Reset every posted field before filling a slot.
     *
     * @return this.
     */
    public SendWqe clear()
    {
        wrId = 0;
        opcode = WrOpcode.SEND;
        flags = 0;
        sgl.clear();
        inlineLength = 0;
        remoteAddress = 0;
        rkey = 0;
        immediate = 0;
        invalidateRkey = 0;
        compareAdd = 0;
        swap = 0;
        atomicWriteValue = 0;
        flushLength = 0;
        flushType = 0;
        flushLevel = 0;
        bindMw = null;
        bindMwRkey = 0;
        bindNewRkey = 0;
        bindMr = null;
        bindAddress = 0;
        bindLength = 0;
        bindAccess = 0;
        remoteQpn = 0;
        remoteQkey = 0;
        state = WqeState.POSTED;
        status = WcStatus.SUCCESS;
        started = false;
        holdsOrd = false;
        length = 0;
        resid = 0;
        remoteOffset = 0;
        return this;
    }

    /**
     * Copy a posted work request into this cleared slot (the posting thread, before the slot is published): what a
     * hardware WQE holds, inline data included, so the caller may reuse its request at once. Only the fields the
     * opcode uses are read.
     *
     * @param wr       the request, checked by the caller.
     * @param datagram true on a UD or GSI QP: the address handle and the remote QPN and Q_Key are copied.
     */
    void post(final SendWrView wr, final boolean datagram)
    {
        final WrOpcode op = wr.opcode();
        wrId = wr.wrId();
        opcode = op;
        flags = wr.sendFlags() & SendFlags.ALL;
        if (0 != (flags & SendFlags.INLINE))
        {
            inlineLength = wr.copyInline(inlineData);
        }
        else
        {
            for (int i = 0, n = wr.numSge(); i < n; i++)
            {
                sgl.add(wr.sgeAddress(i), wr.sgeLength(i), wr.sgeLkey(i));
            }
        }
        if (op.isWrite() || WrOpcode.RDMA_READ == op || op.isAtomic() || WrOpcode.FLUSH == op ||
            WrOpcode.ATOMIC_WRITE == op)
        {
            remoteAddress = wr.remoteAddress();
            rkey = wr.rkey();
        }
        if (WrOpcode.ATOMIC_WRITE == op)
        {
            atomicWriteValue = wr.atomicWriteValue();
        }
        if (WrOpcode.FLUSH == op)
        {
            flushLength = wr.flushLength();
            flushType = wr.flushType();
            flushLevel = wr.flushLevel();
        }
        if (op.isAtomic())
        {
            compareAdd = wr.compareAdd();
            swap = wr.swap();
        }
        if (op.hasImmediate())
        {
            immediate = wr.immData();
        }
        if (WrOpcode.SEND_WITH_INV == op || WrOpcode.LOCAL_INV == op)
        {
            invalidateRkey = wr.invalidateRkey();
        }
        if (WrOpcode.BIND_MW == op)
        {
            bindMw = (MemoryWindowEntry)wr.bindMw();
            bindMwRkey = wr.bindMwRkey();
            bindNewRkey = wr.bindNewRkey();
            bindMr = (MemoryRegionEntry)wr.bindMr();
            bindAddress = wr.bindAddress();
            bindLength = wr.bindLength();
            bindAccess = wr.bindAccess();
        }
        if (datagram)
        {
            udAddress.copyFrom((AddressVector)wr.ah());
            remoteQpn = wr.remoteQpn();
            remoteQkey = wr.remoteQkey();
        }
    }

    /**
     * @param wrId user's work request id.
     * @return this.
     */
    public SendWqe wrId(final long wrId)
    {
        this.wrId = wrId;
        return this;
    }

    /**
     * @param opcode what to do.
     * @return this.
     */
    public SendWqe opcode(final WrOpcode opcode)
    {
        this.opcode = opcode;
        return this;
    }

    /**
     * @param flags {@link SendFlags} bits.
     * @return this.
     */
    public SendWqe flags(final int flags)
    {
        this.flags = flags;
        return this;
    }

    /**
     * @return the scatter/gather list to fill.
     */
    public Sgl sgl()
    {
        return sgl;
    }

    /**
     * @return the inline data area (copy the payload at index 0, then call {@link #inlineLength(int)}).
     */
    public UnsafeBuffer inlineData()
    {
        return inlineData;
    }

    /**
     * @param length bytes of inline data.
     * @return this.
     */
    public SendWqe inlineLength(final int length)
    {
        this.inlineLength = length;
        return this;
    }

    /**
     * @param remoteAddress target VA for RDMA and atomics.
     * @param rkey          target's remote key.
     * @return this.
     */
    public SendWqe remote(final long remoteAddress, final int rkey)
    {
        this.remoteAddress = remoteAddress;
        this.rkey = rkey;
        return this;
    }

    /**
     * @param immediate imm_data as the 4 wire bytes in a big-endian int.
     * @return this.
     */
    public SendWqe immediate(final int immediate)
    {
        this.immediate = immediate;
        return this;
    }

    /**
     * @param rkey remote key the responder should invalidate (SEND_WITH_INV).
     * @return this.
     */
    public SendWqe invalidateRkey(final int rkey)
    {
        this.invalidateRkey = rkey;
        return this;
    }

    /**
     * @param compareAdd compare value (CMP_AND_SWP) or addend (FETCH_AND_ADD).
     * @param swap       swap value (CMP_AND_SWP).
     * @return this.
     */
    public SendWqe atomic(final long compareAdd, final long swap)
    {
        this.compareAdd = compareAdd;
        this.swap = swap;
        return this;
    }

    /**
     * @param value the 8 bytes an ATOMIC_WRITE stores at the remote address (a native-order long).
     * @return this.
     */
    public SendWqe atomicWrite(final long value)
    {
        this.atomicWriteValue = value;
        return this;
    }

    /**
     * @param length bytes to flush (ignored by the responder for level MR).
     * @param type   placement type bits (FETH PLT).
     * @param level  selectivity level (FETH SEL).
     * @return this.
     */
    public SendWqe flush(final long length, final int type, final int level)
    {
        this.flushLength = length;
        this.flushType = type;
        this.flushLevel = level;
        return this;
    }

    /**
     * @return the UD destination to fill (copy the address handle's vector in).
     */
    public AddressVector udAddress()
    {
        return udAddress;
    }

    /**
     * @param remoteQpn  UD destination QP.
     * @param remoteQkey UD destination Q_Key.
     * @return this.
     */
    public SendWqe ud(final int remoteQpn, final int remoteQkey)
    {
        this.remoteQpn = remoteQpn;
        this.remoteQkey = remoteQkey;
        return this;
    }

    /**
     * @return work request id.
     */
    public long wrId()
    {
        return wrId;
    }

    /**
     * @return opcode.
     */
    public WrOpcode opcode()
    {
        return opcode;
    }

    /**
     * @return flags.
     */
    public int flags()
    {
        return flags;
    }

    /**
     * @return engine state.
     */
    public WqeState state()
    {
        return state;
    }

    /**
     * @return message length in bytes (valid once the requester started it).
     */
    public long length()
    {
        return length;
    }

    boolean isSignaled()
    {
        return 0 != (flags & SendFlags.SIGNALED);
    }

    boolean isInline()
    {
        return 0 != (flags & SendFlags.INLINE);
    }

    /**
     * @return payload length of the work request as posted.
     */
    public long postedLength()
    {
        if (opcode.isAtomic() || WrOpcode.ATOMIC_WRITE == opcode)
        {
            return 8;
        }
        if (WrOpcode.FLUSH == opcode)
        {
            return flushLength;
        }
        return isInline() ? inlineLength : sgl.totalLength();
    }
}
