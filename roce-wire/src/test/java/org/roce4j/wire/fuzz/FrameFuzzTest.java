package org.roce4j.wire.fuzz;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.roce4j.wire.FrameReencoder;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.Icrc;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.Vectors;
import org.roce4j.wire.test.FrameFields;
import org.roce4j.wire.test.Hex;
import org.roce4j.wire.test.RandomFrames;
import org.roce4j.wire.test.Seeded;
import org.roce4j.wire.test.SeededRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Mutation fuzzing of {@link RoceFrameParser#parse} with ICRC verification: at least a million mutated frames,
 * started from valid frames of every opcode (IPv4 and IPv6, tagged and not) and every frame of the real captures.
 * No exception may escape, every frame gets exactly one status (the counters add up to the frames parsed), and a
 * frame the parser accepts must re-encode from its parsed fields to the same bytes. The parser sees exactly the
 * frame's bytes (the buffer is wrapped to the frame's length with bounds checks on), so reading past the end
 * would throw. Batches run under a generous time limit that only a hang could reach.
 *
 * <p>{@code -Droce4j.fuzz.frames=N} changes the count, {@code -Droce4j.seed=0x...} replays a run. A million frames
 * take about 5 s on a 2-core machine, so the suite is not tagged slow.
 */
@Seeded
class FrameFuzzTest
{
    private static final int FRAMES = Integer.getInteger("roce4j.fuzz.frames", 1_000_000);
    private static final int BATCH = 50_000;
    /** Time limit of one batch: orders of magnitude above what a batch needs, so only a hang can reach it. */
    private static final Duration BATCH_LIMIT = Duration.ofSeconds(120);
    private static final int SLACK = 128;

    @Test
    void parserClassifiesEveryMutatedFrameWithoutThrowing(final SeededRandom random)
    {
        final List<byte[]> seeds = seedFrames(random);
        final FrameMutator mutator = new FrameMutator(random);
        final RoceFrameParser parser = new RoceFrameParser();
        final FrameReencoder reencoder = new FrameReencoder();
        final UnsafeBuffer rebuilt = new UnsafeBuffer(new byte[70_000]);
        final byte[] work = new byte[maxLength(seeds) + SLACK + 8];
        final UnsafeBuffer view = new UnsafeBuffer(work);
        final long[] reencoded = new long[1];
        final long startNs = System.nanoTime();

        int done = 0;
        while (done < FRAMES)
        {
            final int batch = Math.min(BATCH, FRAMES - done);
            final int first = done;
            assertTimeoutPreemptively(BATCH_LIMIT, () ->
            {
                for (int i = 0; i < batch; i++)
                {
                    final byte[] seed = seeds.get(random.nextInt(seeds.size()));
                    // Now and then place the frame at an offset inside the buffer.
                    final int offset = 0 == random.nextInt(8) ? 1 + random.nextInt(7) : 0;
                    System.arraycopy(seed, 0, work, offset, seed.length);
                    final byte[] frame = Arrays.copyOfRange(work, offset, offset + seed.length + SLACK);
                    final int length = mutator.mutate(frame, seed.length);
                    System.arraycopy(frame, 0, work, offset, length);
                    view.wrap(work, 0, offset + length);
                    final FrameStatus status;
                    try
                    {
                        status = parser.parse(view, offset, length, true);
                    }
                    catch (final Throwable ex)
                    {
                        throw new AssertionError("frame " + (first + i) + " (offset " + offset + ") threw " + ex +
                            ": " + Hex.of(Arrays.copyOf(frame, length)), ex);
                    }
                    if (FrameStatus.OK == status)
                    {
                        checkAccepted(parser, reencoder, rebuilt, frame, length, offset);
                        reencoded[0]++;
                    }
                }
            }, () -> "a batch of " + batch + " frames from frame " + first + " did not finish: hang?");
            done += batch;
        }
        final long elapsedMs = (System.nanoTime() - startNs) / 1_000_000;

        assertEquals(FRAMES, parser.counters().total(), "every frame counted exactly once");
        final StringBuilder statuses = new StringBuilder();
        for (final FrameStatus status : FrameStatus.values())
        {
            statuses.append(status.name().toLowerCase()).append('=').append(parser.counters().get(status)).append(' ');
        }
        final StringBuilder kinds = new StringBuilder();
        for (final FrameMutator.Kind kind : FrameMutator.Kind.values())
        {
            kinds.append(kind.name().toLowerCase()).append('=').append(mutator.count(kind)).append(' ');
        }
        System.out.println("fuzzed " + FRAMES + " frames from " + seeds.size() + " seeds in " + elapsedMs + " ms, " +
            random + "\n  statuses: " + statuses + "\n  mutations: " + kinds + "\n  accepted and re-encoded: " +
            reencoded[0]);
        // The mutations must reach deep: most reasons, the ICRC check included, are seen.
        int reasonsSeen = 0;
        for (final FrameStatus status : FrameStatus.values())
        {
            reasonsSeen += parser.counters().get(status) > 0 ? 1 : 0;
        }
        if (FRAMES >= 100_000)
        {
            assertTrue(reasonsSeen >= FrameStatus.COUNT - 2, "only " + reasonsSeen + " statuses seen: " + statuses);
            assertTrue(parser.counters().get(FrameStatus.BAD_ICRC) > 0, statuses.toString());
            assertTrue(parser.counters().get(FrameStatus.OK) > 0, statuses.toString());
        }
    }

