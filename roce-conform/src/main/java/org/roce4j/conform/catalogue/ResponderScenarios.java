package org.roce4j.conform.catalogue;

import java.util.Arrays;
import java.util.List;

import org.roce4j.conform.Checkers;
import org.roce4j.conform.Checks;
import org.roce4j.conform.ConformContext;
import org.roce4j.conform.ConformFailure;
import org.roce4j.conform.CapturedFrame;
import org.roce4j.conform.ConformSkip;
import org.roce4j.conform.Direction;
import org.roce4j.conform.FrameFilter;
import org.roce4j.conform.Frames;
import org.roce4j.conform.Scenario;
import org.roce4j.conform.Side;
import org.roce4j.conform.Step;
import org.roce4j.conform.Steps;
import org.roce4j.ib.WcStatus;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.Psn;
import org.roce4j.wire.header.AethHeader.NakCode;

import static org.roce4j.conform.ConformContext.PEER_PSN;

/**
 * Scenarios with the DUT as responder: the conform peer crafts requests, some of them wrong on purpose, and judges
 * the DUT's ACKs, NAKs, responses and silences.
 */
public final class ResponderScenarios
{
    /** How long a response may take: 1 ms, far beyond any responder's turnaround and far below any timer. */
    static final long RESPONSE_NS = 1_000_000L;
    /** How long silence is watched for: 1 ms. */
    static final long SILENCE_NS = 1_000_000L;
    /** What the catalogue's WRITEs carry. */
    static final byte[] DATA = Frames.pattern(64, 1);
    /** The mark of the first atomic's answer, whose original value the later ones are judged against. */
    private static final String FIRST_ATOMIC_ACK = "first ATOMIC ACKNOWLEDGE";
    /** What a step that sends with {@link ConformContext#sendPastRnr} adds to its label. */
    private static final String PAST_RNR = " (again after an RNR NAK's timer, as a requester does)";
    /** How many times the SEND of send-without-receive-rnr goes out while nothing answers it. */
    private static final int RNR_ATTEMPTS = 3;

    private ResponderScenarios()
    {
    }

    /**
     * @return the responder scenarios, in catalogue order.
     */
    public static List<Scenario> all()
    {
        return List.of(psnSequenceError(), duplicateWrite(), duplicateSend(),
            ResponderReadScenarios.duplicateRead(), ResponderReadScenarios.duplicateReadShorter(), duplicateAtomic(),
            invalidRkey(), outsideMr(), mrWithoutRemoteRight(),
            zeroLengthWriteBadRkey(), middleWithoutFirst(), firstAfterFirst(), firstNotPathMtu(), lastLongerThanMtu(),
            sendLongerThanReceive(), sendWithoutReceive(), unalignedAtomic(), badIcrc(), wrongPkey(), tverNotZero(),
            wrongDestinationIp(), udWrongQkey(), ResponderReadScenarios.readsBeyondResponderResources(),
            ackReqAnswered());
    }

    static Scenario.Builder responder(final String name)
    {
        return Scenario.builder("responder." + name).side(Side.RESPONDER);
    }

    static int psn(final int delta)
    {
        return Psn.add(PEER_PSN, delta);
    }

    /** The DUT ACKs a good WRITE at {@code psn}: normal service after whatever came before. */
    static Step[] normalService(final int psn)
    {
        return new Step[] {
            Steps.send("a good WRITE ONLY at PSN 0x" + Integer.toHexString(psn),
                ctx -> Frames.writeOnly(ctx, psn, DATA)),
            Steps.expect(FrameFilter.ack(), RESPONSE_NS, ack -> Checks.equal("ACK PSN", psn, ack.psn())),
            Steps.whereObservable("payload", Steps.check("payload integrity",
                ctx -> Checkers.payloadIntegrity(ctx, 0, DATA)))};
    }

    private static Step expectNak(final NakCode code, final int psn)
    {
        return Steps.expect(FrameFilter.nak(code), RESPONSE_NS, nak -> Checks.equal("NAK PSN", psn, nak.psn()));
    }

