package org.roce4j.cli.pingpong;

import java.util.function.LongSupplier;

/**
 * How long {@code roce pingpong} keeps its device up after the last iteration: until the peer has sent nothing for
 * the quiet time, and never longer than the linger time. The C tools have no closing handshake, so when one of the
 * last ACKs is lost the peer retransmits (rxe after its retransmission timeout, 4.096 us x 2^14 = 67 ms for the
 * pingpongs' timeout 14; IBA 9.7.6.1.3) and, with retry_cnt 7, which rxe takes as "forever", would go on retransmitting
 * to a closed device while its tool waits for that completion. As long as the device is up its engine re-ACKs each
 * retransmission as a duplicate (IBA 9.7.5.1.3); a peer that has had its ACKs falls silent, and so ends the wait.
 *
 * <p>A fixed linger was not enough on a loaded machine, where the emulated peer's retransmissions (and the re-ACKs)
 * can be later or lost again: this waits as long as the peer keeps sending, a real ibv_srq_pingpong would still be
 * answering. The clock, the peer's frame count and the pause are injected, so the rule is tested without sleeping.
 */
public final class QuietLinger
{
    /** How often the peer's frame count is looked at: well inside rxe's 67 ms retransmission timeout. */
    public static final long POLL_NS = 10_000_000L;

    /** Pauses the calling thread (LockSupport.parkNanos in the command; a clock's advance in tests). */
    @FunctionalInterface
    public interface Pause
    {
        /**
         * @param ns how long, in nanoseconds.
         */
        void pauseNs(long ns);
    }

    private final LongSupplier clockNs;
    private final LongSupplier framesReceived;
    private final Pause pause;

    /**
     * @param clockNs        a monotonic clock in nanoseconds (System::nanoTime).
     * @param framesReceived how many frames the device has received from the network so far (the link's
     *                       FRAMES_RECEIVED).
     * @param pause          how to wait between two looks.
     */
    public QuietLinger(final LongSupplier clockNs, final LongSupplier framesReceived, final Pause pause)
    {
        this.clockNs = clockNs;
        this.framesReceived = framesReceived;
        this.pause = pause;
    }

    /**
     * Waits until no frame has arrived for {@code quietNs}, or {@code lingerNs} have passed, whichever is first.
     *
     * @param quietNs  the silence that ends the wait; at least 0.
     * @param lingerNs the longest wait; at least 0 (0 returns at once).
     * @return what ended the wait.
     * @throws IllegalArgumentException for a negative time.
     */
    public Outcome await(final long quietNs, final long lingerNs)
    {
        if (quietNs < 0 || lingerNs < 0)
        {
            throw new IllegalArgumentException("quiet " + quietNs + " ns, linger " + lingerNs +
                " ns: a time is at least 0");
        }
        final long startNs = clockNs.getAsLong();
        long frames = framesReceived.getAsLong();
        long lastFrameNs = startNs;
        long seen = 0;
        while (true)
        {
            final long nowNs = clockNs.getAsLong();
            final long nowFrames = framesReceived.getAsLong();
            if (nowFrames != frames)
            {
                seen += nowFrames - frames;
                frames = nowFrames;
                lastFrameNs = nowNs;
            }
            final long quietLeftNs = quietNs - (nowNs - lastFrameNs);
            final long lingerLeftNs = lingerNs - (nowNs - startNs);
            if (lingerLeftNs <= 0)
            {
                return new Outcome(nowNs - startNs, seen, false);
            }
            if (quietLeftNs <= 0)
            {
                return new Outcome(nowNs - startNs, seen, true);
            }
            pause.pauseNs(Math.min(POLL_NS, Math.min(quietLeftNs, lingerLeftNs)));
        }
    }

    /**
     * What a wait came to.
     *
     * @param waitedNs how long it took.
     * @param frames   frames the peer sent meanwhile (retransmissions re-ACKed, late ACKs).
     * @param quiet    true when the peer fell silent, false when the linger time ran out first.
     */
    public record Outcome(long waitedNs, long frames, boolean quiet)
    {
    }
}
