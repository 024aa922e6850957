package org.roce4j.wire;

import java.util.Arrays;
import java.util.List;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.roce4j.wire.decode.FrameDecoder;
import org.roce4j.wire.header.FethHeader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * rxe's FLUSH ICRC ({@link Icrc#computeRxeFlush}) against frames captured from rxe on Linux 6.12
 * ({@code vectors/rxe612-flush-icrc.pcap}, recorded by PyverbsWithRxeTest): rxe's own FLUSH and its retransmission
 * carry it, roce4j's standard FLUSH (which that rxe dropped) does not; the parser names it, accepts it only when
 * asked, and the builder can seal with it.
 */
class RxeFlushIcrcTest
{
    /** The capture: rxe's WRITE, roce4j's ACK, rxe's FLUSH, its retransmission (VA 0), roce4j's FLUSH. */
    private static final List<byte[]> FRAMES = Vectors.frames("rxe612-flush-icrc.pcap");
    private static final int RXE_WRITE = 0;
    private static final int RXE_FLUSH = 2;
    private static final int RXE_FLUSH_RETRANSMITTED = 3;
    private static final int ROCE4J_FLUSH = 4;

    @Test
    void rxesFlushesCarryItsIcrcAndAreBadIcrcUnlessAccepted()
    {
        for (final int index : new int[] {RXE_FLUSH, RXE_FLUSH_RETRANSMITTED})
        {
            final byte[] frame = FRAMES.get(index);
            final RoceFrameParser parser = new RoceFrameParser();
            assertEquals(FrameStatus.BAD_ICRC, parser.parse(new UnsafeBuffer(frame), 0, frame.length),
                "frame " + index);
            assertEquals(Opcode.RC_FLUSH, parser.opcode());
            assertTrue(parser.rxeFlushIcrc(), "frame " + index + " carries rxe's FLUSH ICRC");

            parser.acceptRxeFlushIcrc(true);
            assertEquals(FrameStatus.OK, parser.parse(new UnsafeBuffer(frame), 0, frame.length), "frame " + index);
            assertTrue(parser.rxeFlushIcrc());
            assertEquals(FethHeader.PLACEMENT_GLOBAL, parser.feth().placementType());
        }
    }

    @Test
    void standardFramesAreNotFlaggedAndAcceptingRxesIcrcChangesNothingForThem()
    {
        for (final int index : new int[] {RXE_WRITE, ROCE4J_FLUSH})
        {
            final byte[] frame = FRAMES.get(index);
            final RoceFrameParser parser = new RoceFrameParser().acceptRxeFlushIcrc(true);
            assertEquals(FrameStatus.OK, parser.parse(new UnsafeBuffer(frame), 0, frame.length), "frame " + index);
            assertFalse(parser.rxeFlushIcrc(), "frame " + index);
        }
    }

    @Test
    void aFlushWithAnIcrcThatIsNeitherIsStillBad()
    {
        final byte[] frame = FRAMES.get(RXE_FLUSH).clone();
        frame[frame.length - 1] ^= 0x01;
        final RoceFrameParser parser = new RoceFrameParser().acceptRxeFlushIcrc(true);
        assertEquals(FrameStatus.BAD_ICRC, parser.parse(new UnsafeBuffer(frame), 0, frame.length));
        assertFalse(parser.rxeFlushIcrc());
    }

    @Test
    void theBuilderSealsFlushesWithRxesIcrcWhenAskedAndNothingElse()
    {
        // Rebuild rxe's FLUSH from its own fields: sealed the rxe way it is byte for byte what rxe sent.
        final byte[] captured = FRAMES.get(RXE_FLUSH);
        final RoceFrameParser parser = new RoceFrameParser().acceptRxeFlushIcrc(true);
        assertEquals(FrameStatus.OK, parser.parse(new UnsafeBuffer(captured), 0, captured.length));
        final byte[] rebuilt = new byte[captured.length];
        System.arraycopy(captured, 0, rebuilt, 0, captured.length - Icrc.LENGTH);
        final UnsafeBuffer buffer = new UnsafeBuffer(rebuilt);
        final Icrc icrc = new Icrc();
        Icrc.write(buffer, parser.icrcOffset(), icrc.computeRxeFlush(buffer, parser.ipOffset(), 4,
            parser.ipHeaderLength(), parser.icrcOffset(), parser.bthOffset()));
        assertEquals(Arrays.toString(captured), Arrays.toString(rebuilt));

        for (final Opcode opcode : new Opcode[] {Opcode.RC_FLUSH, Opcode.RC_RDMA_WRITE_ONLY})
        {
            final byte[] standard = build(opcode, false);
            final byte[] rxe = build(opcode, true);
            final RoceFrameParser strict = new RoceFrameParser();
            assertEquals(FrameStatus.OK, strict.parse(new UnsafeBuffer(standard), 0, standard.length), opcode.name());
            if (Opcode.RC_FLUSH == opcode)
            {
                assertNotEquals(Icrc.read(new UnsafeBuffer(standard), standard.length - Icrc.LENGTH),
                    Icrc.read(new UnsafeBuffer(rxe), rxe.length - Icrc.LENGTH));
                assertEquals(FrameStatus.BAD_ICRC, strict.parse(new UnsafeBuffer(rxe), 0, rxe.length));
                assertTrue(strict.rxeFlushIcrc());
            }
            else
            {
                assertEquals(Arrays.toString(standard), Arrays.toString(rxe), "only FLUSH changes");
            }
        }
    }

    @Test
    void theDecoderNamesRxesFlushIcrc()
    {
        final StringBuilder out = new StringBuilder();
        final FrameDecoder decoder = new FrameDecoder(out).summary(true);
        final byte[] frame = FRAMES.get(RXE_FLUSH);
        decoder.decode(1, FrameDecoder.NO_TIMESTAMP, new UnsafeBuffer(frame), 0, frame.length, frame.length);
        final StringBuilder verbose = new StringBuilder();
        new FrameDecoder(verbose).decode(1, FrameDecoder.NO_TIMESTAMP, new UnsafeBuffer(frame), 0, frame.length,
            frame.length);
        assertTrue(verbose.toString().contains("[rxe's FLUSH ICRC: the headers counted twice"), verbose.toString());
        assertTrue(out.toString().contains("icrc=BAD(should be 0x8ed48f37; rxe's FLUSH ICRC)"), out.toString());
    }

    private static byte[] build(final Opcode opcode, final boolean rxeIcrc)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[256]);
        final RoceFrameBuilder builder = new RoceFrameBuilder().rxeFlushIcrc(rxeIcrc).wrap(buffer, 0)
            .ethernet(0x0200_0a4d_0001L, 0x5254_004d_0002L).ipv4(0x0a4d_0002, 0x0a4d_0001).udp(0xC0DE)
            .bth(opcode, 0x11, 0x1234);
        builder.reth().va(0x1000).rkey(0x324).dmaLength(64);
        if (Opcode.RC_FLUSH == opcode)
        {
            builder.feth().flush(FethHeader.SELECTIVITY_RANGE, FethHeader.PLACEMENT_GLOBAL);
        }
        else
        {
            builder.payloadLength(64);
        }
        final int length = builder.finish();
        final byte[] frame = new byte[length];
        buffer.getBytes(0, frame);
        return frame;
    }
}
