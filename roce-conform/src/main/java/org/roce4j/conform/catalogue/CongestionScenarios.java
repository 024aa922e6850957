package org.roce4j.conform.catalogue;

import java.util.ArrayList;
import java.util.List;

import org.roce4j.conform.Checkers;
import org.roce4j.conform.Checks;
import org.roce4j.conform.ConformContext;
import org.roce4j.conform.FrameFilter;
import org.roce4j.conform.Frames;
import org.roce4j.conform.Scenario;
import org.roce4j.conform.Side;
import org.roce4j.conform.Steps;
import org.roce4j.transport.cc.CongestionControl;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.Psn;

import static org.roce4j.conform.ConformContext.PEER_PSN;

/**
 * Congestion scenarios (ECN and CNP, IBA annex A17.9): a CNP arriving breaks nothing; a CE-marked packet makes a
 * notification point send a CNP in RoCEv2's format, at most one per QP per minimum interval. rxe is no notification
 * point (its profile says so); roce4j is one with congestion control on, as the --self DUT runs.
 */
public final class CongestionScenarios
{
    private static final byte[] DATA = Frames.pattern(64, 7);
    /**
     * How long the scenario waits before its burst so that any notification point may notify again: 5 ms, above the
     * largest {@code min_time_between_cnps} ConnectX accepts (4095 us).
     */
    private static final long NP_QUIET_NS = 5_000_000L;
    /** CE-marked WRITEs in the burst that must get one CNP, not one each. */
    private static final int BURST = 8;

    private CongestionScenarios()
    {
    }

    /**
     * @return the congestion scenarios.
     */
    public static List<Scenario> all()
    {
        return List.of(cnpHarmless(), ceMarkedGetsCnp());
    }

    static Scenario cnpHarmless()
    {
        return Scenario.builder("congestion.cnp-harmless").side(Side.CONGESTION)
            .rule("A17.9.3", "a CNP arriving at a QP is a hint to its rate limiter, never a request: it gets no " +
                "response and breaks nothing", IbaSources.ANNEX_A17 + "A17.9.3 CA17-45: a received CNP reduces " +
                "the injection rate of the QP it names; its 16 reserved bytes are ignored by the receiver")
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

    /** A WRITE ONLY at {@code psn} whose IPv4 ECN field says Congestion Experienced (RFC 3168), AckReq set. */
    private static byte[] ceMarkedWrite(final ConformContext ctx, final int psn)
    {
        return ctx.frame(Opcode.RC_RDMA_WRITE_ONLY, psn, DATA, b ->
        {
            b.ipv4Header().tos(CongestionControl.ECN_CE);
            b.bthHeader().ackReq(true);
            b.reth().va(ctx.qp().va()).rkey(ctx.qp().rkey()).dmaLength(DATA.length);
        });
    }

    static Scenario ceMarkedGetsCnp()
    {
        return Scenario.builder("congestion.ce-marked-gets-cnp").side(Side.CONGESTION)
            .rule("A17.9.3", "a CE-marked packet makes the notification point send its sender a CNP (opcode 0x81, " +
                "BECN, DestQP the sending QP, 16 reserved bytes), at most one per QP per minimum interval",
                IbaSources.ANNEX_A17 + "A17.9.3 CA17-44 and Figure 6 (the CNP, one allowed for several CE-marked " +
                "packets); NVIDIA knowledge base 'RoCEv2 CNP Packet Format Example', which cites Annex 17.9.3")
            .summary("a CE-marked WRITE gets a CNP; 5 ms later a burst of 8 CE-marked WRITEs gets one more")
            .steps(Steps.connect(),
                Steps.send("a WRITE ONLY marked CE", ctx -> ceMarkedWrite(ctx, PEER_PSN)),
                Steps.expect(FrameFilter.opcode(Opcode.CNP_NOTIFICATION), ResponderScenarios.RESPONSE_NS),
                Steps.advance(NP_QUIET_NS),
                Steps.sendBurst(BURST + " WRITE ONLYs marked CE, back to back", ctx ->
                {
                    final List<byte[]> burst = new ArrayList<>();
                    for (int i = 1; i <= BURST; i++)
                    {
                        burst.add(ceMarkedWrite(ctx, Psn.add(PEER_PSN, i)));
                    }
                    return burst;
                }),
                Steps.expect(FrameFilter.opcode(Opcode.CNP_NOTIFICATION), ResponderScenarios.RESPONSE_NS),
                Steps.expect(FrameFilter.ack().and(FrameFilter.psn(Psn.add(PEER_PSN, BURST))),
                    ResponderScenarios.RESPONSE_NS),
                Steps.expectNone(FrameFilter.opcode(Opcode.CNP_NOTIFICATION), ResponderScenarios.SILENCE_NS),
                Steps.check("CNP format", ctx -> Checkers.cnpFormat(ctx.capture(), ConformContext.PEER_QPN)),
                Steps.check("CNP pacing", ctx -> Checkers.cnpPacing(ctx.capture(), Checkers.CNP_MIN_INTERVAL_NS)),
                Steps.check("AckReq answered", ctx -> Checkers.ackReqAnswered(ctx.capture())),
                Steps.qpAlive())
            .build();
    }
}