    static Scenario psnSequenceError()
    {
        return responder("psn-sequence-error")
            .rule("9.9.3.1.2", "a request ahead of the expected PSN gets one NAK PSN sequence error naming the " +
                "expected PSN, later ones until the gap closes are dropped")
            .summary("WRITE at expected+1, then expected+2, then the expected PSN")
            .steps(Steps.connect(),
                Steps.send("WRITE ONLY at expected PSN + 1", ctx -> Frames.writeOnly(ctx, psn(1), DATA)),
                expectNak(NakCode.PSN_SEQUENCE_ERROR, PEER_PSN),
                Steps.send("WRITE ONLY at expected PSN + 2", ctx -> Frames.writeOnly(ctx, psn(2), DATA)),
                Steps.expectNone(FrameFilter.anyAeth(), SILENCE_NS))
            .steps(normalService(PEER_PSN))
            .steps(Steps.check("MSN monotonic", ctx -> Checkers.msnMonotonic(ctx.capture())))
            .build();
    }

    static Scenario duplicateWrite()
    {
        final byte[] local = Frames.pattern(DATA.length, 9);
        return responder("duplicate-write")
            .rule("C9-105", "a duplicate WRITE is acknowledged again and not executed again", IbaSources.C9_105)
            .summary("WRITE, the DUT's memory changed locally, the same WRITE again")
            .steps(Steps.connect())
            .steps(normalService(PEER_PSN))
            .steps(Steps.whereObservable("the DUT's memory changed locally", Steps.verify("the DUT's memory can be " +
                    "changed locally", ctx -> ctx.dut().writeMemory(0, local))),
                Steps.send("the same WRITE ONLY again", ctx -> Frames.writeOnly(ctx, PEER_PSN, DATA)),
                Steps.expect(FrameFilter.ack(), RESPONSE_NS, ack -> Checks.equal("ACK PSN", PEER_PSN, ack.psn())),
                Steps.whereObservable("the duplicate not executed again", Steps.verify("the duplicate was not " +
                    "written", ctx -> Checks.that(Arrays.equals(local, ctx.dut().readMemory(0, local.length)),
                    "the duplicate WRITE was executed again"))))
            .build();
    }

    static Scenario duplicateSend()
    {
        return responder("duplicate-send")
            .rule("C9-105", "a duplicate SEND is acknowledged again and does not consume a second receive",
                IbaSources.C9_105)
            .summary("two receives posted, one SEND, ACKed, then the same SEND again")
            .steps(Steps.connect(), Steps.postRecv(1, 0, 256), Steps.postRecv(2, 256, 256),
                new Step("peer sends SEND ONLY, AckReq, and expects its ACK" + PAST_RNR, ctx -> Checks.equal(
                    "ACK PSN", PEER_PSN, ctx.sendPastRnr(Frames.send(ctx, Opcode.RC_SEND_ONLY, PEER_PSN, DATA, true),
                    FrameFilter.ack(), RESPONSE_NS).psn())),
                Steps.send("the same SEND ONLY again", ctx -> Frames.send(ctx, Opcode.RC_SEND_ONLY, PEER_PSN, DATA,
                    true)),
                Steps.expect(FrameFilter.ack(), RESPONSE_NS, ack -> Checks.equal("re-ACK PSN", PEER_PSN, ack.psn())),
                Steps.whereObservable("the receive's completion", Steps.completion(1, WcStatus.SUCCESS)),
                Steps.whereObservable("one receive consumed", Steps.verify("one receive consumed", ctx ->
                {
                    if (!ctx.dut().showsCompletions())
                    {
                        throw new ConformSkip("the DUT's completions: its tool does not report them");
                    }
                    Checks.that(ctx.completions().stream().filter(c -> 2 == c.wrId()).findAny().isEmpty(),
                        "the duplicate SEND consumed a second receive");
                })))
            .build();
    }