    /** A frame the parser accepted is consistent: its parts add up and it re-encodes to the same bytes. */
    private static void checkAccepted(
        final RoceFrameParser parser, final FrameReencoder reencoder, final UnsafeBuffer rebuilt, final byte[] frame,
        final int length, final int offset)
    {
        final String hex = Hex.of(Arrays.copyOf(frame, length));
        final Opcode opcode = parser.opcode();
        assertTrue(parser.frameLength() <= length, hex);
        assertEquals(parser.bthOffset() + opcode.headerLength(), parser.payloadOffset(), hex);
        assertEquals(parser.payloadOffset() + parser.payloadLength() + parser.padCount(), parser.icrcOffset(), hex);
        assertEquals(offset + parser.frameLength(), parser.icrcOffset() + Icrc.LENGTH, hex);
        assertEquals(parser.computedIcrc(), parser.carriedIcrc(), hex);
        if (20 != parser.ipHeaderLength() && 4 == parser.ipVersion())
        {
            return; // IPv4 options: the builder writes none, so a re-encoding could not match
        }
        final int again = reencoder.reencode(parser, rebuilt, 0);
        assertEquals(parser.frameLength(), again, hex);
        // Receivers accept any pad bytes (IBA: senders write zeros; rxe does not look), the builder writes zeros:
        // with non-zero pad only the bytes before the pad can match (the ICRC covers the pad).
        int compared = again;
        final int padStart = parser.payloadOffset() + parser.payloadLength() - offset;
        for (int i = 0; i < parser.padCount(); i++)
        {
            if (0 != frame[padStart + i])
            {
                compared = padStart;
            }
        }
        for (int i = 0; i < compared; i++)
        {
            if (frame[i] != rebuilt.getByte(i))
            {
                fail("accepted frame re-encodes differently at byte " + i + ": " + hex);
            }
        }
    }

    static List<byte[]> seedFrames(final SeededRandom random)
    {
        final List<byte[]> seeds = new ArrayList<>();
        final RandomFrames frames = new RandomFrames(random);
        final FrameFields fields = new FrameFields();
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[8192]);
        for (final Opcode opcode : Opcode.values())
        {
            for (int variant = 0; variant < 8; variant++)
            {
                final int payload = opcode.hasPayload() ? random.pick(0, 1, 2, 3, 4, random.nextInt(1100)) : 0;
                final int length = frames.build(opcode, 0 == (variant & 1) ? 4 : 6, 0 != (variant & 2), payload,
                    buffer, 0, fields);
                final byte[] frame = new byte[length];
                buffer.getBytes(0, frame);
                seeds.add(frame);
            }
        }
        for (final String capture : Vectors.ALL)
        {
            seeds.addAll(Vectors.frames(capture));
        }
        return seeds;
    }

    static int maxLength(final List<byte[]> frames)
    {
        int max = 0;
        for (final byte[] frame : frames)
        {
            max = Math.max(max, frame.length);
        }
        return max;
    }
}
