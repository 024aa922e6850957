package org.roce4j.wire;

import java.lang.ref.Reference;
import java.nio.ByteBuffer;

import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The ICRC comes out the same whichever way the memory is held (byte[], direct ByteBuffer, raw address) and
 * whether it is computed in one call or staged in two, for real rxe frames and for a jumbo frame longer than the
 * copy chunk used for raw-address buffers.
 */
class IcrcMemoryKindsTest
{
    /** Payload of the jumbo frame: larger than Icrc's raw-address chunk (4160 bytes), so it takes several. */
    private static final int JUMBO_PAYLOAD_BYTES = 9000;

    @Test
    void everyGoldenFrameHasTheSameIcrcOverHeapDirectAndRawAddressMemory()
    {
        final RoceFrameParser parser = new RoceFrameParser();
        final Icrc icrc = new Icrc();
        int checked = 0;
        for (final String capture : new String[] {Vectors.RXE_PAIR, Vectors.RXE_VS_PEER, Vectors.RPING_REQ})
        {
            for (final byte[] frame : Vectors.frames(capture))
            {
                if (FrameStatus.OK != parser.parse(new UnsafeBuffer(frame), 0, frame.length))
                {
                    continue;
                }
                assertSameIcrcEverywhere(icrc, parser, frame, frame.length);
                checked++;
            }
        }
        assertTrue(checked > 200, "expected the golden captures' RoCEv2 frames, checked " + checked);
    }

    @Test
    void jumboFrameOverRawAddressTakesSeveralChunksAndStillMatches()
    {
        final UnsafeBuffer payload = new UnsafeBuffer(new byte[JUMBO_PAYLOAD_BYTES]);
        for (int i = 0; i < JUMBO_PAYLOAD_BYTES; i++)
        {
            payload.putByte(i, (byte)(i * 7 + 3));
        }
        final UnsafeBuffer heap = new UnsafeBuffer(new byte[16384]);
        final RoceFrameBuilder builder = new RoceFrameBuilder();
        builder.wrap(heap, 0).ethernet(0x020000000002L, 0x020000000001L).ipv4(0x0A000001, 0x0A000002).udp(0xC000)
            .bth(Opcode.RC_SEND_ONLY, 0x11, 0x22);
        final int length = builder.payload(payload, 0, JUMBO_PAYLOAD_BYTES).finish();
        final byte[] frame = new byte[length];
        heap.getBytes(0, frame);

        final RoceFrameParser parser = new RoceFrameParser();
        assertEquals(FrameStatus.OK, parser.parse(new UnsafeBuffer(frame), 0, length));
        assertSameIcrcEverywhere(new Icrc(), parser, frame, length);
    }

    @Test
    void computeStagedWithoutStagingIsAnError()
    {
        final Icrc icrc = new Icrc();
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);
        final IllegalStateException error =
            assertThrows(IllegalStateException.class, () -> icrc.computeStaged(buffer, 60));
        assertTrue(error.getMessage().contains("stageHeaders"), error.getMessage());
    }

    private static void assertSameIcrcEverywhere(
        final Icrc icrc, final RoceFrameParser parser, final byte[] frame, final int length)
    {
        final int ipOffset = parser.ipOffset();
        final int ipVersion = parser.ipVersion();
        final int ipHeaderLength = parser.ipHeaderLength();
        final int icrcOffset = parser.icrcOffset();
        final int carried = parser.carriedIcrc();

        final ByteBuffer direct = BufferUtil.allocateDirectAligned(length + 64, 64);
        final UnsafeBuffer overDirect = new UnsafeBuffer(direct);
        overDirect.putBytes(0, frame, 0, length);
        final UnsafeBuffer overAddress = new UnsafeBuffer(BufferUtil.address(direct), length);
        final UnsafeBuffer overHeap = new UnsafeBuffer(frame);

        for (final UnsafeBuffer buffer : new UnsafeBuffer[] {overHeap, overDirect, overAddress})
        {
            assertEquals(carried, icrc.compute(buffer, ipOffset, ipVersion, ipHeaderLength, icrcOffset));
            icrc.stageHeaders(buffer, ipOffset, ipVersion, ipHeaderLength);
            assertEquals(carried, icrc.computeStaged(buffer, icrcOffset));
        }
        // The raw-address view does not keep the direct memory alive by itself.
        Reference.reachabilityFence(direct);
    }
}
