package org.roce4j.conform;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.conform.dut.Dut;
import org.roce4j.conform.dut.DutCompletion;
import org.roce4j.conform.dut.DutQp;
import org.roce4j.conform.dut.PeerQp;
import org.roce4j.conform.dut.Testbed;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.Psn;
import org.roce4j.wire.RoceFrameBuilder;
import org.roce4j.wire.header.AethHeader;

/**
 * The state of one running scenario: the testbed, the conform link and its capture, the connection, the DUT's
 * completions, and the peer's frame crafting (roce-wire's {@link RoceFrameBuilder}). Steps act through it.
 *
 * <p>Time only passes when a step lets it: {@link #expect} and {@link #expectNone} move the testbed's clock in small
 * steps up to their deadline, running the DUT after each, so a timer in the DUT fires at the moment it is due.
 */
public final class ConformContext
{
    /** The conform peer's QP number. */
    public static final int PEER_QPN = 0x77;
    /** The first PSN the peer sends (what the DUT's responder expects first). */
    public static final int PEER_PSN = 0x100;
    /**
     * The peer's pretend region, where the DUT as requester WRITEs and READs: the peer is scripted and keeps no memory,
     * so any VA and R_Key do (a DUT's client loop takes them from the exchange).
     */
    public static final long PEER_VA = 0x7000_0000L;
    /** The R_Key of the peer's pretend region. */
    public static final int PEER_RKEY = 0x1234;
    /** UDP source port of crafted frames: any value is allowed (IBA A17.4.1 leaves it to the sender for entropy). */
    private static final int UDP_SOURCE_PORT = 0xC0DE;
    /** How many slices a wait is cut into: the resolution of measured times is the wait / this. */
    private static final long WAIT_SLICES = 2000;
    /** The smallest slice of time a wait advances, 1 us. */
    private static final long MIN_SLICE_NS = 1_000;
    /** How long the probe of {@link #probeAlive} waits for its ACK: 1 ms (at least the testbed's wait floor). */
    private static final long PROBE_NS = 1_000_000L;
    /**
     * How long {@link #sendPastRnr} keeps sending a request again after RNR NAKs: perftest gives its QPs rnr_retry 7,
     * which IBA 9.7.5.2.8 reads as "retry forever". Bounded here, so that a DUT that never takes the SEND FAILs, but
     * by time rather than by a count: seven retries of a 0.64 ms timer (perftest's min_rnr_timer 12) are 4.5 ms,
     * which a guest busy starting its tools can outlast (ib_send_bw once posted its receives later than that). 2 s
     * is far past any live DUT's receive posting.
     */
    private static final long RNR_RETRY_BUDGET_NS = 2_000_000_000L;
    /** Bound on DUT duty cycles without the clock moving: a DUT still busy after this many is stuck. */
    private static final int MAX_QUIET_CYCLES = 100_000;

    private final Testbed testbed;
    private final ConformLink link;
    private final Capture capture;
    private final LinkAddress peerAddress;
    private final RoceFrameBuilder builder = new RoceFrameBuilder();
    private final UnsafeBuffer scratch = new UnsafeBuffer(new byte[16384]);
    private final List<DutCompletion> completions = new ArrayList<>();
    private final List<Finding> findings = new ArrayList<>();
    private final Map<String, CapturedFrame> marks = new HashMap<>();
    private DutQp qp;
    private int cursor;

    /**
     * @param testbed the scenario's world.
     * @param capture where the conform link records.
     */
    public ConformContext(final Testbed testbed, final Capture capture)
    {
        this.testbed = testbed;
        this.capture = capture;
        this.link = new ConformLink(testbed.peerLink(), testbed::nowNs, capture);
        this.peerAddress = testbed.peerLink().address();
    }

    /**
     * @return the device under test.
     */
    public Dut dut()
    {
        return testbed.dut();
    }

    /**
     * @return the conform link (add fault rules to it).
     */
    public ConformLink link()
    {
        return link;
    }

