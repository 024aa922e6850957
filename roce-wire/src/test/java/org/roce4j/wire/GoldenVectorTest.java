package org.roce4j.wire;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.roce4j.wire.header.Ipv4Header;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Real rxe captures: every RoCEv2 frame parses, verifies its ICRC and re-encodes byte-identical from its parsed
 * fields; in the NEGATIVE capture exactly the frames of the peer at 10.77.0.1 fail the ICRC.
 */
class GoldenVectorTest
{
    private static final int USERSPACE_PEER = Ipv4Header.parseAddress("10.77.0.1");

    @ParameterizedTest
    @ValueSource(strings = {Vectors.RXE_PAIR, Vectors.RXE_VS_PEER, Vectors.RPING_REQ})
    void everyRoceFrameParsesVerifiesAndReencodesByteIdentical(final String capture)
    {
        final RoceFrameParser parser = new RoceFrameParser();
        final FrameReencoder reencoder = new FrameReencoder();
        final UnsafeBuffer rebuilt = new UnsafeBuffer(new byte[16384]);
        int roce = 0;
        for (final byte[] frame : Vectors.frames(capture))
        {
            final FrameStatus status = parser.parse(new UnsafeBuffer(frame), 0, frame.length);
            if (status.isNotRoce())
            {
                continue;
            }
            roce++;
            assertEquals(FrameStatus.OK, status, () -> capture + " frame " + parser.opcode());
            final int length = reencoder.reencode(parser, rebuilt, 0);
            assertEquals(parser.frameLength(), length);
            final byte[] expected = java.util.Arrays.copyOf(frame, parser.frameLength());
            final byte[] actual = new byte[length];
            rebuilt.getBytes(0, actual);
            assertArrayEquals(expected, actual, () -> capture + ": re-encoded " + parser.opcode() + " differs");
        }
        assertTrue(roce > 0, "no RoCEv2 frames in " + capture);
        assertEquals(roce, parser.counters().get(FrameStatus.OK));
    }

    @Test
    void rxePairCaptureHasEveryOpcodeFamilyTheReadmeLists()
    {
        final RoceFrameParser parser = new RoceFrameParser();
        final Map<Opcode, Integer> seen = new EnumMap<>(Opcode.class);
        int roce = 0;
        for (final byte[] frame : Vectors.frames(Vectors.RXE_PAIR))
        {
            if (FrameStatus.OK == parser.parse(new UnsafeBuffer(frame), 0, frame.length))
            {
                roce++;
                seen.merge(parser.opcode(), 1, Integer::sum);
            }
        }
        assertEquals(222, roce, "the vectors README says 222 RoCEv2 frames");
        for (final Opcode expected : List.of(
            Opcode.RC_SEND_FIRST, Opcode.RC_SEND_MIDDLE, Opcode.RC_SEND_LAST, Opcode.RC_SEND_ONLY,
            Opcode.RC_RDMA_WRITE_FIRST, Opcode.RC_RDMA_WRITE_LAST, Opcode.RC_RDMA_WRITE_ONLY,
            Opcode.RC_RDMA_READ_REQUEST, Opcode.RC_RDMA_READ_RESPONSE_FIRST, Opcode.RC_RDMA_READ_RESPONSE_LAST,
            Opcode.RC_RDMA_READ_RESPONSE_ONLY, Opcode.RC_COMPARE_SWAP, Opcode.RC_FETCH_ADD,
            Opcode.RC_ATOMIC_ACKNOWLEDGE, Opcode.RC_ACKNOWLEDGE, Opcode.UC_SEND_ONLY, Opcode.UD_SEND_ONLY))
        {
            assertTrue(seen.containsKey(expected), "capture lacks " + expected + "; saw " + seen);
        }
    }

    @Test
    void negativeCaptureFailsExactlyThePeersFrames()
    {
        final RoceFrameParser parser = new RoceFrameParser();
        int peerFrames = 0;
        int rxeFrames = 0;
        for (final byte[] frame : Vectors.frames(Vectors.NEGATIVE_IPID))
        {
            final FrameStatus status = parser.parse(new UnsafeBuffer(frame), 0, frame.length);
            if (status.isNotRoce())
            {
                continue;
            }
            if (USERSPACE_PEER == parser.ipv4().source())
            {
                peerFrames++;
                assertEquals(FrameStatus.BAD_ICRC, status, "a peer frame passed the ICRC");
            }
            else
            {
                rxeFrames++;
                assertEquals(FrameStatus.OK, status, "an rxe frame failed");
            }
        }
        assertTrue(peerFrames > 0 && rxeFrames > 0, "peer=" + peerFrames + " rxe=" + rxeFrames);
        assertEquals(peerFrames, parser.counters().get(FrameStatus.BAD_ICRC));
        assertEquals(rxeFrames, parser.counters().get(FrameStatus.OK));
    }
}
