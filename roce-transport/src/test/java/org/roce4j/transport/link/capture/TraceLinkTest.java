package org.roce4j.transport.link.capture;

import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.link.TestFrames;
import org.roce4j.transport.link.memory.MemoryFabric;
import org.roce4j.transport.link.memory.MemoryLink;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameBuilder;
import org.roce4j.wire.header.AethHeader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The trace decorator's lines: one per frame as it crosses, with the time, the direction and roce-wire's decoded
 * summary (addresses, opcode, QPN, PSN, AckReq, AETH, length, ICRC status).
 */
class TraceLinkTest
{
    private static final LinkAddress A = TestFrames.address(1);
    private static final LinkAddress B = TestFrames.address(2);

    @Test
    void printsOneDecodedLinePerFrameEachWay()
    {
        final CachedNanoClock clock = new CachedNanoClock();
        final StringBuilder out = new StringBuilder();
        try (MemoryFabric fabric = MemoryFabric.builder().clock(clock).build())
        {
            final MemoryLink b = fabric.attach(B, 1500);
            final TraceLink a = new TraceLink(fabric.attach(A, 1500), out, clock);
            final UnsafeBuffer frame = new UnsafeBuffer(new byte[2048]);
            final RoceFrameBuilder builder = new RoceFrameBuilder();
            builder.wrap(frame, 0).ethernet(0, A.mac()).ipv4(A.ipv4(), B.ipv4()).udp(0xC011)
                .bth(Opcode.RC_SEND_ONLY, 0x12, 4214562);
            builder.bthHeader().ackReq(true);
            builder.payload(new UnsafeBuffer(new byte[64]), 0, 64);
            clock.advance(412_000);
            a.send(frame, 0, builder.finish());
            builder.wrap(frame, 0).ethernet(0, B.mac()).ipv4(B.ipv4(), A.ipv4()).udp(0xC012)
                .bth(Opcode.RC_ACKNOWLEDGE, 0x11, 4214562);
            builder.aeth().syndrome(AethHeader.SYNDROME_ACK_UNLIMITED).msn(1);
            b.send(frame, 0, builder.finish());
            clock.advance(565_000);
            a.poll((buffer, offset, length) -> { }, 16);
            assertEquals(2, a.tracer().frames());
        }
        final String[] lines = out.toString().split("\n");
        assertEquals(2, lines.length, out::toString);
        assertEquals("    0.000412 tx 10.0.0.1:49169 -> 10.0.0.2 RC_SEND_ONLY qp=0x000012 psn=4214562 ackreq len=64 " +
            "icrc=ok", lines[0]);
        assertTrue(lines[1].startsWith("    0.000977 rx 10.0.0.2:49170 -> 10.0.0.1 RC_ACKNOWLEDGE qp=0x000011 " +
            "psn=4214562"), lines[1]);
        assertTrue(lines[1].contains("msn=1") && lines[1].endsWith("icrc=ok"), lines[1]);
    }

    @Test
    void framesOfALinkThatCannotCheckIcrcsSaySo()
    {
        final StringBuilder out = new StringBuilder();
        final FrameTracer tracer = new FrameTracer(out, new CachedNanoClock(), false);
        final UnsafeBuffer frame = new UnsafeBuffer(new byte[2048]);
        final int length = new TestFrames().ipv4(frame, 0, A, B, Opcode.UD_SEND_ONLY, 0x11, 1, 8);
        frame.putInt(length - 4, 0x12345678);
        tracer.onFrame(false, false, frame, 0, length);
        tracer.onFrame(true, false, frame, 0, length);
        final String[] lines = out.toString().split("\n");
        assertTrue(lines[0].endsWith("icrc=unverified"), lines[0]);
        assertTrue(lines[1].contains("icrc=BAD"), "sent frames are checked: " + lines[1]);
    }
}