    /**
     * @return the capture so far.
     */
    public Capture capture()
    {
        return capture;
    }

    /**
     * @return the DUT's end of the connection.
     * @throws IllegalStateException before a connect step.
     */
    public DutQp qp()
    {
        if (null == qp)
        {
            throw new IllegalStateException("scenario has no connect step before this one");
        }
        return qp;
    }

    /**
     * Connect the DUT to the peer.
     *
     * @param rc true for RC, false for UD.
     * @return the DUT's end.
     */
    public DutQp connect(final boolean rc)
    {
        qp = dut().connect(rc, new PeerQp(peerAddress, PEER_QPN, PEER_PSN));
        settle();
        return qp;
    }

    /**
     * @return a context on the same testbed and connection with a capture of its own: what is sent through it after
     *     the scenario (to end a DUT tool's run) stays out of the scenario's capture and report.
     */
    public ConformContext afterwards()
    {
        final ConformContext after = new ConformContext(testbed, new Capture());
        after.qp = qp;
        return after;
    }

    /**
     * Remember a frame under a name, for a later step (a checker that measures from it).
     *
     * @param name  the name.
     * @param frame the frame.
     * @return the frame.
     */
    public CapturedFrame mark(final String name, final CapturedFrame frame)
    {
        marks.put(name, frame);
        return frame;
    }

    /**
     * Remember the last frame the peer sent under a name.
     *
     * @param name the name.
     */
    public void markLastSent(final String name)
    {
        final List<CapturedFrame> frames = capture.frames();
        for (int i = frames.size() - 1; i >= 0; i--)
        {
            if (Direction.TO_DUT == frames.get(i).direction())
            {
                marks.put(name, frames.get(i));
                return;
            }
        }
        throw new IllegalStateException("the peer has sent nothing to mark as " + name);
    }

    /**
     * @param name a name given to {@link #mark} or {@link #markLastSent}.
     * @return the frame.
     * @throws IllegalStateException when no step marked it.
     */
    public CapturedFrame marked(final String name)
    {
        final CapturedFrame frame = marks.get(name);
        if (null == frame)
        {
            throw new IllegalStateException("no frame was marked " + name);
        }
        return frame;
    }

    /**
     * @return how much earlier than a DUT timer's due time a timed frame may be measured ({@link
     *     Testbed#timingToleranceNs}).
     */
    public long timingToleranceNs()
    {
        return testbed.timingToleranceNs();
    }

    /**
     * @return the runner's clock, nanoseconds.
     */
    public long nowNs()
    {
        return testbed.nowNs();
    }

    /**
     * Record a remark for the report (what was measured, what was seen).
     *
     * @param note one line.
     */
    public void note(final String note)
    {
        findings.add(Finding.note(note));
    }

    /**
     * Record a checker's finding for the report.
     *
     * @param finding what was checked and seen, and the frame it is about.
     */
    public void record(final Finding finding)
    {
        findings.add(Objects.requireNonNull(finding, "finding"));
    }

    /**
     * @return the findings and remarks so far, in order.
     */
    public List<Finding> findings()
    {
        return List.copyOf(findings);
    }

    /**
     * @return every completion the DUT reported so far.
     */
    public List<DutCompletion> completions()
    {
        settle();
        return List.copyOf(completions);
    }

    /**
     * Run the DUT and the link until neither has anything to do (the clock does not move).
     */
    public void settle()
    {
        int cycles = 0;
        while (0 != testbed.dut().progress() + link.releaseDue() + link.poll((b, o, l) -> {}, 64))
        {
            if (++cycles > MAX_QUIET_CYCLES)
            {
                throw new ConformFailure("the DUT never went quiet: " + dut().describeCounters());
            }
        }
        completions.addAll(testbed.dut().pollCompletions());
    }

