package org.roce4j.wire.fuzz;

import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;

import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.roce4j.wire.ExtHeader;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.ReferenceRoceFrameParser;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.header.HeaderFlyweight;
import org.roce4j.wire.test.Hex;
import org.roce4j.wire.test.Seeded;
import org.roce4j.wire.test.SeededRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The parser against {@link ReferenceRoceFrameParser}, the parser before it was tuned for speed: a million mutated
 * frames (the mutations of {@link FrameFuzzTest}) through both, one after the other, each frame in heap, direct or
 * raw-address memory wrapped to exactly its length (bounds checks on), with and without ICRC verification. After
 * every frame the two must agree on the status and on everything the view exposes, stale values of earlier frames
 * included (every offset, the opcode, payload and pad, the ICRC, each flyweight's buffer and offset), and at the end
 * on every counter. So the tuning changed no malformed-frame reason, no counter and nothing a decoder reads after a
 * rejected frame.
 *
 * <p>{@code -Droce4j.fuzz.frames=N} changes the count, {@code -Droce4j.seed=0x...} replays a run.
 */
@Seeded
class ParserDifferentialTest
{
    private static final int FRAMES = Integer.getInteger("roce4j.fuzz.frames", 1_000_000);
    private static final int SLACK = 128;

    @Test
    void tunedParserAgreesWithTheReferenceOnEveryMutatedFrame(final SeededRandom random)
    {
        final List<byte[]> seeds = FrameFuzzTest.seedFrames(random);
        final FrameMutator mutator = new FrameMutator(random);
        final RoceFrameParser parser = new RoceFrameParser();
        final ReferenceRoceFrameParser reference = new ReferenceRoceFrameParser();
        final int room = FrameFuzzTest.maxLength(seeds) + SLACK + 8;
        final byte[] work = new byte[room];
        final ByteBuffer direct = BufferUtil.allocateDirectAligned(room, 64);
        final UnsafeBuffer heapView = new UnsafeBuffer(work);
        final UnsafeBuffer directView = new UnsafeBuffer(direct);
        final UnsafeBuffer addressView = new UnsafeBuffer(direct);
        final long address = BufferUtil.address(direct);
        final int[] kindCounts = new int[3];

        for (int n = 0; n < FRAMES; n++)
        {
            final byte[] seed = seeds.get(random.nextInt(seeds.size()));
            final int offset = 0 == random.nextInt(8) ? 1 + random.nextInt(7) : 0;
            final byte[] frame = Arrays.copyOf(seed, seed.length + SLACK);
            final int length = mutator.mutate(frame, seed.length);
            System.arraycopy(frame, 0, work, offset, length);
            final int kind = 0 == random.nextInt(4) ? 1 + random.nextInt(2) : 0;
            kindCounts[kind]++;
            final UnsafeBuffer view;
            if (0 == kind)
            {
                heapView.wrap(work, 0, offset + length);
                view = heapView;
            }
            else
            {
                directView.wrap(direct, 0, room);
                directView.putBytes(0, work, 0, offset + length);
                if (1 == kind)
                {
                    directView.wrap(direct, 0, offset + length);
                    view = directView;
                }
                else
                {
                    addressView.wrap(address, offset + length);
                    view = addressView;
                }
            }
            final boolean verify = 0 != random.nextInt(8);

            final FrameStatus expected = reference.parse(view, offset, length, verify);
            final FrameStatus actual = parser.parse(view, offset, length, verify);
            if (expected != actual || !sameView(reference, parser))
            {
                assertSameView(reference, parser, "frame " + n + " (" + (0 == kind ? "heap" : 1 == kind ?
                    "direct" : "raw address") + ", offset " + offset + ", verify " + verify + "): " +
                    Hex.of(Arrays.copyOf(frame, length)));
            }
        }
        Reference.reachabilityFence(direct);

        final StringBuilder statuses = new StringBuilder();
        int reasonsSeen = 0;
        for (final FrameStatus status : FrameStatus.values())
        {
            assertEquals(reference.counters().get(status), parser.counters().get(status), status.name());
            statuses.append(status.name().toLowerCase()).append('=').append(parser.counters().get(status)).append(' ');
            reasonsSeen += parser.counters().get(status) > 0 ? 1 : 0;
        }
        System.out.println("differential: " + FRAMES + " frames, heap/direct/address " + kindCounts[0] + "/" +
            kindCounts[1] + "/" + kindCounts[2] + ", " + random + "\n  statuses: " + statuses);
        assertEquals(FRAMES, parser.counters().total());
        if (FRAMES >= 100_000)
        {
            assertTrue(reasonsSeen >= FrameStatus.COUNT - 2, "only " + reasonsSeen + " statuses seen: " + statuses);
        }
    }

    /** Quick comparison of everything the view exposes; {@link #assertSameView} says what differs. */
    private static boolean sameView(final ReferenceRoceFrameParser expected, final RoceFrameParser actual)
    {
        boolean same = expected.status() == actual.status() &&
            expected.buffer() == actual.buffer() &&
            expected.frameOffset() == actual.frameOffset() &&
            expected.capturedLength() == actual.capturedLength() &&
            expected.etherType() == actual.etherType() &&
            expected.ipVersion() == actual.ipVersion() &&
            expected.ipOffset() == actual.ipOffset() &&
            expected.ipHeaderLength() == actual.ipHeaderLength() &&
            expected.udpOffset() == actual.udpOffset() &&
            expected.bthOffset() == actual.bthOffset() &&
            expected.opcode() == actual.opcode() &&
            expected.payloadOffset() == actual.payloadOffset() &&
            expected.payloadLength() == actual.payloadLength() &&
            expected.padCount() == actual.padCount() &&
            expected.icrcOffset() == actual.icrcOffset() &&
            expected.icrcVerified() == actual.icrcVerified() &&
            expected.computedIcrc() == actual.computedIcrc();
        final HeaderFlyweight[] e = flyweights(expected);
        final HeaderFlyweight[] a = flyweights(actual);
        for (int i = 0; i < e.length; i++)
        {
            same &= e[i].buffer() == a[i].buffer() && e[i].offset() == a[i].offset();
        }
        for (final ExtHeader header : ExtHeader.values())
        {
            same &= expected.extOffset(header) == actual.extOffset(header);
        }
        return same;
    }

    private static void assertSameView(
        final ReferenceRoceFrameParser expected, final RoceFrameParser actual, final String frame)
    {
        assertSame(expected.status(), actual.status(), "status of " + frame);
        assertSame(expected.buffer(), actual.buffer(), "buffer of " + frame);
        assertEquals(expected.frameOffset(), actual.frameOffset(), "frameOffset of " + frame);
        assertEquals(expected.capturedLength(), actual.capturedLength(), "capturedLength of " + frame);
        assertEquals(expected.etherType(), actual.etherType(), "etherType of " + frame);
        assertEquals(expected.ipVersion(), actual.ipVersion(), "ipVersion of " + frame);
        assertEquals(expected.ipOffset(), actual.ipOffset(), "ipOffset of " + frame);
        assertEquals(expected.ipHeaderLength(), actual.ipHeaderLength(), "ipHeaderLength of " + frame);
        assertEquals(expected.udpOffset(), actual.udpOffset(), "udpOffset of " + frame);
        assertEquals(expected.bthOffset(), actual.bthOffset(), "bthOffset of " + frame);
        assertSame(expected.opcode(), actual.opcode(), "opcode of " + frame);
        assertEquals(expected.payloadOffset(), actual.payloadOffset(), "payloadOffset of " + frame);
        assertEquals(expected.payloadLength(), actual.payloadLength(), "payloadLength of " + frame);
        assertEquals(expected.padCount(), actual.padCount(), "padCount of " + frame);
        assertEquals(expected.icrcOffset(), actual.icrcOffset(), "icrcOffset of " + frame);
        assertEquals(expected.icrcVerified(), actual.icrcVerified(), "icrcVerified of " + frame);
        assertEquals(expected.computedIcrc(), actual.computedIcrc(), "computedIcrc of " + frame);
        final HeaderFlyweight[] e = flyweights(expected);
        final HeaderFlyweight[] a = flyweights(actual);
        for (int i = 0; i < e.length; i++)
        {
            final String name = e[i].getClass().getSimpleName();
            assertSame(e[i].buffer(), a[i].buffer(), name + " buffer of " + frame);
            assertEquals(e[i].offset(), a[i].offset(), name + " offset of " + frame);
        }
        for (final ExtHeader header : ExtHeader.values())
        {
            assertEquals(expected.extOffset(header), actual.extOffset(header), header + " offset of " + frame);
        }
    }

    private static HeaderFlyweight[] flyweights(final ReferenceRoceFrameParser parser)
    {
        return new HeaderFlyweight[] {parser.ethernet(), parser.ipv4(), parser.ipv6(), parser.udp(), parser.bth(),
            parser.reth(), parser.aeth(), parser.atomicEth(), parser.atomicAckEth(), parser.deth(), parser.immDt(),
            parser.ieth(), parser.feth(), parser.cnp()};
    }

    private static HeaderFlyweight[] flyweights(final RoceFrameParser parser)
    {
        return new HeaderFlyweight[] {parser.ethernet(), parser.ipv4(), parser.ipv6(), parser.udp(), parser.bth(),
            parser.reth(), parser.aeth(), parser.atomicEth(), parser.atomicAckEth(), parser.deth(), parser.immDt(),
            parser.ieth(), parser.feth(), parser.cnp()};
    }
}