    static Scenario duplicateAtomic()
    {
        return responder("duplicate-atomic")
            .rule("9.4.5", "a duplicate atomic is answered from the saved original value and not executed again",
                IbaSources.ATOMIC)
            .summary("FETCH_ADD 5, the same FETCH_ADD again, then FETCH_ADD 0 to read the value")
            .steps(Steps.connect(),
                Steps.send("FETCH_ADD +5", ctx -> Frames.atomic(ctx, Opcode.RC_FETCH_ADD, PEER_PSN, ctx.qp().va(),
                    ctx.qp().rkey(), 5, 0)),
                // The target's first value is whatever the DUT holds there (a remote DUT's tool chooses it): the
                // later answers are judged against the one this ACK reports.
                new Step("expect ATOMIC ACKNOWLEDGE with the original value", ctx -> ctx.mark(FIRST_ATOMIC_ACK,
                    ctx.expect(FrameFilter.opcode(Opcode.RC_ATOMIC_ACKNOWLEDGE), RESPONSE_NS))),
                Steps.send("the same FETCH_ADD again", ctx -> Frames.atomic(ctx, Opcode.RC_FETCH_ADD, PEER_PSN,
                    ctx.qp().va(), ctx.qp().rkey(), 5, 0)),
                new Step("expect the ATOMIC ACKNOWLEDGE replayed", ctx ->
                {
                    final CapturedFrame ack = ctx.expect(FrameFilter.opcode(Opcode.RC_ATOMIC_ACKNOWLEDGE),
                        RESPONSE_NS);
                    Checks.equal("replayed ATOMIC ACKNOWLEDGE PSN", PEER_PSN, ack.psn());
                    Checks.equal("replayed original data", ctx.marked(FIRST_ATOMIC_ACK).originalData(),
                        ack.originalData());
                }),
                Steps.send("FETCH_ADD 0", ctx -> Frames.atomic(ctx, Opcode.RC_FETCH_ADD, psn(1), ctx.qp().va(),
                    ctx.qp().rkey(), 0, 0)),
                new Step("expect the value after one FETCH_ADD +5", ctx -> Checks.equal(
                    "value after one FETCH_ADD +5 (executed once)", ctx.marked(FIRST_ATOMIC_ACK).originalData() + 5,
                    ctx.expect(FrameFilter.opcode(Opcode.RC_ATOMIC_ACKNOWLEDGE), RESPONSE_NS).originalData())))
            .build();
    }

    static Scenario invalidRkey()
    {
        return responder("invalid-rkey")
            .rule("9.7.4.1.5 / 9.7.5.2.4", "a WRITE with an R_Key that names no region gets NAK remote access error",
                IbaSources.R_KEY)
            .summary("WRITE ONLY with a wrong R_Key")
            .steps(Steps.connect(),
                Steps.send("WRITE ONLY, R_Key flipped", ctx -> Frames.write(ctx, Opcode.RC_RDMA_WRITE_ONLY,
                    PEER_PSN, DATA, ctx.qp().va(), ctx.qp().rkey() ^ 0x5A00, DATA.length, true)),
                expectNak(NakCode.REMOTE_ACCESS_ERROR, PEER_PSN))
            .build();
    }

    static Scenario outsideMr()
    {
        return responder("va-outside-mr")
            .rule("9.7.4.1.5 / 9.7.5.2.4", "a WRITE whose VA + length runs past the end of the region gets NAK " +
                "remote access error", IbaSources.R_KEY)
            .summary("WRITE ONLY of 64 bytes starting 16 bytes before the region's end")
            .steps(Steps.connect(),
                Steps.send("WRITE ONLY past the region's end", ctx -> Frames.write(ctx, Opcode.RC_RDMA_WRITE_ONLY,
                    PEER_PSN, DATA, ctx.qp().va() + ctx.qp().length() - 16, ctx.qp().rkey(), DATA.length, true)),
                expectNak(NakCode.REMOTE_ACCESS_ERROR, PEER_PSN))
            .build();
    }