    /**
     * Let time pass, the DUT running all along.
     *
     * @param ns how long.
     */
    public void advance(final long ns)
    {
        final long deadline = nowNs() + ns;
        final long slice = Math.max(MIN_SLICE_NS, ns / WAIT_SLICES);
        settle();
        while (nowNs() < deadline)
        {
            testbed.advanceNs(Math.min(slice, deadline - nowNs()));
            settle();
        }
    }

    /**
     * Send a frame to the DUT through the link's rules and run the DUT.
     *
     * @param frame the whole Ethernet frame.
     */
    public void send(final byte[] frame)
    {
        link.sendFrame(frame);
        settle();
    }

    /**
     * Send frames to the DUT back to back, through the link's rules, and only then run the DUT: they reach it as one
     * burst at one instant of the runner's clock.
     *
     * @param frames whole Ethernet frames, in order.
     */
    public void sendBurst(final List<byte[]> frames)
    {
        for (final byte[] frame : frames)
        {
            link.sendFrame(frame);
        }
        settle();
    }

    /**
     * Send a request and wait for its answer; an RNR NAK instead is answered as a requester answers it (IBA 9.7.5.2.8):
     * the same request again once the NAK's timer has run, for up to {@link #RNR_RETRY_BUDGET_NS} of timers. For a SEND whose receive
     * the DUT's tool has posted when the scenario cannot know it took effect (a DUT that posts from another thread
     * than its engine's may take the SEND first).
     *
     * @param frame  the request, a whole Ethernet frame.
     * @param answer the answer wanted.
     * @param waitNs how long each answer may take (at least the testbed's {@link Testbed#waitFloorNs}).
     * @return the answer.
     * @throws ConformFailure when none came in time, or the DUT still answered RNR NAK after the retries.
     */
    public CapturedFrame sendPastRnr(final byte[] frame, final FrameFilter answer, final long waitNs)
    {
        long waitedNs = 0;
        for (int retry = 0; true; retry++)
        {
            send(frame);
            final CapturedFrame got = expect(answer.or(FrameFilter.rnrNak()), waitNs);
            if (!got.isRnrNak() || answer.matches(got))
            {
                if (retry > 1)
                {
                    note("the request was taken after " + retry + " RNR NAKs (" + micros(waitedNs) + " of timers)");
                }
                return got;
            }
            if (waitedNs >= RNR_RETRY_BUDGET_NS)
            {
                throw new ConformFailure("the DUT answered " + got.label() + " to the request and to each of its " +
                    retry + " retries after the RNR timer (" + micros(waitedNs) + " of timers)");
            }
            final long timerNs = AethHeader.rnrTimerNs(AethHeader.value(got.syndrome()));
            if (0 == retry)
            {
                note("RNR NAK for the request (the DUT's receive not taken up yet): sent again after its " +
                    micros(timerNs) + " timer, as a requester does (IBA 9.7.5.2.8)");
            }
            advance(timerNs);
            waitedNs += timerNs;
        }
    }

    /**
     * Wait for the DUT to send a frame matching the filter; frames it sends before that are passed over (they stay
     * in the capture for the checkers).
     *
     * @param filter what to wait for.
     * @param waitNs how long to wait at most (at least the testbed's {@link Testbed#waitFloorNs}).
     * @return the frame.
     * @throws ConformFailure when none came in time, listing what the DUT did send.
     */
    public CapturedFrame expect(final FrameFilter filter, final long waitNs)
    {
        final long withinNs = Math.max(waitNs, testbed.waitFloorNs());
        final int from = cursor;
        final CapturedFrame match = await(filter, withinNs);
        if (null == match)
        {
            throw new ConformFailure("expected " + filter.description() + " within " + micros(withinNs) +
                "; the DUT sent " + sentSince(from));
        }
        return match;
    }

