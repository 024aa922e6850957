package org.roce4j.conform.catalogue;

import java.util.Arrays;
import java.util.List;

import org.roce4j.conform.CapturedFrame;
import org.roce4j.conform.Checkers;
import org.roce4j.conform.Checks;
import org.roce4j.conform.ConformContext;
import org.roce4j.conform.ConformFailure;
import org.roce4j.conform.ConformSkip;
import org.roce4j.conform.Finding;
import org.roce4j.conform.Direction;
import org.roce4j.conform.FrameFilter;
import org.roce4j.conform.FrameRule;
import org.roce4j.conform.Frames;
import org.roce4j.conform.Scenario;
import org.roce4j.conform.Side;
import org.roce4j.conform.Step;
import org.roce4j.conform.Steps;
import org.roce4j.conform.dut.DutCompletion;
import org.roce4j.conform.dut.DutWork;
import org.roce4j.ib.WcStatus;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.Psn;
import org.roce4j.wire.header.AethHeader;
import org.roce4j.wire.header.AethHeader.NakCode;

/**
 * Scenarios with the DUT as requester: the DUT posts work, the conform peer answers as a responder that loses,
 * NAKs, delays or invents acknowledgements, and judges the DUT's retransmissions and completions.
 */
public final class RequesterScenarios
{
    /** RNR timer code the peer's RNR NAK carries: 14, 1.28 ms. */
    private static final int RNR_CODE = 14;
    private static final int ACK = AethHeader.SYNDROME_ACK_UNLIMITED;
    /**
     * Packets of the long WRITE the AckReq cadence is judged on: more than {@link Checkers#MAX_PACKETS_WITHOUT_ACK_REQ}
     * so a requester that only sets AckReq on the last packet is caught.
     */
    private static final int CADENCE_PACKETS = 100;

    private RequesterScenarios()
    {
    }

    /**
     * @return the requester scenarios, in catalogue order.
     */
    public static List<Scenario> all()
    {
        return List.of(lostAck(), lateAck(), nakSequence(), rnrNak(), ghostAck(), duplicateAck(),
            readResponseIntegrity(),
            readResponseTooLong(), impliedNak(), retryExhausted(), readResponseWrongOpcode(), ackReqCadence());
    }

    private static Scenario.Builder requester(final String name)
    {
        return Scenario.builder("requester." + name).side(Side.REQUESTER);
    }

    private static int sq(final ConformContext ctx, final int delta)
    {
        return Psn.add(ctx.qp().sqPsn(), delta);
    }

    /** Time for the DUT to send a request it has been asked to: as long as a response may take. */
    private static long requestNs()
    {
        return ResponderScenarios.RESPONSE_NS;
    }

    /** An RDMA WRITE from the start of the DUT's region to the peer's pretend region. */
    private static DutWork peerWrite(final long wrId, final int length)
    {
        return DutWork.write(wrId, 0, length, ConformContext.PEER_VA, ConformContext.PEER_RKEY);
    }

    /** An RDMA READ of the peer's pretend region into the start of the DUT's region. */
    private static DutWork peerRead(final long wrId, final int length)
    {
        return DutWork.read(wrId, 0, length, ConformContext.PEER_VA, ConformContext.PEER_RKEY);
    }

    private static Step write(final long wrId, final int length)
    {
        return Steps.post("an RDMA WRITE of " + length + " bytes (wr_id " + wrId + ")", ctx -> peerWrite(wrId, length));
    }

    private static Step read(final long wrId, final int length)
    {
        return Steps.post("an RDMA READ of " + length + " bytes (wr_id " + wrId + ")", ctx -> peerRead(wrId, length));
    }

