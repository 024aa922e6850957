package org.roce4j.ib;

/**
 * One work completion (struct ibv_wc): a mutable value the caller allocates once and passes to poll, which fills
 * it in. Fields follow libibverbs: wr_id, status, opcode, byte_len, imm_data, qp_num, src_qp, wc_flags, and for
 * SEND_WITH_INV the invalidated rkey.
 */
public final class WorkCompletion
{
    /** wc_flags bit: the first 40 bytes of the receive buffer hold a GRH / IP header (UD only). */
    public static final int FLAG_GRH = 1;
    /**
     * Bytes of the network header area at the start of every UD receive buffer: union rdma_network_hdr
     * (include/rdma/ib_verbs.h), the 40-byte GRH or 20 zero bytes and an IPv4 header (rxe_resp.c execute()).
     */
    public static final int GRH_BYTES = 40;
    /** wc_flags bit: {@link #immData()} is valid. */
    public static final int FLAG_WITH_IMM = 1 << 1;
    /** wc_flags bit: {@link #invalidatedRkey()} is valid. */
    public static final int FLAG_WITH_INV = 1 << 3;

    long wrId;
    WcStatus status = WcStatus.SUCCESS;
    WcOpcode opcode = WcOpcode.SEND;
    int byteLen;
    int immData;
    int qpNum;
    int srcQp;
    int wcFlags;
    int invalidatedRkey;

    /**
     * Fill every field (used by the completion ring).
     *
     * @param wrId            work request id.
     * @param status          status.
     * @param opcode          opcode.
     * @param byteLen         bytes received (receives, READ) or sent.
     * @param immData         immediate data (network order bytes as a big-endian int).
     * @param qpNum           local QP.
     * @param srcQp           remote QP (UD receives).
     * @param wcFlags         FLAG_* bits.
     * @param invalidatedRkey rkey invalidated by a SEND_WITH_INV.
     * @return this.
     */
    public WorkCompletion set(
        final long wrId,
        final WcStatus status,
        final WcOpcode opcode,
        final int byteLen,
        final int immData,
        final int qpNum,
        final int srcQp,
        final int wcFlags,
        final int invalidatedRkey)
    {
        this.wrId = wrId;
        this.status = status;
        this.opcode = opcode;
        this.byteLen = byteLen;
        this.immData = immData;
        this.qpNum = qpNum;
        this.srcQp = srcQp;
        this.wcFlags = wcFlags;
        this.invalidatedRkey = invalidatedRkey;
        return this;
    }

    /**
     * @return the work request id the WR was posted with.
     */
    public long wrId()
    {
        return wrId;
    }

    /**
     * @return completion status.
     */
    public WcStatus status()
    {
        return status;
    }

    /**
     * @return completion opcode (meaningful for SUCCESS; libibverbs leaves it undefined on errors).
     */
    public WcOpcode opcode()
    {
        return opcode;
    }

    /**
     * @return bytes: received bytes for a receive (for UD including the 40-byte GRH area), bytes read for a READ.
     */
    public int byteLen()
    {
        return byteLen;
    }

    /**
     * @return immediate data (valid with {@link #FLAG_WITH_IMM}).
     */
    public int immData()
    {
        return immData;
    }

    /**
     * @return local QP number.
     */
    public int qpNum()
    {
        return qpNum;
    }

    /**
     * @return source QP of a UD receive.
     */
    public int srcQp()
    {
        return srcQp;
    }

    /**
     * @return FLAG_* bits.
     */
    public int wcFlags()
    {
        return wcFlags;
    }

    /**
     * @return true when {@link #FLAG_GRH} is set.
     */
    public boolean hasGrh()
    {
        return 0 != (wcFlags & FLAG_GRH);
    }

    /**
     * @return true when {@link #FLAG_WITH_IMM} is set.
     */
    public boolean hasImmediate()
    {
        return 0 != (wcFlags & FLAG_WITH_IMM);
    }

    /**
     * @return rkey invalidated by the SEND_WITH_INV that completed this receive (valid with FLAG_WITH_INV).
     */
    public int invalidatedRkey()
    {
        return invalidatedRkey;
    }

    /**
     * @return e.g. {@code wc{wr_id=7 status=SUCCESS opcode=RECV byte_len=4096 qp=0x11}}.
     */
    public String toString()
    {
        return "wc{wr_id=" + wrId + " status=" + status + " opcode=" + opcode + " byte_len=" + byteLen +
            " qp=0x" + Integer.toHexString(qpNum) +
            (hasImmediate() ? " imm=0x" + Integer.toHexString(immData) : "") +
            (0 != srcQp ? " src_qp=0x" + Integer.toHexString(srcQp) : "") +
            (hasGrh() ? " grh" : "") + "}";
    }
}