    static Scenario mrWithoutRemoteRight()
    {
        return responder("mr-without-remote-write")
            .rule("9.7.4.1.5 / 9.7.5.2.4", "a WRITE into a region registered without remote write gets NAK remote " +
                "access error", IbaSources.R_KEY)
            .summary("WRITE ONLY into a region with local access only")
            .steps(Steps.connect(),
                Steps.send("WRITE ONLY into the local-only region", ctx ->
                {
                    if (0 == ctx.qp().restrictedLength())
                    {
                        throw new ConformSkip("the DUT exposes no region without remote access");
                    }
                    return Frames.write(ctx, Opcode.RC_RDMA_WRITE_ONLY, PEER_PSN, DATA, ctx.qp().restrictedVa(),
                        ctx.qp().restrictedRkey(), DATA.length, true);
                }),
                expectNak(NakCode.REMOTE_ACCESS_ERROR, PEER_PSN))
            .build();
    }

    static Scenario zeroLengthWriteBadRkey()
    {
        return responder("zero-length-write-bad-rkey")
            .rule("9.7.4.1.5 / C9-88", "a zero-length WRITE needs no valid R_Key or address: it is acknowledged",
                IbaSources.C9_88)
            .summary("WRITE ONLY of 0 bytes with R_Key 0xDEAD and VA 0")
            .steps(Steps.connect(),
                Steps.send("zero-length WRITE ONLY, bogus R_Key", ctx -> Frames.write(ctx, Opcode.RC_RDMA_WRITE_ONLY,
                    PEER_PSN, new byte[0], 0, 0xDEAD, 0, true)),
                Steps.expect(FrameFilter.ack(), RESPONSE_NS, ack -> Checks.equal("ACK PSN", PEER_PSN, ack.psn())),
                Steps.qpAlive())
            .build();
    }

    static Scenario middleWithoutFirst()
    {
        return responder("middle-without-first")
            .rule("9.9.3.1.3", "a MIDDLE packet with no message begun is an opcode sequence error: NAK invalid " +
                "request", IbaSources.CLASS_C)
            .summary("WRITE MIDDLE of one path MTU as the first packet")
            .steps(Steps.connect(),
                Steps.send("WRITE MIDDLE", ctx -> Frames.write(ctx, Opcode.RC_RDMA_WRITE_MIDDLE, PEER_PSN,
                    Frames.pattern(ctx.qp().pathMtuBytes(), 2), 0, 0, 0, true)),
                expectNak(NakCode.INVALID_REQUEST, PEER_PSN))
            .build();
    }

    static Scenario firstAfterFirst()
    {
        return responder("first-after-first")
            .rule("9.9.3.1.3", "a FIRST packet while a message is still open is an opcode sequence error: NAK " +
                "invalid request", IbaSources.CLASS_C)
            .summary("WRITE FIRST, then another WRITE FIRST")
            .steps(Steps.connect(),
                Steps.send("WRITE FIRST of a 2-MTU message", ctx -> firstOfTwo(ctx, PEER_PSN)),
                Steps.send("another WRITE FIRST", ctx -> firstOfTwo(ctx, psn(1))),
                expectNak(NakCode.INVALID_REQUEST, psn(1)))
            .build();
    }

    private static byte[] firstOfTwo(final ConformContext ctx, final int psn)
    {
        final int mtu = ctx.qp().pathMtuBytes();
        return Frames.write(ctx, Opcode.RC_RDMA_WRITE_FIRST, psn, Frames.pattern(mtu, 3), ctx.qp().va(),
            ctx.qp().rkey(), 2L * mtu, false);
    }