    /**
     * The DUT completes the WQE successfully. A DUT whose tool does not report completions shows it by its next
     * request at PSN + {@code next}: its client loop keeps one request outstanding (-t 1) and posts the next only once
     * the last one completed successfully (perftest stops at a completion with an error).
     */
    private static Step completed(final long wrId, final int next)
    {
        final Step reported = Steps.completion(wrId, WcStatus.SUCCESS);
        return new Step(reported.label(), ctx ->
        {
            if (ctx.dut().showsCompletions())
            {
                reported.action().run(ctx);
                return;
            }
            final FrameFilter nextRequest = FrameFilter.request().and(FrameFilter.psn(sq(ctx, next)));
            CapturedFrame shown = ctx.seen(nextRequest);
            if (null == shown)
            {
                shown = ctx.expect(nextRequest, requestNs());
            }
            ctx.record(Finding.ok("the DUT's tool reports no completions, and posts its next request only once the " +
                "last one completed successfully (-t 1): its " + shown.opcode() + " at PSN 0x" +
                Integer.toHexString(shown.psn()) + " shows wr_id " + wrId + " completed with SUCCESS", shown.index()));
        });
    }

    /**
     * @param ctx the running scenario.
     * @throws ConformSkip when the DUT does not report its completions (a step that reads them is then not checked).
     */
    private static void requireCompletions(final ConformContext ctx)
    {
        if (!ctx.dut().showsCompletions())
        {
            throw new ConformSkip("the DUT's completions: its tool does not report them");
        }
    }

    private static Step ackOf(final String what, final int delta)
    {
        return Steps.send("ACK of " + what, ctx -> Frames.ack(ctx, sq(ctx, delta), ACK, 1));
    }

    static Scenario lostAck()
    {
        return requester("lost-ack-retransmit")
            .rule("9.7.6.1.3", "with no ACK, the requester retransmits from the oldest unacknowledged PSN once the " +
                "local ACK timeout (4.096 us x 2^timeout) has passed, not before", IbaSources.ACK_TIMEOUT)
            .summary("WRITE, its ACK lost on the way, the retransmission timed, then ACKed")
            .steps(Steps.connect(), write(1, 64),
                new Step("expect the WRITE ONLY", ctx -> ctx.mark("original",
                    ctx.expect(FrameFilter.opcode(Opcode.RC_RDMA_WRITE_ONLY), requestNs()))),
                Steps.dropNext(Direction.TO_DUT, FrameFilter.opcode(Opcode.RC_ACKNOWLEDGE), 1),
                ackOf("the WRITE (lost)", 0),
                new Step("expect the retransmission within 4 local ACK timeouts", ctx -> ctx.expect(
                    FrameFilter.opcode(Opcode.RC_RDMA_WRITE_ONLY), 4 * ctx.qp().localAckTimeoutNs())),
                Steps.check("retransmission timing", ctx -> Checkers.retransmissionTiming(ctx.capture(),
                    ctx.marked("original").index(), ctx.qp().localAckTimeoutNs(), ctx.timingToleranceNs())),
                ackOf("the WRITE", 0),
                completed(1, 1))
            .build();
    }

    static Scenario lateAck()
    {
        return requester("late-ack-after-retransmit")
            .rule("9.7.5.1.2", "an ACK that arrives after its request was retransmitted completes the request once; " +
                "the ACK of the retransmission is a harmless duplicate")
            .summary("WRITE, its ACK delayed 2 local ACK timeouts, the retransmission ACKed too")
            .steps(Steps.connect(), write(1, 64),
                Steps.expect(FrameFilter.opcode(Opcode.RC_RDMA_WRITE_ONLY), requestNs()),
                new Step("delay the next ACK by 2 local ACK timeouts", ctx -> ctx.link().addRule(FrameRule.delay(
                    Direction.TO_DUT, FrameFilter.opcode(Opcode.RC_ACKNOWLEDGE), 1,
                    2 * ctx.qp().localAckTimeoutNs()))),
                ackOf("the WRITE (delayed)", 0),
                new Step("expect the retransmission within 2 local ACK timeouts", ctx -> ctx.expect(
                    FrameFilter.opcode(Opcode.RC_RDMA_WRITE_ONLY), 2 * ctx.qp().localAckTimeoutNs())),
                new Step("wait until the delayed ACK has arrived", ctx -> ctx.advance(
                    2 * ctx.qp().localAckTimeoutNs())),
                ackOf("the retransmitted WRITE", 0),
                completed(1, 1),
                Steps.whereObservable("one completion of wr_id 1", Steps.verify("completed once", ctx ->
                {
                    requireCompletions(ctx);
                    Checks.equal("completions of wr_id 1", 1,
                        ctx.completions().stream().filter(c -> 1 == c.wrId()).count());
                })),
                Steps.qpAlive())
            .build();
    }

