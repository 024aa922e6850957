package org.roce4j.conform;

import java.util.Locale;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * What is known about a kind of DUT: the scenarios where it departs from the IBA in a documented way, and what it is
 * known to do where it does not (its counters, the parameters that shape its answer), each with its source. A scenario
 * that fails against a DUT whose profile documents the departure is a {@link Verdict#DEVIATION}, not a FAIL.
 */
public enum PeerProfile
{
    /** No known deviations: every departure is a FAIL. */
    NONE(Map.of(), Map.of()),
    /**
     * Linux Soft-RoCE, from rxe's source (see docs/conform.md for the references).
     */
    RXE(Map.of(
        "requester.ghost-ack-ignored",
        "rxe's completer takes an ACK for a PSN it never sent as acknowledging every earlier WQE (rxe_comp.c " +
            "check_psn has no upper bound)",
        "requester.retry-exhausted",
        "rxe takes retry_cnt 7, the value perftest and ibv_rc_pingpong set, as retry forever (rxe_comp.c: " +
            "\"if (qp->comp.retry_cnt != 7) qp->comp.retry_cnt--\"), so the WRITE is retransmitted on and never " +
            "fails with RETRY_EXC_ERR",
        "responder.send-longer-than-receive",
        "rxe (Linux 6.1, measured in the guest) answers a SEND longer than its receive with NAK remote operational " +
            "error, not invalid request: rxe_resp.c takes a receive it cannot copy the SEND into for a malformed WQE " +
            "(protocol-facts A.7: malformed receive WQE, NAK 0x63)",
        "congestion.ce-marked-gets-cnp",
        "rxe is no notification point: nothing in rxe_recv.c, rxe_resp.c or rxe_comp.c sends a CNP (opcode 0x81) or " +
            "reads the ECN field (protocol-facts A.10)"), Map.of()),
    /**
     * NVIDIA ConnectX (mlx5): only what a public source says, each entry naming it (docs/conform.md, "The connectx
     * profile", lists them and what was left out for want of one).
     */
    CONNECTX(Map.of(
        "requester.lost-ack-retransmit",
        "with adaptive retransmission on (ROCE_ACCL roce_adp_retrans_en; counted in roce_adp_retrans and " +
            "roce_adp_retrans_to, mlx5 counters.c) a ConnectX does not wait the local ACK timeout: its first timeout " +
            "is drawn at random from the profile's range, from 4 us up, and the QP's ack_timeout is only the cap " +
            "(NVIDIA, Adaptive Retransmission: Parameters Control, Algorithm & Profile Description and Formulas)"),
        Map.of(
            "congestion.ce-marked-gets-cnp",
            "a DCQCN notification point when roce_np is enabled for the priority (NVIDIA MLNX_OFED, Explicit " +
                "Congestion Notification: r_roce_ecn_np, /sys/class/net/IF/ecn/roce_np/enable/N): CE-marked packets " +
                "count in np_ecn_marked_roce_packets and CNPs in np_cnp_sent (mlx5 counters.c), paced by " +
                "np_min_time_between_cnps (mlx5 cong.c; sysfs ecn/roce_np/min_time_between_cnps, en_ecn.c); " +
                "ConnectX-5 and -6 also send a CNP with each NAK when slow restart is on, ConnectX-4 does not " +
                "(Lumina, cnp_check.py NACK_TRIGGER_CNP_DIC)",
            "requester.retry-exhausted",
            "retry_cnt goes into the QP context as given (mlx5 qp.c: MLX5_SET(qpc, qpc, retry_count, " +
                "attr->retry_cnt)), with no rule that makes 7 retry forever as rxe has; ConnectX's own PRM counts " +
                "the transport retries down from retry_count to 1, the last attempt (ipxe MT25408_PRM.h, Hermon " +
                "QPC cur_retry_cnt), where only rnr_retry 7 means infinite (MT25218_PRM.h); with adaptive " +
                "retransmission " +
                "the QP fails with IBV_WC_RETRY_EXC_ERR when no progress is made within ack_timeout x retry count " +
                "or the profile's total timeout (NVIDIA, Adaptive Retransmission); counted in local_ack_timeout_err " +
                "(Lumina host_counter.py: the QP's ACK timer expired)",
            "requester.lost-ack-retransmit",
            "each expiry of the ACK timer counts in local_ack_timeout_err (mlx5 counters.c; Lumina host_counter.py)",
            "requester.nak-sequence-go-back-n",
            "a NAK sequence error received counts in packet_seq_err (mlx5 counters.c; Lumina host_counter.py: " +
                "received NAK sequence error packets); Lumina's go-back-N checker (gbn_check.py) holds ConnectX to " +
                "one NAK in flight and ACKs that never go backwards",
            "requester.implied-nak-read",
            "counted in implied_nak_seq_err (mlx5 counters.c; Lumina host_counter.py: READ responses implying a " +
                "sequence error)",
            "responder.psn-sequence-error",
            "a request ahead of the expected PSN counts in out_of_sequence (mlx5 counters.c; Lumina " +
                "host_counter.py: out-of-sequence packets received)",
            "responder.duplicate-write",
            "counted in duplicate_request (mlx5 counters.c; Lumina host_counter.py)",
            "responder.duplicate-send",
            "counted in duplicate_request (mlx5 counters.c; Lumina host_counter.py)",
            "responder.bad-icrc-dropped",
            "counted in rx_icrc_encapsulated (Lumina host_counter.py: RoCE packets with ICRC errors received)"));

    private final Map<String, String> deviations;
    private final Map<String, String> behaviours;

    PeerProfile(final Map<String, String> deviations, final Map<String, String> behaviours)
    {
        this.deviations = deviations;
        this.behaviours = behaviours;
    }

    /**
     * @param scenario a scenario name.
     * @return what is known, with its source, of how this kind of DUT behaves in the scenario where that is no
     *     departure from the IBA (a counter that moves, a parameter that shapes the answer), or null when nothing is.
     */
    public String behaviour(final String scenario)
    {
        return behaviours.get(scenario);
    }

    /**
     * @return the scenarios with a documented deviation, sorted.
     */
    public SortedSet<String> deviating()
    {
        return new TreeSet<>(deviations.keySet());
    }

    /**
     * @return the scenarios with a documented behaviour, sorted.
     */
    public SortedSet<String> described()
    {
        return new TreeSet<>(behaviours.keySet());
    }

    /**
     * @param scenario a scenario name.
     * @return the documented deviation, or null when the profile documents none for it.
     */
    public String deviation(final String scenario)
    {
        return deviations.get(scenario);
    }

    /**
     * @return the name used on the command line: {@code none}, {@code rxe}, {@code connectx}.
     */
    public String cliName()
    {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @param name {@code none}, {@code rxe} or {@code connectx}, any case.
     * @return the profile.
     * @throws IllegalArgumentException naming the accepted values.
     */
    public static PeerProfile of(final String name)
    {
        for (final PeerProfile profile : values())
        {
            if (profile.cliName().equalsIgnoreCase(name))
            {
                return profile;
            }
        }
        throw new IllegalArgumentException("unknown profile '" + name + "': use none, rxe or connectx");
    }
}
