package org.roce4j.verbs;

import org.roce4j.ib.Flush;
import org.roce4j.ib.QpType;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WrOpcode;

/**
 * The checks {@link QueuePair#postSend} makes on each send WR before posting any (rxe_verbs.c validate_send_wr and
 * the opcode-per-QP-type rule of IBA 9.4 / rxe's opcode table): flags, opcode for the QP type, SGE count and
 * lengths, inline data, FLUSH and ATOMIC WRITE arguments, atomics' alignment and the UD address handle. Each failure
 * is a {@link BadWorkRequestException} naming the problem and the WR's index.
 */
final class SendWrChecks
{
    private final QueuePair qp;
    private final QpType type;
    private final int maxSendSge;
    private final int maxInlineData;

    SendWrChecks(final QueuePair qp, final int maxSendSge, final int maxInlineData)
    {
        this.qp = qp;
        this.type = qp.type();
        this.maxSendSge = maxSendSge;
        this.maxInlineData = maxInlineData;
    }

    /**
     * Check one WR of a chain before any is posted.
     *
     * @param wr          the WR.
     * @param index       its index in the chain, for the exception.
     * @param maxRdAtomic the QP's max_rd_atomic now.
     * @throws BadWorkRequestException naming the problem.
     */
    void check(final SendWorkRequest wr, final int index, final int maxRdAtomic)
    {
        final WrOpcode opcode = wr.opcode();
        if (null == opcode)
        {
            throw bad(index, wr, "opcode is null");
        }
        final int flags = wr.sendFlags();
        if (0 != (flags & ~SendFlags.ALL))
        {
            throw bad(index, wr, "unknown send_flags bits 0x" + Integer.toHexString(flags & ~SendFlags.ALL));
        }
        checkOpcodeForType(wr, index, opcode);
        if (opcode.isLocal())
        {
            MemoryWindow.checkLocalWr(qp, wr, index);
            return;
        }
        final int numSge = wr.numSge();
        if (numSge > maxSendSge)
        {
            throw bad(index, wr, "num_sge " + numSge + " exceeds the QP's max_send_sge " + maxSendSge);
        }
        long total = 0;
        for (int i = 0; i < numSge; i++)
        {
            final int length = wr.sge(i).length();
            if (length < 0)
            {
                throw bad(index, wr, "SGE " + i + " has a negative length " + length);
            }
            total += length;
        }
        if (total > DeviceAttributes.MAX_MSG_SIZE)
        {
            throw bad(index, wr, "message length " + total + " exceeds the port's max message size " +
                DeviceAttributes.MAX_MSG_SIZE);
        }
        if (0 != (flags & SendFlags.INLINE))
        {
            checkInline(wr, index, opcode, total);
        }
        if (WrOpcode.FLUSH == opcode || WrOpcode.ATOMIC_WRITE == opcode)
        {
            checkFlushOrAtomicWrite(wr, index, opcode);
        }
        if (opcode.usesOrd() && 0 == maxRdAtomic)
        {
            throw bad(index, wr, opcode + " needs max_rd_atomic >= 1, and the QP was given max_rd_atomic 0 " +
                "(it could never start)");
        }
        if (opcode.isAtomic())
        {
            // rxe validate_send_wr refuses atomics under 8 bytes or with a misaligned remote_addr; roce4j also wants
            // the 8-byte result in one SGE, because the completer stores it with a single 64-bit write.
            if (1 != numSge || 8 != wr.sge(0).length())
            {
                throw bad(index, wr, opcode + " needs exactly one 8-byte SGE for the original value, got " + numSge +
                    " SGEs totalling " + total + " bytes");
            }
            if (0 != (wr.remoteAddr() & 7))
            {
                throw bad(index, wr, opcode + " remote_addr 0x" + Long.toHexString(wr.remoteAddr()) +
                    " is not 8-byte aligned");
            }
        }
        if (type.isDatagram())
        {
            checkUd(wr, index);
        }
    }