    static Scenario nakSequence()
    {
        return requester("nak-sequence-go-back-n")
            .rule("9.7.5.1.2", "a NAK PSN sequence error acknowledges every PSN before the one it names; the " +
                "requester goes back to that PSN and resends from there", IbaSources.NAK_ACKS_BEFORE)
            .summary("a 4-packet WRITE whose second packet the link loses, NAKed, resent go-back-N")
            .steps(Steps.connect(),
                new Step("lose the WRITE's second packet", ctx -> ctx.link().addRule(
                    FrameRule.drop(Direction.FROM_DUT, FrameFilter.psn(sq(ctx, 1)), 1))),
                new Step("DUT posts an RDMA WRITE of 4 path MTUs (wr_id 1)", ctx ->
                {
                    ctx.dut().postSend(peerWrite(1, 4 * ctx.qp().pathMtuBytes()));
                    ctx.settle();
                }),
                Steps.expect(FrameFilter.opcode(Opcode.RC_RDMA_WRITE_LAST), requestNs()),
                new Step("peer sends NAK PSN sequence error naming the lost PSN", ctx ->
                {
                    ctx.send(Frames.ack(ctx, sq(ctx, 1), NakCode.PSN_SEQUENCE_ERROR.syndrome(), 0));
                    ctx.markLastSent("nak");
                }),
                new Step("expect the WRITE LAST again", ctx -> ctx.expect(
                    FrameFilter.opcode(Opcode.RC_RDMA_WRITE_LAST), requestNs())),
                Steps.check("go-back-N", ctx -> Checkers.goBackN(ctx.capture(), ctx.marked("nak").index(),
                    sq(ctx, 1))),
                Steps.check("AckReq cadence", ctx -> Checkers.ackReqCadence(ctx.capture(),
                    Checkers.MAX_PACKETS_WITHOUT_ACK_REQ)),
                ackOf("the whole WRITE", 3),
                completed(1, 4))
            .build();
    }

    static Scenario rnrNak()
    {
        return requester("rnr-nak-wait-retry")
            .rule("9.7.5.2.8", "after an RNR NAK the requester waits at least the timer the NAK carries, then " +
                "retries the same PSN", IbaSources.RNR_NAK)
            .summary("SEND, RNR NAK with timer 14 (1.28 ms), the retry timed, then ACKed")
            .steps(Steps.connect(),
                Steps.post("a SEND of 64 bytes (wr_id 1)", ctx -> DutWork.send(1, 0, 64)),
                Steps.expect(FrameFilter.opcode(Opcode.RC_SEND_ONLY), requestNs()),
                new Step("peer sends RNR NAK, timer 14", ctx ->
                {
                    ctx.send(Frames.ack(ctx, sq(ctx, 0), AethHeader.TYPE_RNR_NAK | RNR_CODE, 0));
                    ctx.markLastSent("rnr");
                }),
                Steps.expect(FrameFilter.opcode(Opcode.RC_SEND_ONLY), 10 * AethHeader.rnrTimerNs(RNR_CODE)),
                Steps.check("RNR wait", ctx -> Checkers.rnrWait(ctx.capture(), ctx.marked("rnr").index())),
                ackOf("the SEND", 0),
                completed(1, 1))
            .build();
    }

    static Scenario ghostAck()
    {
        return requester("ghost-ack-ignored")
            .rule("9.7.5.1.2", "an ACK for a PSN the requester never sent acknowledges nothing")
            .summary("WRITE, an ACK for its PSN + 5, then the real ACK")
            .steps(Steps.connect(), write(1, 64),
                Steps.expect(FrameFilter.opcode(Opcode.RC_RDMA_WRITE_ONLY), requestNs()),
                ackOf("PSN + 5, never sent", 5),
                Steps.verify("nothing completed", RequesterScenarios::ghostAcknowledgedNothing),
                ackOf("the WRITE", 0),
                completed(1, 1),
                Steps.qpAlive())
            .build();
    }

