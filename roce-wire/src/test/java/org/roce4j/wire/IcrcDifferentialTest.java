package org.roce4j.wire;

import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.util.Arrays;

import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.roce4j.wire.test.Hex;
import org.roce4j.wire.test.Seeded;
import org.roce4j.wire.test.SeededRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Icrc} (a 4-byte seed folded from the masked bytes by tables, then one CRC32 over the packet in place) against
 * {@link ReferenceIcrc} (the literal definition: a masked copy of the headers, then CRC32 over it and the rest), over
 * random bytes rather than well-formed frames, so that every masked byte takes every value: both IP versions, every
 * IPv4 header length from 20 to 60 bytes (options move the UDP and BTH masks), lengths from the shortest the
 * headers allow to beyond the raw-address copy chunk, held in heap, direct and raw-address memory, computed in one
 * call and staged.
 */
@Seeded
class IcrcDifferentialTest
{
    private static final int CASES = 200_000;
    /** Longest packet: more than two of Icrc's 4160-byte raw-address chunks. */
    private static final int MAX_PACKET_BYTES = 9000;
    private static final int MAX_IP_OFFSET = 22;
    private static final int BUFFER_BYTES = MAX_IP_OFFSET + MAX_PACKET_BYTES + 64;

    @Test
    void tableDrivenIcrcEqualsTheMaskedCopyDefinition(final SeededRandom random)
    {
        final Icrc icrc = new Icrc();
        final ReferenceIcrc reference = new ReferenceIcrc();
        final byte[] heapBytes = new byte[BUFFER_BYTES];
        final ByteBuffer direct = BufferUtil.allocateDirectAligned(BUFFER_BYTES, 64);
        final UnsafeBuffer heap = new UnsafeBuffer(heapBytes);
        final UnsafeBuffer overDirect = new UnsafeBuffer(direct);
        final UnsafeBuffer overAddress = new UnsafeBuffer(BufferUtil.address(direct), BUFFER_BYTES);
        final UnsafeBuffer[] kinds = {heap, overDirect, overAddress};
        final int[] sizeCounts = new int[3];

        for (int n = 0; n < CASES; n++)
        {
            final int ipVersion = random.nextBoolean() ? 4 : 6;
            final int ipHeaderLength = 4 == ipVersion ? 20 + 4 * (0 == random.nextInt(4) ? random.nextInt(11) : 0) : 40;
            final int ipOffset = random.pick(14, 18, random.nextInt(MAX_IP_OFFSET + 1));
            final int headers = ipHeaderLength + 8 + 12;
            final int sizeClass = random.nextInt(3);
            sizeCounts[sizeClass]++;
            final int covered = headers + (0 == sizeClass ? random.nextInt(64) :
                1 == sizeClass ? random.nextInt(4096) : random.nextInt(MAX_PACKET_BYTES - headers));
            final int icrcOffset = ipOffset + covered;
            fill(heapBytes, icrcOffset + 4, random);
            // Now and then the masked bytes take the values that matter most: all ones (masked to themselves), zero.
            if (0 == random.nextInt(8))
            {
                final byte value = random.nextBoolean() ? (byte)0xFF : 0;
                for (int i = 0; i < headers; i++)
                {
                    heapBytes[ipOffset + i] = value;
                }
            }
            overDirect.putBytes(0, heapBytes, 0, icrcOffset + 4);

            final int expected = reference.compute(heap, ipOffset, ipVersion, ipHeaderLength, icrcOffset);
            for (final UnsafeBuffer buffer : kinds)
            {
                final int computed = icrc.compute(buffer, ipOffset, ipVersion, ipHeaderLength, icrcOffset);
                icrc.stageHeaders(buffer, ipOffset, ipVersion, ipHeaderLength);
                final int staged = icrc.computeStaged(buffer, icrcOffset);
                if (expected != computed || expected != staged)
                {
                    assertEquals(Integer.toHexString(expected), Integer.toHexString(computed) + "/" +
                        Integer.toHexString(staged), "case " + n + ", " + describe(buffer) + ", IPv" + ipVersion +
                        ", IP header " + ipHeaderLength + " B at " + ipOffset + ", ICRC at " + icrcOffset + ": " +
                        Hex.of(Arrays.copyOfRange(heapBytes, ipOffset, ipOffset + headers)));
                }
            }
        }
        Reference.reachabilityFence(direct);
        for (final int count : sizeCounts)
        {
            assertTrue(count > CASES / 4, "every size class is covered");
        }
    }

    @Test
    void headerLengthOutsideTheIpRangeIsAnApiError()
    {
        final Icrc icrc = new Icrc();
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[256]);
        final IllegalArgumentException tooShort =
            assertThrows(IllegalArgumentException.class, () -> icrc.compute(buffer, 0, 4, 16, 100));
        assertTrue(tooShort.getMessage().contains("16"), tooShort.getMessage());
        final IllegalArgumentException tooLong =
            assertThrows(IllegalArgumentException.class, () -> icrc.stageHeaders(buffer, 0, 4, 64));
        assertTrue(tooLong.getMessage().contains("64"), tooLong.getMessage());
    }

    @Test
    void computeInBetweenDiscardsTheStaging()
    {
        final Icrc icrc = new Icrc();
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[256]);
        icrc.stageHeaders(buffer, 0, 4, 20);
        icrc.compute(buffer, 0, 4, 20, 100);
        assertThrows(IllegalStateException.class, () -> icrc.computeStaged(buffer, 100));
    }

    private static void fill(final byte[] bytes, final int length, final SeededRandom random)
    {
        for (int i = 0; i < length; i += 8)
        {
            long bits = random.nextLong();
            for (int j = i; j < Math.min(i + 8, length); j++)
            {
                bytes[j] = (byte)bits;
                bits >>>= 8;
            }
        }
    }

    private static String describe(final UnsafeBuffer buffer)
    {
        return null != buffer.byteArray() ? "heap" : null != buffer.byteBuffer() ? "direct" : "raw address";
    }
}
