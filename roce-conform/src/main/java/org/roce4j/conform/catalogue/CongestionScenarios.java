package org.roce4j.conform.catalogue;

import java.util.List;

import org.roce4j.conform.Checks;
import org.roce4j.conform.FrameFilter;
import org.roce4j.conform.Frames;
import org.roce4j.conform.Scenario;
import org.roce4j.conform.Side;
import org.roce4j.conform.Steps;
import org.roce4j.wire.Opcode;

import static org.roce4j.conform.ConformContext.PEER_PSN;

/**
 * Congestion scenarios (ECN and CNP, IBA annex A17.9). A CE-marked packet making a notification point send a CNP is
 * not in the catalogue yet: roce4j on main is not a notification point, so --self could not pass it.
 */
public final class CongestionScenarios
{
    private static final byte[] DATA = Frames.pattern(64, 7);

    private CongestionScenarios()
    {
    }

    /**
     * @return the congestion scenarios.
     */
    public static List<Scenario> all()
    {
        return List.of(cnpHarmless());
    }

    static Scenario cnpHarmless()
    {
        return Scenario.builder("congestion.cnp-harmless").side(Side.CONGESTION)
            .rule("A17.9", "a CNP arriving at a QP is a hint to its rate limiter, never a request: it gets no " +
                "response and breaks nothing")
            .summary("a CNP to the DUT's QP, then a WRITE that must be ACKed")
            .steps(Steps.connect(),
                Steps.send("CNP (opcode 0x81, BECN)", ctx -> ctx.frame(Opcode.CNP_NOTIFICATION, 0, new byte[0], b ->
                {
                    b.bthHeader().becn(true);
                    b.cnp().clear();
                })),
                Steps.expectNone(FrameFilter.any(), ResponderScenarios.SILENCE_NS),
                Steps.send("a good WRITE ONLY", ctx -> Frames.writeOnly(ctx, PEER_PSN, DATA)),
                Steps.expect(FrameFilter.ack(), ResponderScenarios.RESPONSE_NS,
                    ack -> Checks.equal("ACK PSN", PEER_PSN, ack.psn())),
                Steps.qpAlive())
            .build();
    }
}
