package org.roce4j.conform;

import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

import org.roce4j.conform.dut.DutCompletion;
import org.roce4j.conform.dut.DutWork;
import org.roce4j.ib.WcStatus;

/**
 * The steps scenarios are made of: connect, post work on the DUT, send a crafted frame, put a fault on the next
 * frames matching a filter, wait for a frame, check the DUT's outcome, run a checker over the capture.
 */
public final class Steps
{
    private Steps()
    {
    }

    /**
     * @return connect an RC QP of the DUT to the peer.
     */
    public static Step connect()
    {
        return new Step("connect RC", ctx -> ctx.connect(true));
    }

    /**
     * @return connect a UD QP of the DUT.
     */
    public static Step connectUd()
    {
        return new Step("connect UD", ctx -> ctx.connect(false));
    }

    /**
     * @param wrId   id.
     * @param offset into the DUT's region.
     * @param length bytes.
     * @return post a receive on the DUT.
     */
    public static Step postRecv(final long wrId, final int offset, final int length)
    {
        return new Step("DUT posts a receive of " + length + " bytes (wr_id " + wrId + ")", ctx ->
        {
            ctx.dut().postRecv(wrId, offset, length);
            ctx.settle();
        });
    }

    /**
     * @param label what is posted.
     * @param work  builds the work request once connected (the remote VA and key come from the connection).
     * @return post work on the DUT's send queue.
     */
    public static Step post(final String label, final Function<ConformContext, DutWork> work)
    {
        return new Step("DUT posts " + label, ctx ->
        {
            ctx.dut().postSend(work.apply(ctx));
            ctx.settle();
        });
    }

    /**
     * @param label what is sent.
     * @param frame crafts the frame once connected.
     * @return send a crafted frame to the DUT.
     */
    public static Step send(final String label, final Function<ConformContext, byte[]> frame)
    {
        return new Step("peer sends " + label, ctx -> ctx.send(frame.apply(ctx)));
    }

    /**
     * @param label  what is sent.
     * @param frames builds the frames.
     * @return send frames to the DUT back to back, as one burst ({@link ConformContext#sendBurst}).
     */
    public static Step sendBurst(final String label, final Function<ConformContext, List<byte[]>> frames)
    {
        return new Step("peer sends " + label, ctx -> ctx.sendBurst(frames.apply(ctx)));
    }

    /**
     * @param direction which way.
     * @param filter    which frames.
     * @param count     how many.
     * @return drop the next matching frames.
     */
    public static Step dropNext(final Direction direction, final FrameFilter filter, final int count)
    {
        return rule(() -> FrameRule.drop(direction, filter, count));
    }

    /**
     * @param direction which way.
     * @param filter    which frames.
     * @param count     how many.
     * @return deliver the next matching frames twice.
     */
    public static Step duplicateNext(final Direction direction, final FrameFilter filter, final int count)
    {
        return rule(() -> FrameRule.duplicate(direction, filter, count));
    }

    /**
     * @param direction which way.
     * @param filter    which frames.
     * @param count     how many.
     * @param delayNs   how late.
     * @return delay the next matching frames.
     */
    public static Step delayNext(final Direction direction, final FrameFilter filter, final int count,
        final long delayNs)
    {
        return rule(() -> FrameRule.delay(direction, filter, count, delayNs));
    }

    /**
     * @param direction which way.
     * @param filter    which frames.
     * @param count     how many.
     * @param name      what the mutation does.
     * @param mutation  the rewrite.
     * @return rewrite the next matching frames.
     */
    public static Step mutateNext(final Direction direction, final FrameFilter filter, final int count,
        final String name, final UnaryOperator<byte[]> mutation)
    {
        return rule(() -> FrameRule.mutate(direction, filter, count, name, mutation));
    }

    /** A rule counts down as it fires, so each run of the scenario gets a fresh one. */
    private static Step rule(final Supplier<FrameRule> rule)
    {
        return new Step(rule.get().toString(), ctx -> ctx.link().addRule(rule.get()));
    }

    /**
     * @param filter   what the DUT must send.
     * @param withinNs how long it has.
     * @param check    checks on the frame (throw ConformFailure).
     * @return wait for a frame from the DUT.
     */
    public static Step expect(final FrameFilter filter, final long withinNs, final Consumer<CapturedFrame> check)
    {
        return new Step("expect " + filter.description() + " within " + ConformContext.micros(withinNs),
            ctx -> check.accept(ctx.expect(filter, withinNs)));
    }