    static Scenario firstNotPathMtu()
    {
        return responder("first-not-path-mtu")
            .rule("9.7.5.1.1 / C9-94", "a FIRST or MIDDLE packet must carry exactly the path MTU: a shorter one " +
                "gets NAK invalid request")
            .summary("WRITE FIRST carrying 100 bytes of a 2-MTU message")
            .steps(Steps.connect(),
                Steps.send("short WRITE FIRST", ctx -> Frames.write(ctx, Opcode.RC_RDMA_WRITE_FIRST, PEER_PSN,
                    Frames.pattern(100, 4), ctx.qp().va(), ctx.qp().rkey(), 2L * ctx.qp().pathMtuBytes(), true)),
                expectNak(NakCode.INVALID_REQUEST, PEER_PSN))
            .build();
    }

    static Scenario lastLongerThanMtu()
    {
        return responder("last-longer-than-mtu")
            .rule("9.7.5.1.1 / C9-94", "a LAST packet carries 1 to path MTU bytes: a longer one gets NAK invalid " +
                "request")
            .summary("WRITE FIRST of one path MTU (RETH length 2 x MTU + 4), then a LAST of path MTU + 4 bytes")
            .steps(Steps.connect(),
                Steps.send("WRITE FIRST, RETH length 2 x MTU + 4", ctx -> Frames.write(ctx,
                    Opcode.RC_RDMA_WRITE_FIRST, PEER_PSN, Frames.pattern(ctx.qp().pathMtuBytes(), 3), ctx.qp().va(),
                    ctx.qp().rkey(), 2L * ctx.qp().pathMtuBytes() + 4, false)),
                Steps.send("WRITE LAST of path MTU + 4 bytes", ctx -> Frames.write(ctx, Opcode.RC_RDMA_WRITE_LAST,
                    psn(1), Frames.pattern(ctx.qp().pathMtuBytes() + 4, 5), 0, 0, 0, true)),
                expectNak(NakCode.INVALID_REQUEST, psn(1)))
            .build();
    }

    static Scenario sendLongerThanReceive()
    {
        return responder("send-longer-than-receive")
            .rule("9.9.3.1.3", "a SEND longer than the posted receive buffer gets NAK invalid request; the receive " +
                "completes with a local length error", IbaSources.CLASS_C)
            .summary("a receive of 32 bytes posted (or the DUT's tool's own), a SEND 32 bytes longer")
            .steps(Steps.connect(), Steps.postRecv(1, 0, 32),
                new Step("peer sends SEND ONLY 32 bytes longer than the receive, expects NAK invalid request" +
                    PAST_RNR, ctx -> Checks.equal("NAK PSN", PEER_PSN, ctx.sendPastRnr(Frames.send(ctx,
                    Opcode.RC_SEND_ONLY, PEER_PSN, Frames.pattern(receiveBytes(ctx, 32) + 32, 7), true),
                    FrameFilter.nak(NakCode.INVALID_REQUEST), RESPONSE_NS).psn())),
                Steps.whereObservable("the receive's completion", Steps.completion(1, WcStatus.LOC_LEN_ERR)))
            .build();
    }

    /**
     * @param ctx    the scenario.
     * @param posted the length the scenario posts its receive with.
     * @return the length of the receive the DUT has: the one posted, or its tool's own (ib_send_bw's -s).
     */
    private static int receiveBytes(final ConformContext ctx, final int posted)
    {
        final int own = ctx.dut().ownReceiveBytes();
        return 0 == own ? posted : own;
    }