    /**
     * Wait for the DUT to send a frame matching the filter, as {@link #expect} does but without the testbed's wait
     * floor and without failing: for the peer's own bookkeeping (answering a DUT's tool after the scenario).
     *
     * @param filter what to wait for.
     * @param waitNs how long to wait at most.
     * @return the frame, or null when none came in time.
     */
    public CapturedFrame await(final FrameFilter filter, final long waitNs)
    {
        final long deadline = nowNs() + waitNs;
        final long slice = Math.max(MIN_SLICE_NS, waitNs / WAIT_SLICES);
        while (true)
        {
            settle();
            final CapturedFrame match = nextFromDut(filter);
            if (null != match)
            {
                return match;
            }
            if (nowNs() >= deadline)
            {
                return null;
            }
            testbed.advanceNs(Math.min(slice, deadline - nowNs()));
        }
    }

    /**
     * @param filter what to look for.
     * @return the first frame the DUT sent so far that matches, wherever {@link #expect} has got to, or null.
     */
    public CapturedFrame seen(final FrameFilter filter)
    {
        settle();
        for (final CapturedFrame frame : capture.frames())
        {
            if (Direction.FROM_DUT == frame.direction() && !frame.dropped() && filter.matches(frame))
            {
                return frame;
            }
        }
        return null;
    }

    /**
     * Require that the DUT sends nothing matching the filter for a while.
     *
     * @param filter  what must not come.
     * @param watchNs how long to watch (at least the testbed's {@link Testbed#waitFloorNs}).
     * @throws ConformFailure when it came.
     */
    public void expectNone(final FrameFilter filter, final long watchNs)
    {
        final long forNs = Math.max(watchNs, testbed.waitFloorNs());
        final int from = cursor;
        advance(forNs);
        final CapturedFrame match = nextFromDut(filter);
        if (null != match)
        {
            throw new ConformFailure("expected no " + filter.description() + " for " + micros(forNs) +
                "; the DUT sent " + sentSince(from));
        }
        cursor = capture.size();
    }

    /**
     * The observable substitute for the QP state of a DUT that does not show it ({@link Dut#showsQpState}): a
     * zero-length WRITE ONLY with AckReq at the PSN after the highest one the DUT acknowledged (the peer's first PSN
     * when the peer has sent no request yet: the DUT as requester) must be ACKed with that PSN. A QP in the error state
     * answers no request (IBA 10.3.1; rxe_resp.c drops requests to a QP in ERR), so the ACK shows the QP alive; a
     * zero-length WRITE moves no data (C9-88).
     *
     * @throws ConformSkip    when the DUT acknowledged nothing of the requests the peer sent, so no PSN is known.
     * @throws ConformFailure when the probe is not ACKed.
     */
    public void probeAlive()
    {
        final int highest = highestAcked();
        if (highest < 0 && sentRequest())
        {
            throw new ConformSkip("the DUT's QP state: the DUT does not show it, and it acknowledged nothing yet, so " +
                "a request to probe it with has no known PSN");
        }
        final int next = highest < 0 ? PEER_PSN : Psn.next(highest);
        send(frame(Opcode.RC_RDMA_WRITE_ONLY, next, new byte[0], b ->
        {
            b.bthHeader().ackReq(true);
            b.reth().va(qp().va()).rkey(qp().rkey()).dmaLength(0);
        }));
        final CapturedFrame answer = expect(FrameFilter.anyAeth(), PROBE_NS);
        if (!answer.isAck() || next != answer.psn())
        {
            throw new ConformFailure("the DUT does not show its QP state, and a zero-length WRITE ONLY probing it at " +
                "PSN 0x" + Integer.toHexString(next) + " was answered with " + answer.label() + ", not an ACK of " +
                "that PSN: its QP is not alive");
        }
        note("the DUT does not show its QP state: a zero-length WRITE ONLY at PSN 0x" + Integer.toHexString(next) +
            " was ACKed, so its QP is alive");
    }

    /**
     * @return true when the peer has sent the DUT a request (its responder no longer expects the peer's first PSN).
     */
    private boolean sentRequest()
    {
        for (final CapturedFrame frame : capture.frames())
        {
            if (Direction.TO_DUT == frame.direction() && null != frame.opcode() && frame.opcode().isRequest())
            {
                return true;
            }
        }
        return false;
    }