    /**
     * Nothing completed on the ghost ACK. A DUT whose tool does not report completions shows it by its next request:
     * the WRITE again at its own PSN once its local ACK timeout has passed (still unacknowledged), not a new WRITE at
     * the next PSN (its client posts one only once the WRITE completed, -t 1).
     */
    private static void ghostAcknowledgedNothing(final ConformContext ctx)
    {
        if (ctx.dut().showsCompletions())
        {
            Checks.that(ctx.completions().isEmpty(), "the ghost ACK completed " + ctx.completions());
            return;
        }
        final CapturedFrame next = ctx.expect(FrameFilter.request(),
            Checkers.LATE_RETRANSMISSION_FACTOR * ctx.qp().localAckTimeoutNs());
        if (sq(ctx, 0) != next.psn())
        {
            throw new ConformFailure("after the ghost ACK the DUT sent " + next.label() + ", not the WRITE again at " +
                "PSN 0x" + Integer.toHexString(sq(ctx, 0)) + ": its client posts its next WRITE only once the first " +
                "completed (-t 1), so the ghost ACK completed it");
        }
        ctx.record(Finding.ok("the DUT's next request after the ghost ACK is the WRITE again at its PSN (resent " +
            "after its local ACK timeout): the ghost ACK acknowledged nothing", next.index()));
    }

    static Scenario duplicateAck()
    {
        return requester("duplicate-ack-harmless")
            .rule("9.7.5.1.2", "a duplicate ACK of an already acknowledged PSN changes nothing")
            .summary("WRITE ACKed twice, then a second WRITE goes through")
            .steps(Steps.connect(), write(1, 64),
                Steps.expect(FrameFilter.opcode(Opcode.RC_RDMA_WRITE_ONLY), requestNs()),
                Steps.duplicateNext(Direction.TO_DUT, FrameFilter.opcode(Opcode.RC_ACKNOWLEDGE), 1),
                ackOf("the WRITE, delivered twice", 0),
                completed(1, 1),
                write(2, 64),
                new Step("expect the second WRITE at the next PSN", ctx -> Checks.equal("second WRITE PSN",
                    sq(ctx, 1), ctx.expect(FrameFilter.opcode(Opcode.RC_RDMA_WRITE_ONLY), requestNs()).psn())),
                ackOf("the second WRITE", 1),
                completed(2, 2),
                Steps.qpAlive())
            .build();
    }

    /** Two path MTUs of a pattern: what the peer's READ responses carry. */
    private static byte[] readData(final ConformContext ctx)
    {
        return Frames.pattern(2 * ctx.qp().pathMtuBytes(), 5);
    }

    static Scenario readResponseIntegrity()
    {
        return requester("read-response-placed")
            .rule("9.7.5.1.1", "a multi-packet READ response is placed whole in the requester's buffer and the " +
                "READ completes on its last packet")
            .summary("READ of 2 path MTUs answered FIRST + LAST; every byte checked")
            .steps(Steps.connect(),
                Steps.post("an RDMA READ of 2 path MTUs (wr_id 1)",
                    ctx -> peerRead(1, readData(ctx).length)),
                new Step("expect the READ request", ctx -> Checks.equal("READ DMA length", readData(ctx).length,
                    ctx.expect(FrameFilter.opcode(Opcode.RC_RDMA_READ_REQUEST), requestNs()).dmaLength())),
                Steps.send("READ RESPONSE FIRST", ctx -> ctx.frame(Opcode.RC_RDMA_READ_RESPONSE_FIRST, sq(ctx, 0),
                    Arrays.copyOfRange(readData(ctx), 0, ctx.qp().pathMtuBytes()), b -> b.aeth().syndrome(ACK).msn(1))),
                Steps.send("READ RESPONSE LAST", ctx -> ctx.frame(Opcode.RC_RDMA_READ_RESPONSE_LAST, sq(ctx, 1),
                    Arrays.copyOfRange(readData(ctx), ctx.qp().pathMtuBytes(), readData(ctx).length),
                    b -> b.aeth().syndrome(ACK).msn(1))),
                Steps.completion(1, WcStatus.SUCCESS),
                Steps.check("payload integrity", ctx -> Checkers.payloadIntegrity(ctx, 0, readData(ctx))))
            .build();
    }