    static Scenario sendWithoutReceive()
    {
        return responder("send-without-receive-rnr")
            .rule("9.7.5.2.8", "a SEND with no receive posted gets an RNR NAK carrying the QP's min_rnr_timer; " +
                "once a receive is posted the retried SEND is accepted", IbaSources.RNR_NAK)
            .summary("SEND with no receive, then a receive, then the SEND again")
            .steps(Steps.connect(),
                new Step("peer sends SEND ONLY (again while nothing answers: a remote DUT's QP reaches RTS in its " +
                    "own time, and drops what comes before) and expects RNR NAK with the QP's timer", ctx ->
                {
                    CapturedFrame nak = null;
                    for (int attempt = 1; null == nak; attempt++)
                    {
                        ctx.send(Frames.send(ctx, Opcode.RC_SEND_ONLY, PEER_PSN, DATA, true));
                        try
                        {
                            nak = ctx.expect(FrameFilter.anyAeth(), RESPONSE_NS);
                        }
                        catch (final ConformFailure silence)
                        {
                            if (RNR_ATTEMPTS == attempt)
                            {
                                throw silence;
                            }
                        }
                    }
                    Checks.that(nak.isRnrNak(), "the SEND with no receive posted was answered with " + nak.label() +
                        ", the rule wants an RNR NAK");
                    Checks.equal("RNR NAK PSN", PEER_PSN, nak.psn());
                    Checks.equal("RNR NAK timer code", ctx.qp().minRnrTimer(), nak.syndrome() & 0x1F);
                }),
                Steps.postRecv(1, 0, 256),
                new Step("peer sends the same SEND ONLY again and expects its ACK" + PAST_RNR, ctx -> Checks.equal(
                    "ACK PSN", PEER_PSN, ctx.sendPastRnr(Frames.send(ctx, Opcode.RC_SEND_ONLY, PEER_PSN, DATA, true),
                    FrameFilter.ack(), RESPONSE_NS).psn())),
                Steps.whereObservable("the receive's completion", Steps.completion(1, WcStatus.SUCCESS)))
            .build();
    }

    static Scenario unalignedAtomic()
    {
        return responder("unaligned-atomic")
            .rule("9.4.5", "an atomic whose VA is not 8-byte aligned gets NAK invalid request", IbaSources.ATOMIC)
            .summary("FETCH_ADD at VA + 4")
            .steps(Steps.connect(),
                Steps.send("FETCH_ADD at VA + 4", ctx -> Frames.atomic(ctx, Opcode.RC_FETCH_ADD, PEER_PSN,
                    ctx.qp().va() + 4, ctx.qp().rkey(), 1, 0)),
                expectNak(NakCode.INVALID_REQUEST, PEER_PSN))
            .build();
    }

    static Scenario badIcrc()
    {
        return responder("bad-icrc-dropped")
            .rule("7.8.1 / A17.3.4", "a packet with a bad ICRC is dropped silently; service goes on as if it never " +
                "came", IbaSources.ANNEX_A17 + "CA17-22 has the ICRC checked as in Vol. 1 7.8.1, A17.3.4 CA17-24 " +
                "drops silently a packet that fails it")
            .summary("a WRITE whose ICRC the link corrupts, then the same WRITE intact")
            .steps(Steps.connect(),
                Steps.mutateNext(Direction.TO_DUT, FrameFilter.opcode(Opcode.RC_RDMA_WRITE_ONLY), 1,
                    "ICRC bit flipped", Frames::corruptIcrc),
                Steps.send("WRITE ONLY (corrupted on the way)", ctx -> Frames.writeOnly(ctx, PEER_PSN, DATA)),
                Steps.expectNone(FrameFilter.any(), SILENCE_NS))
            .steps(normalService(PEER_PSN))
            .build();
    }

    static Scenario wrongPkey()
    {
        return responder("wrong-pkey-dropped")
            .rule("9.6", "a packet whose P_Key does not match the QP's partition is dropped silently")
            .summary("a WRITE with P_Key 0x1234, then a good one")
            .steps(Steps.connect(),
                Steps.send("WRITE ONLY with P_Key 0x1234", ctx -> ctx.frame(Opcode.RC_RDMA_WRITE_ONLY, PEER_PSN, DATA,
                    b ->
                    {
                        b.bthHeader().ackReq(true).pkey(0x1234);
                        b.reth().va(ctx.qp().va()).rkey(ctx.qp().rkey()).dmaLength(DATA.length);
                    })),
                Steps.expectNone(FrameFilter.any(), SILENCE_NS))
            .steps(normalService(PEER_PSN))
            .build();
    }