    /**
     * @param filter   what the DUT must send.
     * @param withinNs how long it has.
     * @return wait for a frame from the DUT.
     */
    public static Step expect(final FrameFilter filter, final long withinNs)
    {
        return expect(filter, withinNs, frame -> {});
    }

    /**
     * @param filter what the DUT must not send.
     * @param forNs  how long to watch.
     * @return require silence.
     */
    public static Step expectNone(final FrameFilter filter, final long forNs)
    {
        return new Step("expect no " + filter.description() + " for " + ConformContext.micros(forNs),
            ctx -> ctx.expectNone(filter, forNs));
    }

    /**
     * @param ns how long.
     * @return let time pass.
     */
    public static Step advance(final long ns)
    {
        return new Step("wait " + ConformContext.micros(ns), ctx -> ctx.advance(ns));
    }

    /**
     * @param label what is checked.
     * @param check the check (throws ConformFailure, or ConformSkip when it cannot be judged).
     * @return a check of the DUT's outcome.
     */
    public static Step verify(final String label, final Consumer<ConformContext> check)
    {
        return new Step("check " + label, check::accept);
    }

    /**
     * @param label   what the checker checks.
     * @param checker reads the capture.
     * @return run a checker; its findings go to the report, a violation fails the scenario.
     */
    public static Step check(final String label, final Function<ConformContext, List<Finding>> checker)
    {
        return new Step("check " + label, ctx ->
        {
            ctx.settle();
            for (final Finding finding : checker.apply(ctx))
            {
                ctx.record(finding);
                if (finding.violation())
                {
                    throw new ConformFailure(finding.text());
                }
            }
        });
    }

    /**
     * @param wrId   id.
     * @param status the status the DUT must report.
     * @return check the DUT reported the completion.
     */
    public static Step completion(final long wrId, final WcStatus status)
    {
        return verify("DUT completes wr_id " + wrId + " with " + status, ctx ->
        {
            if (!ctx.dut().showsCompletions())
            {
                throw new ConformSkip("the DUT's completions: its tool does not report them");
            }
            for (final DutCompletion completion : ctx.completions())
            {
                if (wrId == completion.wrId())
                {
                    Checks.that(status == completion.status(), "wr_id " + wrId + " completed with " +
                        completion.status() + ", the rule wants " + status);
                    return;
                }
            }
            throw new ConformFailure("the DUT reported no completion for wr_id " + wrId + "; it reported " +
                ctx.completions());
        });
    }

    /**
     * A part of a scenario beyond what its rule's verdict rests on (the payload after an ACK, the completion after a
     * NAK): where the DUT cannot show what the step needs (the step throws {@link ConformSkip}: its memory, its
     * completions), the part is recorded as not checked ({@link Finding#notChecked}, "WHAT, needs ...") and the
     * scenario goes on to judge what was observed. A violation the step finds still fails.
     *
     * @param what what the step checks, e.g. {@code payload}.
     * @param step the step.
     * @return the step, not checked where the DUT cannot show what it needs.
     */
    public static Step whereObservable(final String what, final Step step)
    {
        return new Step(step.label(), ctx ->
        {
            try
            {
                step.action().run(ctx);
            }
            catch (final ConformSkip unobservable)
            {
                ctx.record(Finding.notChecked(what + ", needs " + unobservable.getMessage()));
            }
        });
    }

    /**
     * @return check the DUT's QP is not in the error state: its state read from the DUT, or, from a DUT that does not
     *     show it, the observable substitute {@link ConformContext#probeAlive}.
     */
    public static Step qpAlive()
    {
        return verify("the DUT's QP is not in error", ctx ->
        {
            if (ctx.dut().showsQpState())
            {
                Checks.that(!ctx.dut().qpInError(), "the DUT's QP went to the error state");
            }
            else
            {
                ctx.probeAlive();
            }
        });
    }

    /**
     * @return check the DUT's QP is in the error state.
     */
    public static Step qpInError()
    {
        return verify("the DUT's QP is in error", ctx ->
        {
            final boolean inError = ctx.dut().qpInError();
            final String evidence = ctx.dut().qpStateEvidence();
            Checks.that(inError, "the DUT's QP is not in the error state" + (null == evidence ? "" : ": " + evidence));
            if (null != evidence)
            {
                ctx.note(evidence);
            }
        });
    }
}
