package org.roce4j.transport.provider;

import org.agrona.MutableDirectBuffer;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WrOpcode;

/**
 * A send work request as a provider reads it while posting (struct ibv_send_wr as post_send sees it): the fields
 * an opcode does not use are not read.
 */
public interface SendWrView extends WrView
{
    /**
     * @return what to do.
     */
    WrOpcode opcode();

    /**
     * @return {@link SendFlags} bits.
     */
    int sendFlags();

    /**
     * For a WR with {@link SendFlags#INLINE}: copy the payload the SGEs name into the provider's WQE.
     *
     * @param target where the payload goes, from index 0 (it holds at least the QP's max_inline_data bytes).
     * @return bytes copied.
     */
    int copyInline(MutableDirectBuffer target);

    /**
     * @return remote address of an RDMA or atomic operation.
     */
    long remoteAddress();

    /**
     * @return remote key of an RDMA or atomic operation.
     */
    int rkey();

    /**
     * @return compare value (CMP_AND_SWP) or addend (FETCH_AND_ADD).
     */
    long compareAdd();

    /**
     * @return swap value (CMP_AND_SWP).
     */
    long swap();

    /**
     * @return the 8 bytes an ATOMIC_WRITE stores (ibv_wr_atomic_write's atomic_wr), as a native-order long.
     */
    long atomicWriteValue();

    /**
     * @return bytes a FLUSH covers (ibv_wr_flush len).
     */
    long flushLength();

    /**
     * @return placement type bits of a FLUSH (ibv_wr_flush type: IBV_FLUSH_GLOBAL, IBV_FLUSH_PERSISTENT).
     */
    int flushType();

    /**
     * @return selectivity level of a FLUSH (ibv_wr_flush level: IBV_FLUSH_RANGE, IBV_FLUSH_MR).
     */
    int flushLevel();

    /**
     * @return immediate data of a WITH_IMM opcode, as the 4 wire bytes in a big-endian int.
     */
    int immData();

    /**
     * @return the rkey a SEND_WITH_INV asks the responder to invalidate.
     */
    int invalidateRkey();

    /**
     * @return a BIND_MW's window (ibv_send_wr bind_mw.mw).
     */
    MwOps bindMw();

    /**
     * @return a BIND_MW's window rkey as the poster knew it (rxe wr.mw.mw_rkey, checked against the window's).
     */
    int bindMwRkey();

    /**
     * @return a BIND_MW's new rkey (bind_mw.rkey; rxe keeps its low 8 bits, the key).
     */
    int bindNewRkey();

    /**
     * @return a BIND_MW's memory region (bind_info.mr), or null to unbind (length 0).
     */
    MrOps bindMr();

    /**
     * @return a BIND_MW's first address (bind_info.addr).
     */
    long bindAddress();

    /**
     * @return a BIND_MW's length in bytes (bind_info.length).
     */
    long bindLength();

    /**
     * @return a BIND_MW's access flags (bind_info.mw_access_flags, {@code org.roce4j.ib.AccessFlags}).
     */
    int bindAccess();

    /**
     * @return the destination of a UD or GSI send.
     */
    AhOps ah();

    /**
     * @return destination QP of a UD or GSI send.
     */
    int remoteQpn();

    /**
     * @return destination Q_Key of a UD or GSI send.
     */
    int remoteQkey();
}