    static Scenario readResponseTooLong()
    {
        return requester("read-response-too-long")
            .rule("9.9.2", "a READ response carrying more data than the READ asked for is a bad response: the READ " +
                "completes in error and the QP goes to the error state")
            .summary("READ of 64 bytes answered with a READ RESPONSE ONLY of 128")
            .steps(Steps.connect(),
                read(1, 64),
                Steps.expect(FrameFilter.opcode(Opcode.RC_RDMA_READ_REQUEST), requestNs()),
                Steps.send("READ RESPONSE ONLY of 128 bytes", ctx -> ctx.frame(Opcode.RC_RDMA_READ_RESPONSE_ONLY,
                    sq(ctx, 0), Frames.pattern(128, 6), b -> b.aeth().syndrome(ACK).msn(1))),
                Steps.whereObservable("the READ's completion status", Steps.completion(1, WcStatus.BAD_RESP_ERR)),
                Steps.qpInError())
            .build();
    }

    static Scenario impliedNak()
    {
        return requester("implied-nak-read")
            .rule("9.7.5.1.2", "a READ response for a PSN after an outstanding READ's is an implied NAK: that READ's " +
                "response was lost, and the requester resends from it (rxe_comp.c check_psn: COMPST_ERROR_RETRY)")
            .summary("two READs outstanding, the second answered first; both READs come again, at once")
            .steps(Steps.connect(),
                read(1, 64),
                read(2, 64),
                new Step("expect the second READ request (the first goes before it)", ctx -> ctx.expect(
                    FrameFilter.opcode(Opcode.RC_RDMA_READ_REQUEST).and(FrameFilter.psn(sq(ctx, 1))), requestNs())),
                new Step("peer answers the second READ only", ctx ->
                {
                    ctx.send(ctx.frame(Opcode.RC_RDMA_READ_RESPONSE_ONLY, sq(ctx, 1), Frames.pattern(64, 9),
                        b -> b.aeth().syndrome(ACK).msn(2)));
                    ctx.markLastSent("response");
                }),
                // At once, not after the local ACK timeout: a retransmission on timeout would hide a DUT that
                // ignores the implied NAK.
                new Step("expect the first READ request again", ctx -> Checks.equal("resent READ PSN",
                    sq(ctx, 0), ctx.expect(FrameFilter.opcode(Opcode.RC_RDMA_READ_REQUEST), requestNs()).psn())),
                Steps.check("go-back-N from the first READ", ctx -> Checkers.goBackN(ctx.capture(),
                    ctx.marked("response").index(), sq(ctx, 0))),
                Steps.send("READ RESPONSE ONLY of the first READ", ctx -> ctx.frame(
                    Opcode.RC_RDMA_READ_RESPONSE_ONLY, sq(ctx, 0), Frames.pattern(64, 8),
                    b -> b.aeth().syndrome(ACK).msn(1))),
                new Step("expect the second READ request again", ctx -> ctx.expect(FrameFilter.opcode(
                    Opcode.RC_RDMA_READ_REQUEST).and(FrameFilter.psn(sq(ctx, 1))), requestNs())),
                Steps.send("READ RESPONSE ONLY of the second READ", ctx -> ctx.frame(
                    Opcode.RC_RDMA_READ_RESPONSE_ONLY, sq(ctx, 1), Frames.pattern(64, 9),
                    b -> b.aeth().syndrome(ACK).msn(2))),
                completed(1, 2),
                completed(2, 3))
            .build();
    }

