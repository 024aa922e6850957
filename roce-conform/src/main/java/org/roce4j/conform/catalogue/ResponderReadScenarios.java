package org.roce4j.conform.catalogue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

import org.roce4j.conform.CapturedFrame;
import org.roce4j.conform.Checkers;
import org.roce4j.conform.Checks;
import org.roce4j.conform.ConformContext;
import org.roce4j.conform.FrameFilter;
import org.roce4j.conform.Frames;
import org.roce4j.conform.Scenario;
import org.roce4j.conform.Step;
import org.roce4j.conform.Steps;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.header.AethHeader;
import org.roce4j.wire.header.AethHeader.NakCode;

import static org.roce4j.conform.ConformContext.PEER_PSN;
import static org.roce4j.conform.catalogue.ResponderScenarios.DATA;
import static org.roce4j.conform.catalogue.ResponderScenarios.RESPONSE_NS;
import static org.roce4j.conform.catalogue.ResponderScenarios.psn;
import static org.roce4j.conform.catalogue.ResponderScenarios.responder;

/**
 * The responder scenarios that READ the DUT's region. The data they judge the READ responses against is a pattern the
 * peer WRITEs first at PSN 0x100; a region without remote write (ib_read_bw's server registers its region with remote
 * read only, perftest create_single_mr) is READ once at that PSN instead, and the later READs must return what that
 * first READ did.
 */
final class ResponderReadScenarios
{
    /** The mark of the first READ's response, the data of a region without remote write. */
    private static final String REFERENCE = "the first READ's response";

    private ResponderReadScenarios()
    {
    }

    static Scenario duplicateRead()
    {
        return responder("duplicate-read")
            .rule("9.4.4", "a duplicate READ is answered again with the same data from its own PSN",
                IbaSources.READ_RETRY)
            .summary("WRITE a pattern (or READ a region without remote write), READ it, the same READ again")
            .steps(Steps.connect(), remoteRead(), reference(),
                Steps.send("READ of 64 bytes", ctx -> Frames.read(ctx, psn(1), ctx.qp().va(), ctx.qp().rkey(),
                    DATA.length)),
                readResponseOf(ResponderReadScenarios::data, psn(1)),
                Steps.send("the same READ again", ctx -> Frames.read(ctx, psn(1), ctx.qp().va(), ctx.qp().rkey(),
                    DATA.length)),
                readResponseOf(ResponderReadScenarios::data, psn(1)))
            .build();
    }

    static Scenario duplicateReadShorter()
    {
        return responder("duplicate-read-shorter")
            .rule("9.4.4", "a duplicate READ for a subset of the original range is answered with that subset",
                IbaSources.READ_RETRY)
            .summary("READ 64 bytes, then a duplicate asking for the first 16")
            .steps(Steps.connect(), remoteRead(), reference(),
                Steps.send("READ of 64 bytes", ctx -> Frames.read(ctx, psn(1), ctx.qp().va(), ctx.qp().rkey(),
                    DATA.length)),
                readResponseOf(ResponderReadScenarios::data, psn(1)),
                Steps.send("duplicate READ of 16 bytes", ctx -> Frames.read(ctx, psn(1), ctx.qp().va(),
                    ctx.qp().rkey(), 16)),
                readResponseOf(ctx -> Arrays.copyOf(data(ctx), 16), psn(1)))
            .build();
    }