    static Scenario tverNotZero()
    {
        return responder("tver-not-zero-dropped")
            .rule("9.6", "a packet whose BTH TVer is not 0 is dropped silently")
            .summary("a WRITE with TVer 1, then a good one")
            .steps(Steps.connect(),
                Steps.send("WRITE ONLY with TVer 1", ctx -> ctx.frame(Opcode.RC_RDMA_WRITE_ONLY, PEER_PSN, DATA, b ->
                {
                    b.bthHeader().ackReq(true).transportVersion(1);
                    b.reth().va(ctx.qp().va()).rkey(ctx.qp().rkey()).dmaLength(DATA.length);
                })),
                Steps.expectNone(FrameFilter.any(), SILENCE_NS))
            .steps(normalService(PEER_PSN))
            .build();
    }

    static Scenario wrongDestinationIp()
    {
        return responder("wrong-destination-ip-dropped")
            .rule("9.6.1.2.3 / A17.4.4.2", "a RoCEv2 packet whose destination IP is not one of the port's GIDs is " +
                "dropped silently", IbaSources.ANNEX_A17 + "A17.4.4.2 applies the L3 address (DGID) checks of Vol. 1 " +
                "9.6.1.2.3 to RoCEv2, the destination IP being the DGID")
            .summary("a WRITE to the DUT's MAC but IP 10.0.0.99, then a good one")
            .steps(Steps.connect(),
                Steps.send("WRITE ONLY to 10.0.0.99", ctx ->
                {
                    if (0 == ctx.qp().address().mac())
                    {
                        // The link would address the frame by its IP, so it would never reach the DUT: no test.
                        throw new ConformSkip("the DUT's MAC is not known on this link, so a frame to another IP " +
                            "cannot be sent to it");
                    }
                    return ctx.frameTo(0x0A00_0063, ctx.qp().qpn(), Opcode.RC_RDMA_WRITE_ONLY, PEER_PSN, DATA, b ->
                    {
                        b.bthHeader().ackReq(true);
                        b.reth().va(ctx.qp().va()).rkey(ctx.qp().rkey()).dmaLength(DATA.length);
                    });
                }),
                Steps.expectNone(FrameFilter.any(), SILENCE_NS))
            .steps(normalService(PEER_PSN))
            .build();
    }

    static Scenario udWrongQkey()
    {
        return responder("ud-wrong-qkey-dropped")
            .rule("10.2.5", "a UD packet whose Q_Key differs from the QP's is dropped silently")
            .summary("UD SEND with Q_Key flipped, then one with the right Q_Key")
            .steps(Steps.connectUd(), Steps.postRecv(1, 0, 1024),
                Steps.send("UD SEND with the wrong Q_Key", ctx -> Frames.udSend(ctx, ctx.qp().qkey() ^ 1, DATA)),
                Steps.advance(SILENCE_NS),
                Steps.verify("the wrong Q_Key's SEND took no receive", ResponderScenarios::noReceiveTaken),
                Steps.send("UD SEND with the right Q_Key", ctx -> Frames.udSend(ctx, ctx.qp().qkey(), DATA)),
                Steps.verify("the right Q_Key's SEND received", ResponderScenarios::lastSendReceived))
            .build();
    }

    /**
     * No receive completed after the UD SEND with the wrong Q_Key. A DUT whose completions are not seen but whose tool
     * ends its run after N receives where the peer sees it (ib_send_bw -c UD -n N) shows it so: after the wrong SEND
     * and N - 1 good ones its run has not ended.
     */
    private static void noReceiveTaken(final ConformContext ctx)
    {
        if (ctx.dut().showsCompletions())
        {
            Checks.that(ctx.completions().isEmpty(), "a UD SEND with the wrong Q_Key was received: " +
                ctx.completions());
            return;
        }
        final int perRun = ctx.dut().receivesPerRun();
        if (0 == perRun)
        {
            throw new ConformSkip("whether the DUT received a UD SEND: its tool shows neither its completions nor " +
                "the end of a run");
        }
        for (int i = 1; i < perRun; i++)
        {
            ctx.send(Frames.udSend(ctx, ctx.qp().qkey(), DATA));
        }
        Checks.that(!ctx.dut().runEnded(SILENCE_NS), "the DUT's tool ended its run of " + perRun + " receives " +
            "after the wrong Q_Key's SEND and " + (perRun - 1) + " good ones: the wrong one was received");
        ctx.note("after the wrong Q_Key's SEND and " + (perRun - 1) + " good UD SENDs the DUT's tool, whose run " +
            "ends after " + perRun + " receives, had not ended it: the wrong one took no receive");
    }

