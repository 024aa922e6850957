package org.roce4j.conform;

import java.util.Locale;
import java.util.Map;

/**
 * What is known about a kind of DUT: the scenarios where it departs from the IBA in a documented way. A scenario
 * that fails against a DUT whose profile documents the departure is a {@link Verdict#DEVIATION}, not a FAIL.
 */
public enum PeerProfile
{
    /** No known deviations: every departure is a FAIL. */
    NONE(Map.of()),
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
            "reads the ECN field (protocol-facts A.10)")),
    /**
     * NVIDIA ConnectX (mlx5). No deviation is documented in this catalogue yet; the profile exists so reports name
     * the DUT kind, and entries are added as captures show them.
     */
    CONNECTX(Map.of());

    private final Map<String, String> deviations;

    PeerProfile(final Map<String, String> deviations)
    {
        this.deviations = deviations;
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
