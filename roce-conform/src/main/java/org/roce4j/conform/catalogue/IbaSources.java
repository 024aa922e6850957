package org.roce4j.conform.catalogue;

/**
 * The public sources the catalogue's IBA section numbers were checked against ({@code IbaRule.verifiedBy}), one home
 * for each, so that scenarios checking rules of the same section name the same source. The specification itself is
 * not at hand: each source is a public text that names the section (or compliance statement) next to the behaviour.
 * Mailing-list posts are on the linux-rdma list (lore.kernel.org/linux-rdma); "pib" is Minoru Nakamura's software
 * InfiniBand HCA driver (github nminoru/pib).
 */
final class IbaSources
{
    /** C9-105: a duplicate SEND or WRITE is acknowledged again, nothing more. */
    static final String C9_105 = "linux drivers/infiniband/sw/rxe/rxe_resp.c duplicate_request: " +
        "'SEND. Ack again and cleanup. C9-105.'";

    /** C9-88 in 9.7.4.1.5: a zero-length RDMA operation needs no valid R_Key or address. */
    static final String C9_88 = "linux-rdma, D. Matsuda, 8 Dec 2022 (Revert 'RDMA/rxe: Remove unnecessary mr " +
        "testing'): rxe's zero-length skip in check_rkey is 'justified by 9.7.4.1.5 C9-88'; older rxe_resp.c: " +
        "'See C9-88'";

    /** 9.7.4.1.5 R_Key validation and 9.7.5.2.4, the NAK remote access error it leads to. */
    static final String R_KEY = "linux-rdma, Li Zhijian, 30 Aug 2022 (Re: RDMA/rxe: Delete error messages " +
        "triggered by incoming Read requests): '9.7.5.2.4 REMOTE ACCESS ERROR', '9.7.4.1.5 RESPONDER R_KEY VALIDATION'";

    /** 9.9.3.1.3: class C responder errors are NAKed and put the QP in the error state. */
    static final String CLASS_C = "linux-rdma, E. Green, Feb 2026 (RDMA/rxe: async error for r_key violations): " +
        "'9.9.3.1.3 Responder Class C Fault Behavior'; linux rxe_resp.c rxe_responder files this error as 'Class C'";

    /** 9.4.4, RDMA READ: a retried READ is a subset of the original, answered with the same data and PSNs. */
    static final String READ_RETRY = "pib driver/pib_rc.c:398: 'IBA Spec. Vol.1 9.4.4': a retried RDMA READ is a " +
        "subset of the original and its response packets repeat the same payload and PSNs";

    /** 9.4.5, atomic operations: their ACK generation and error behaviour. */
    static final String ATOMIC = "NVIDIA MLNX_OFED docs, 'Advanced Transport': atomic ACK generation and error " +
        "behavior 'as defined in section 9.4.5 of the IB spec'";

    /** 9.7.5.1.2, coalesced acknowledges: a response's PSN acknowledges every request PSN before it. */
    static final String COALESCED = "pib driver/pib_rc.c:1320: 'IBA Spec. Vol.1 9.7.5.1.2. Coalesced Acknowledge " +
        "Messages'; linux-rdma, B. Pearson, 14 May 2022 (Re: Question about AETH_NAK_PSN_SEQ_ERROR)";

    /** 9.7.5.1.2 for a NAK: it acknowledges every PSN before the one it names. */
    static final String NAK_ACKS_BEFORE = "linux-rdma, B. Pearson, 14 May 2022 (Re: Question about " +
        "AETH_NAK_PSN_SEQ_ERROR): a NAK implicitly acks all earlier PSNs, see 'IBA 9.7.5.1.2 Coalesced Acknowledge " +
        "Messages'";

    /** 9.7.6.1.3: the local ACK timeout, 4.096 us x 2^timeout. */
    static final String ACK_TIMEOUT = "ipxe src/drivers/infiniband/MT25408_PRM.h:300 (Mellanox PRM): local ACK " +
        "timeout, 'Refer to IB spec Vol1 9.7.6.1.3'; pib driver/pib_lib.c:220: 'IBA Spec. Vol.1 9.7.6.1.3'";

    /** 9.7.5.2.8: the RNR NAK and its timer encoding. */
    static final String RNR_NAK = "ipxe src/drivers/infiniband/MT25408_PRM.h:903 (Mellanox PRM): min_rnr_nak, " +
        "'TTTTT field encoding according to the IB spec Vol1 9.7.5.2.8'";

    /** Annex A17's own text, for the annex's sections and the base sections it refers to. */
    static final String ANNEX_A17 = "IBTA Annex A17 (RoCEv2), the annex text: ";

    private IbaSources()
    {
    }
}