    static Scenario retryExhausted()
    {
        return requester("retry-exhausted")
            .rule("9.7.6.1.3", "when the retry count is spent and still no ACK comes, the request completes with a " +
                "retry-exceeded error and the QP goes to the error state; no retry beyond the count")
            .summary("WRITE never ACKed: the retransmissions counted against retry_cnt, then RETRY_EXC_ERR")
            .steps(Steps.connect(), write(1, 64),
                new Step("expect the WRITE ONLY", ctx -> ctx.mark("original",
                    ctx.expect(FrameFilter.opcode(Opcode.RC_RDMA_WRITE_ONLY), requestNs()))),
                new Step("expect retry_cnt retransmissions, each within 4 local ACK timeouts", ctx ->
                {
                    for (int i = 1; i <= ctx.qp().retryCount(); i++)
                    {
                        final CapturedFrame retry = ctx.expect(FrameFilter.opcode(Opcode.RC_RDMA_WRITE_ONLY),
                            Checkers.LATE_RETRANSMISSION_FACTOR * ctx.qp().localAckTimeoutNs());
                        Checks.equal("retransmission " + i + " PSN", sq(ctx, 0), retry.psn());
                    }
                }),
                Steps.check("retransmission timing", ctx -> Checkers.retransmissionTiming(ctx.capture(),
                    ctx.marked("original").index(), ctx.qp().localAckTimeoutNs(), ctx.timingToleranceNs())),
                new Step("expect no retransmission beyond retry_cnt for 4 local ACK timeouts", ctx -> ctx.expectNone(
                    FrameFilter.request(), Checkers.LATE_RETRANSMISSION_FACTOR * ctx.qp().localAckTimeoutNs())),
                Steps.whereObservable("the WRITE's completion status",
                    Steps.completion(1, WcStatus.RETRY_EXC_ERR)),
                Steps.qpInError())
            .build();
    }

    static Scenario readResponseWrongOpcode()
    {
        return requester("read-response-wrong-opcode")
            .rule("9.9.2", "a response whose opcode does not fit the outstanding request (an ATOMIC ACKNOWLEDGE for " +
                "a READ) is a bad response: the request completes in error and the QP goes to the error state")
            .summary("READ of 64 bytes answered with an ATOMIC ACKNOWLEDGE at its PSN")
            .steps(Steps.connect(),
                read(1, 64),
                Steps.expect(FrameFilter.opcode(Opcode.RC_RDMA_READ_REQUEST), requestNs()),
                Steps.send("ATOMIC ACKNOWLEDGE at the READ's PSN", ctx -> ctx.frame(Opcode.RC_ATOMIC_ACKNOWLEDGE,
                    sq(ctx, 0), new byte[0], b ->
                    {
                        b.aeth().syndrome(ACK).msn(1);
                        b.atomicAckEth().originalData(0x1122_3344_5566_7788L);
                    })),
                Steps.whereObservable("the READ's completion status", Steps.verify("the READ completes in error", ctx ->
                {
                    requireCompletions(ctx);
                    final List<DutCompletion> completions = ctx.completions();
                    Checks.that(!completions.isEmpty(), "the DUT reported no completion for the READ");
                    Checks.that(1 == completions.get(0).wrId() && WcStatus.SUCCESS != completions.get(0).status(),
                        "the READ completed " + completions.get(0) + " on a response of the wrong opcode");
                    ctx.note("the READ completed with " + completions.get(0).status() + " (roce4j: BAD_RESP_ERR)");
                })),
                Steps.qpInError())
            .build();
    }

    static Scenario ackReqCadence()
    {
        return requester("ackreq-cadence")
            .rule("9.7.5.1.2", "the requester sets AckReq on the last packet of every message and often enough " +
                "inside a long one that a responder ACKing only on AckReq keeps its window moving")
            .summary("a WRITE of 100 path MTUs, each AckReq packet ACKed at once")
            .steps(Steps.connect(),
                new Step("DUT posts an RDMA WRITE of 100 path MTUs (wr_id 1)", ctx ->
                {
                    ctx.dut().postSend(peerWrite(1, CADENCE_PACKETS * ctx.qp().pathMtuBytes()));
                    ctx.settle();
                }),
                new Step("expect every packet up to WRITE LAST, ACKing each one with AckReq", ctx ->
                {
                    for (int i = 0; i < CADENCE_PACKETS; i++)
                    {
                        final CapturedFrame packet = ctx.expect(FrameFilter.request(), requestNs());
                        Checks.equal("packet " + i + " PSN", sq(ctx, i), packet.psn());
                        if (packet.ackReq())
                        {
                            ctx.send(Frames.ack(ctx, packet.psn(), ACK, 0));
                        }
                    }
                }),
                Steps.check("AckReq cadence", ctx -> Checkers.ackReqCadence(ctx.capture(),
                    Checkers.MAX_PACKETS_WITHOUT_ACK_REQ)),
                completed(1, CADENCE_PACKETS))
            .build();
    }
}
