package org.roce4j.conform.dut;

import org.roce4j.ib.WrOpcode;

/**
 * A work request the conform runner asks the DUT to post on its send queue.
 *
 * @param wrId        the work request id.
 * @param opcode      SEND, RDMA_WRITE, RDMA_READ, ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD.
 * @param localOffset offset into the DUT's region of the local buffer.
 * @param length      bytes.
 * @param remoteVa    remote address (RDMA and atomics).
 * @param rkey        remote key.
 * @param compareAdd  atomic compare value or addend.
 * @param swap        atomic swap value.
 */
public record DutWork(long wrId, WrOpcode opcode, int localOffset, int length, long remoteVa, int rkey,
    long compareAdd, long swap)
{
    /**
     * @param wrId     id.
     * @param offset   local offset.
     * @param length   bytes.
     * @param remoteVa remote address.
     * @param rkey     remote key.
     * @return an RDMA WRITE.
     */
    public static DutWork write(final long wrId, final int offset, final int length, final long remoteVa,
        final int rkey)
    {
        return new DutWork(wrId, WrOpcode.RDMA_WRITE, offset, length, remoteVa, rkey, 0, 0);
    }

    /**
     * @param wrId     id.
     * @param offset   local offset the data lands at.
     * @param length   bytes.
     * @param remoteVa remote address.
     * @param rkey     remote key.
     * @return an RDMA READ.
     */
    public static DutWork read(final long wrId, final int offset, final int length, final long remoteVa,
        final int rkey)
    {
        return new DutWork(wrId, WrOpcode.RDMA_READ, offset, length, remoteVa, rkey, 0, 0);
    }

    /**
     * @param wrId   id.
     * @param offset local offset.
     * @param length bytes.
     * @return a SEND.
     */
    public static DutWork send(final long wrId, final int offset, final int length)
    {
        return new DutWork(wrId, WrOpcode.SEND, offset, length, 0, 0, 0, 0);
    }
}