    static Scenario readsBeyondResponderResources()
    {
        return responder("reads-beyond-resources")
            .rule("9.4.4 / 9.9.3", "READs beyond the responder's max_dest_rd_atomic resources are either each " +
                "answered from their own PSN with the right data or refused from the first one beyond with NAK " +
                "invalid request; none is dropped silently")
            .summary("a WRITE (or a READ), then max_dest_rd_atomic + 1 READs of it in one burst, then a WRITE (a READ)")
            .steps(Steps.connect(), remoteRead(), reference(),
                Steps.sendBurst("max_dest_rd_atomic + 1 READs of 64 bytes, back to back", ctx ->
                {
                    final List<byte[]> reads = new ArrayList<>();
                    for (int i = 1; i <= ctx.qp().maxDestRdAtomic() + 1; i++)
                    {
                        reads.add(Frames.read(ctx, psn(i), ctx.qp().va(), ctx.qp().rkey(), DATA.length));
                    }
                    return reads;
                }),
                new Step("expect each READ answered in order, or the first beyond the resources refused", ctx ->
                {
                    final int reads = ctx.qp().maxDestRdAtomic() + 1;
                    for (int i = 1; i <= reads; i++)
                    {
                        final CapturedFrame answer = ctx.expect(FrameFilter.anyAeth(), RESPONSE_NS);
                        if (i == reads && answer.isNak() &&
                            NakCode.INVALID_REQUEST.code() == AethHeader.value(answer.syndrome()))
                        {
                            Checks.equal("NAK PSN", psn(i), answer.psn());
                            ctx.note("the READ beyond the resources was refused with NAK invalid request");
                            Checks.that(ctx.dut().qpInError(), "the DUT refused the READ with NAK invalid request " +
                                "but its QP is not in the error state");
                            return;
                        }
                        Checks.that(Opcode.RC_RDMA_READ_RESPONSE_ONLY == answer.opcode(), "READ " + i + " of " +
                            reads + " was answered with " + answer.label());
                        Checks.equal("READ response PSN", psn(i), answer.psn());
                        Checks.that(Arrays.equals(data(ctx), answer.payload()), "READ response " + i + " carries " +
                            "other data than the region holds");
                    }
                    ctx.note("all " + reads + " READs answered (the responder recycles its resources, as rxe does)");
                    final int next = psn(reads + 1);
                    if (ctx.dut().acceptsRemoteWrite())
                    {
                        ctx.send(Frames.writeOnly(ctx, next, DATA));
                        Checks.equal("ACK PSN of the WRITE after the READs", next,
                            ctx.expect(FrameFilter.ack(), RESPONSE_NS).psn());
                        return;
                    }
                    ctx.send(Frames.read(ctx, next, ctx.qp().va(), ctx.qp().rkey(), DATA.length));
                    Checks.equal("PSN of the response to the READ after the READs", next,
                        ctx.expect(FrameFilter.opcode(Opcode.RC_RDMA_READ_RESPONSE_ONLY), RESPONSE_NS).psn());
                }),
                Steps.check("MSN monotonic", ctx -> Checkers.msnMonotonic(ctx.capture())))
            .build();
    }

    /** The READ scenarios need a region the DUT lets the peer read. */
    private static Step remoteRead()
    {
        return Steps.verify("the DUT's region has remote read", ctx -> ctx.dut().requireRemoteRead());
    }

    /**
     * The data the READs are judged against, at PSN 0x100: a pattern WRITTEN (and ACKed), or, in a region without
     * remote write, what a first READ of 64 bytes returns.
     */
    private static Step reference()
    {
        return new Step("WRITE a pattern at PSN 0x100 (a region without remote write: READ it once there)", ctx ->
        {
            if (ctx.dut().acceptsRemoteWrite())
            {
                for (final Step step : ResponderScenarios.normalService(PEER_PSN))
                {
                    step.action().run(ctx);
                }
                return;
            }
            ctx.send(Frames.read(ctx, PEER_PSN, ctx.qp().va(), ctx.qp().rkey(), DATA.length));
            final CapturedFrame first = ctx.expect(FrameFilter.opcode(Opcode.RC_RDMA_READ_RESPONSE_ONLY),
                RESPONSE_NS);
            Checks.equal("READ response PSN", PEER_PSN, first.psn());
            Checks.equal("READ response length", DATA.length, first.payload().length);
            ctx.mark(REFERENCE, first);
            ctx.note("the DUT's region has no remote write: the READs are judged against what a first READ of it " +
                "returned");
        });
    }

    /** The data at the start of the DUT's region: the pattern WRITTEN there, or what the first READ returned. */
    private static byte[] data(final ConformContext ctx)
    {
        return ctx.dut().acceptsRemoteWrite() ? DATA : ctx.marked(REFERENCE).payload();
    }

    private static Step readResponseOf(final Function<ConformContext, byte[]> data, final int psn)
    {
        return new Step("expect " + Opcode.RC_RDMA_READ_RESPONSE_ONLY + " within " + RESPONSE_NS / 1000 + " us",
            ctx ->
            {
                final CapturedFrame response = ctx.expect(FrameFilter.opcode(Opcode.RC_RDMA_READ_RESPONSE_ONLY),
                    RESPONSE_NS);
                Checks.equal("READ response PSN", psn, response.psn());
                Checks.that(Arrays.equals(data.apply(ctx), response.payload()), "READ response carries other data " +
                    "than the region holds (" + response.payload().length + " bytes)");
            });
    }
}