    /**
     * @return the highest PSN the DUT acknowledged with an ACK so far, or -1 when it acknowledged none.
     */
    private int highestAcked()
    {
        int highest = -1;
        for (final CapturedFrame frame : capture.frames())
        {
            if (Direction.FROM_DUT == frame.direction() && !frame.dropped() && frame.isAck() &&
                (highest < 0 || Psn.compare(frame.psn(), highest) > 0))
            {
                highest = frame.psn();
            }
        }
        return highest;
    }

    /**
     * @return the PSN the DUT's responder expects next, as far as its answers show: the one after the highest it
     *     ACKed, or a later one a NAK or RNR NAK named (a NAK names the expected PSN, IBA 9.7.5.2), else the peer's
     *     first PSN.
     */
    public int expectedPsn()
    {
        final int highest = highestAcked();
        int expected = highest < 0 ? PEER_PSN : Psn.next(highest);
        for (final CapturedFrame frame : capture.frames())
        {
            if (Direction.FROM_DUT == frame.direction() && !frame.dropped() &&
                (frame.isNak() || frame.isRnrNak()) && Psn.compare(frame.psn(), expected) > 0)
            {
                expected = frame.psn();
            }
        }
        return expected;
    }

    private CapturedFrame nextFromDut(final FrameFilter filter)
    {
        final List<CapturedFrame> frames = capture.frames();
        for (int i = cursor; i < frames.size(); i++)
        {
            final CapturedFrame frame = frames.get(i);
            if (Direction.FROM_DUT == frame.direction() && !frame.dropped() && filter.matches(frame))
            {
                cursor = i + 1;
                return frame;
            }
        }
        return null;
    }

    private String sentSince(final int from)
    {
        final List<String> labels = new ArrayList<>();
        final List<CapturedFrame> frames = capture.frames();
        for (int i = from; i < frames.size(); i++)
        {
            if (Direction.FROM_DUT == frames.get(i).direction())
            {
                labels.add(frames.get(i).label());
            }
        }
        return labels.isEmpty() ? "nothing" : labels.toString();
    }

    /**
     * @param ns nanoseconds.
     * @return e.g. {@code 1000.0 us}.
     */
    static String micros(final long ns)
    {
        return ns / 1000.0 + " us";
    }

    // ---- crafting frames ---------------------------------------------------------------------------------------

    /**
     * Build a frame from the peer to the DUT's QP (IPv4, between the connection's addresses).
     *
     * @param opcode  opcode.
     * @param psn     PSN.
     * @param payload payload.
     * @param headers sets BTH fields and extension headers.
     * @return the frame, its ICRC computed.
     */
    public byte[] frame(final Opcode opcode, final int psn, final byte[] payload,
        final Consumer<RoceFrameBuilder> headers)
    {
        return frameTo(qp().address().ipv4(), qp().qpn(), opcode, psn, payload, headers);
    }

    /**
     * Build a frame from the peer to any destination IP and QP (the Ethernet destination stays the DUT's MAC).
     *
     * @param destinationIp IPv4 destination.
     * @param destQp        BTH destination QP.
     * @param opcode        opcode.
     * @param psn           PSN.
     * @param payload       payload.
     * @param headers       sets BTH fields and extension headers.
     * @return the frame, its ICRC computed.
     */
    public byte[] frameTo(final int destinationIp, final int destQp, final Opcode opcode, final int psn,
        final byte[] payload, final Consumer<RoceFrameBuilder> headers)
    {
        builder.wrap(scratch, 0).ethernet(qp().address().mac(), peerAddress.mac())
            .ipv4(peerAddress.ipv4(), destinationIp).udp(UDP_SOURCE_PORT).bth(opcode, destQp, psn);
        headers.accept(builder);
        builder.payload(new UnsafeBuffer(payload), 0, payload.length);
        final int length = builder.finish();
        final byte[] frame = new byte[length];
        scratch.getBytes(0, frame);
        return frame;
    }
}