    /** The UD SEND with the right Q_Key was received: its completion, or the tool's run ending at it. */
    private static void lastSendReceived(final ConformContext ctx)
    {
        if (ctx.dut().showsCompletions())
        {
            Checks.that(ctx.completions().stream().anyMatch(c -> 1 == c.wrId() && WcStatus.SUCCESS == c.status()),
                "the UD SEND with the right Q_Key completed no receive: " + ctx.completions());
            return;
        }
        Checks.that(ctx.dut().runEnded(RESPONSE_NS), "the DUT's tool did not end its run of " +
            ctx.dut().receivesPerRun() + " receives at the last good UD SEND: a good SEND was not received");
        ctx.note("the DUT's tool ended its run at the " + ctx.dut().receivesPerRun() + "th good UD SEND: every " +
            "good one was received");
    }

    static Scenario ackReqAnswered()
    {
        return responder("ackreq-answered")
            .rule("9.7.5.1.2", "every request packet with AckReq set is answered by an ACK covering its PSN; one ACK " +
                "may cover several packets, and ACKs never go backwards", IbaSources.COALESCED)
            .summary("a 4-packet WRITE with AckReq on its second and last packets, then a WRITE ONLY after it, in " +
                "one burst")
            .steps(Steps.connect(),
                Steps.sendBurst("WRITE FIRST, MIDDLE (AckReq), MIDDLE, LAST (AckReq), WRITE ONLY (AckReq)", ctx ->
                {
                    final int mtu = ctx.qp().pathMtuBytes();
                    final long length = 4L * mtu;
                    final byte[] all = Frames.pattern((int)length, 6);
                    return List.of(
                        Frames.write(ctx, Opcode.RC_RDMA_WRITE_FIRST, psn(0), Arrays.copyOfRange(all, 0, mtu),
                            ctx.qp().va(), ctx.qp().rkey(), length, false),
                        Frames.write(ctx, Opcode.RC_RDMA_WRITE_MIDDLE, psn(1), Arrays.copyOfRange(all, mtu, 2 * mtu),
                            0, 0, 0, true),
                        Frames.write(ctx, Opcode.RC_RDMA_WRITE_MIDDLE, psn(2),
                            Arrays.copyOfRange(all, 2 * mtu, 3 * mtu), 0, 0, 0, false),
                        Frames.write(ctx, Opcode.RC_RDMA_WRITE_LAST, psn(3), Arrays.copyOfRange(all, 3 * mtu, 4 * mtu),
                            0, 0, 0, true),
                        Frames.write(ctx, Opcode.RC_RDMA_WRITE_ONLY, psn(4), DATA, ctx.qp().va() + length,
                            ctx.qp().rkey(), DATA.length, true));
                }),
                Steps.expect(FrameFilter.ack().and(FrameFilter.psn(psn(4))), RESPONSE_NS),
                Steps.whereObservable("payload", Steps.check("payload integrity", ctx -> Checkers.payloadIntegrity(
                    ctx, 0, Frames.pattern(4 * ctx.qp().pathMtuBytes(), 6)))),
                Steps.check("AckReq answered", ctx -> Checkers.ackReqAnswered(ctx.capture())),
                Steps.check("MSN monotonic", ctx -> Checkers.msnMonotonic(ctx.capture())))
            .build();
    }
}
