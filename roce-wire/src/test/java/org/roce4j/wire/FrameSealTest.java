package org.roce4j.wire;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.roce4j.wire.header.BthHeader;
import org.roce4j.wire.header.EthernetHeader;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.header.UdpHeader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link FrameSeal} and {@link Icrc#seal}: after a mutation of covered fields the resealed frame parses OK again,
 * with the mutation in place; a frame that does not parse is refused.
 */
class FrameSealTest
{
    /** Offset of the BTH in an untagged IPv4 frame: Ethernet, IPv4 and UDP headers. */
    private static final int BTH = EthernetHeader.LENGTH + Ipv4Header.LENGTH + UdpHeader.LENGTH;

    @Test
    void aMutatedFrameParsesAgainWithTheMutationAfterResealing()
    {
        for (final int ipVersion : new int[] {4, 6})
        {
            final byte[] frame = FrameStatusTest.frame(Opcode.RC_SEND_ONLY, ipVersion, false, 16);
            final RoceFrameParser parser = new RoceFrameParser();
            final UnsafeBuffer buffer = new UnsafeBuffer(frame);
            assertEquals(FrameStatus.OK, parser.parse(buffer, 0, frame.length));
            parser.bth().destQp(0x42);
            assertEquals(FrameStatus.BAD_ICRC, parser.parse(buffer, 0, frame.length), "IPv" + ipVersion);

            assertSame(frame, FrameSeal.reseal(frame));

            assertEquals(FrameStatus.OK, parser.parse(buffer, 0, frame.length), "IPv" + ipVersion);
            assertEquals(0x42, parser.bth().destQp());
        }
    }

    @Test
    void anInstanceResealsAFrameInsideALargerBufferAndReturnsTheValueWritten()
    {
        final byte[] frame = FrameStatusTest.frame(Opcode.RC_SEND_ONLY, 4, false, 0);
        final int offset = 10;
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[offset + frame.length + 10]);
        buffer.putBytes(offset, frame);
        buffer.putByte(offset + BTH + BthHeader.LENGTH - 1, (byte)7);

        final int icrc = new FrameSeal().resealFrame(buffer, offset, frame.length);

        final RoceFrameParser parser = new RoceFrameParser();
        assertEquals(FrameStatus.OK, parser.parse(buffer, offset, frame.length));
        assertEquals(icrc, Icrc.read(buffer, parser.icrcOffset()));
        assertEquals(icrc, parser.computedIcrc());
    }

    @Test
    void aFrameThatDoesNotParseIsRefused()
    {
        final byte[] frame = FrameStatusTest.frame(Opcode.RC_SEND_ONLY, 4, false, 0);
        // TCP instead of UDP: not a RoCEv2 frame.
        frame[EthernetHeader.LENGTH + Ipv4Header.PROTOCOL_OFFSET] = 6;

        final IllegalArgumentException thrown =
            assertThrows(IllegalArgumentException.class, () -> FrameSeal.reseal(frame));
        assertTrue(thrown.getMessage().startsWith("cannot reseal a frame that does not parse: "),
            thrown.getMessage());
    }
}