    private static void checkFlushOrAtomicWrite(final SendWorkRequest wr, final int index, final WrOpcode opcode)
    {
        // ibv_wr_flush and ibv_wr_atomic_write take no SGE: the data is the WR's (8 bytes) or there is none.
        if (0 != wr.numSge())
        {
            throw bad(index, wr, opcode + " takes no SGEs (its arguments are the WR's: " +
                (WrOpcode.FLUSH == opcode ? "wr.flush(...)" : "wr.atomicWrite(...)") + "), got " + wr.numSge());
        }
        if (WrOpcode.ATOMIC_WRITE == opcode)
        {
            return;
        }
        final int type = wr.flushType();
        if (0 == type || 0 != (type & ~Flush.ALL_TYPES))
        {
            throw bad(index, wr, "FLUSH placement type 0x" + Integer.toHexString(type) + " must be GLOBAL, " +
                "PERSISTENT or both (Flush.GLOBAL | Flush.PERSISTENT)");
        }
        if (Flush.RANGE != wr.flushLevel() && Flush.MR != wr.flushLevel())
        {
            throw bad(index, wr, "FLUSH selectivity level " + wr.flushLevel() + " must be Flush.RANGE (0) or " +
                "Flush.MR (1)");
        }
        if (wr.flushLength() < 0 || wr.flushLength() > DeviceAttributes.MAX_MSG_SIZE)
        {
            throw bad(index, wr, "FLUSH length " + wr.flushLength() + " must be 0.." +
                DeviceAttributes.MAX_MSG_SIZE + " (the port's max message size)");
        }
    }

    private void checkOpcodeForType(final SendWorkRequest wr, final int index, final WrOpcode opcode)
    {
        switch (type)
        {
            case UD:
            case GSI:
                if (WrOpcode.SEND != opcode && WrOpcode.SEND_WITH_IMM != opcode)
                {
                    throw bad(index, wr, "opcode " + opcode + " is not allowed on a " + type + " QP (only SEND " +
                        "and SEND_WITH_IMM)");
                }
                break;
            case UC:
                if (WrOpcode.SEND != opcode && WrOpcode.SEND_WITH_IMM != opcode && !opcode.isWrite() &&
                    !opcode.isLocal())
                {
                    throw bad(index, wr, "opcode " + opcode + " is not allowed on a UC QP (only SEND, " +
                        "SEND_WITH_IMM, RDMA_WRITE, RDMA_WRITE_WITH_IMM, BIND_MW and LOCAL_INV)");
                }
                break;
            default:
                break;
        }
    }

    private void checkInline(final SendWorkRequest wr, final int index, final WrOpcode opcode, final long total)
    {
        if (opcode.usesOrd() || WrOpcode.FLUSH == opcode)
        {
            throw bad(index, wr, "INLINE is not allowed with " + opcode + " (only SEND and RDMA WRITE carry " +
                "inline data)");
        }
        if (total > maxInlineData)
        {
            throw bad(index, wr, "inline data of " + total + " bytes exceeds the QP's max_inline_data " +
                maxInlineData);
        }
        for (int i = 0, n = wr.numSge(); i < n; i++)
        {
            final ScatterGatherElement sge = wr.sge(i);
            if (0 == sge.length())
            {
                continue;
            }
            final MemoryRegion region = qp.pd().device().regions().get(sge.lkey());
            if (null == region || !region.isValid() || !region.ops().contains(sge.addr(), sge.length()))
            {
                throw bad(index, wr, "inline SGE " + i + " (addr=0x" + Long.toHexString(sge.addr()) + " len=" +
                    sge.length() + " lkey=0x" + Integer.toHexString(sge.lkey()) + ") is not inside a registered " +
                    "memory region with that lkey: roce4j copies inline data out of registered memory");
            }
        }
    }

    private void checkUd(final SendWorkRequest wr, final int index)
    {
        final AddressHandle ah = wr.ah();
        if (null == ah)
        {
            throw bad(index, wr, "a " + type + " send needs an address handle: wr.ud(ah, remoteQpn, remoteQkey)");
        }
        if (ah.isDestroyed())
        {
            throw bad(index, wr, "the address handle was destroyed");
        }
        if (ah.pd() != qp.pd())
        {
            throw bad(index, wr, "the address handle belongs to protection domain " + ah.pd().handle() +
                ", the QP to " + qp.pd().handle());
        }
        if (0 != (wr.remoteQpn() & ~0xFF_FFFF))
        {
            throw bad(index, wr, "remote_qpn 0x" + Integer.toHexString(wr.remoteQpn()) + " does not fit in 24 bits");
        }
    }

    private static BadWorkRequestException bad(final int index, final SendWorkRequest wr, final String problem)
    {
        return new BadWorkRequestException(index, wr.wrId(), problem);
    }
}
