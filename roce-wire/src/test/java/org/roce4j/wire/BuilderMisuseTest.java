package org.roce4j.wire;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Calling the builder's steps out of order, or with bad arguments, throws an exception whose message names the
 * step or the problem; the builder stays usable afterwards.
 */
class BuilderMisuseTest
{
    private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[70_000]);
    private final RoceFrameBuilder builder = new RoceFrameBuilder();

    @Test
    void stepsOutOfOrderNameTheStep()
    {
        assertState(() -> builder.ethernet(1, 2), "ethernet() must follow wrap()");
        assertState(() -> builder.finish(), "finish() needs bth() first");

        builder.wrap(buffer, 0);
        assertState(() -> builder.ipv4(1, 2), "ipv4/ipv6() must follow ethernet(); last step was wrap");
        assertState(() -> builder.udp(1), "udp() must follow ipv4/ipv6(); last step was wrap");
        assertState(() -> builder.bth(Opcode.RC_SEND_ONLY, 1, 1), "bth() must follow udp(); last step was wrap");
        assertState(() -> builder.payloadLength(0), "payload comes right after bth(); last step was wrap");
        assertState(() -> builder.finish(), "finish() needs bth() first; last step was wrap");

        builder.ethernet(1, 2);
        assertState(() -> builder.ethernet(1, 2), "ethernet() must follow wrap(); last step was ethernet");
        assertState(() -> builder.udp(1), "udp() must follow ipv4/ipv6(); last step was ethernet");
        builder.ipv6(0, 1, 0, 2);
        assertState(() -> builder.ipv4(1, 2), "ipv4/ipv6() must follow ethernet(); last step was ipv4/ipv6");
        assertState(() -> builder.bth(Opcode.RC_SEND_ONLY, 1, 1), "bth() must follow udp(); last step was ipv4/ipv6");
        builder.udp(0xC000);
        builder.bth(Opcode.RC_SEND_ONLY, 1, 1);
        builder.payloadLength(3);
        assertState(() -> builder.payloadLength(3), "payload comes right after bth(); last step was payload");
        assertState(() -> builder.udp(1), "udp() must follow ipv4/ipv6(); last step was payload");
        assertEquals(14 + 40 + 8 + 12 + 4 + 4, builder.finish());
        assertState(() -> builder.finish(), "finish() needs bth() first; last step was finish");
        assertState(() -> builder.reth(), "RETH is set between bth() and finish()");

        // Usable again after every failure.
        assertEquals(62, builder.wrap(buffer, 0).ethernet(1, 2).ipv4(1, 2).udp(3).bth(Opcode.RC_ACKNOWLEDGE, 1, 1)
            .finish());
    }

    @Test
    void headerAccessorsOutsideTheirStepsNameTheHeader()
    {
        builder.wrap(buffer, 0);
        assertState(() -> builder.ipv4Header(), "no IPv4 header in this frame yet");
        assertState(() -> builder.ipv6Header(), "no IPv6 header in this frame yet");
        assertState(() -> builder.udpHeader(), "no UDP header in this frame yet");
        assertState(() -> builder.bthHeader(), "no BTH in this frame yet");
        builder.ethernet(1, 2).ipv4(1, 2);
        assertState(() -> builder.ipv6Header(), "no IPv6 header in this frame yet");
        assertState(() -> builder.aeth(), "AETH is set between bth() and finish()");
        builder.udp(1).bth(Opcode.RC_SEND_ONLY, 1, 1);
        assertState(() -> builder.reth(), "opcode RC_SEND_ONLY has no RETH");
        assertState(() -> builder.aeth(), "opcode RC_SEND_ONLY has no AETH");
        assertState(() -> builder.atomicEth(), "opcode RC_SEND_ONLY has no ATOMIC_ETH");
        assertState(() -> builder.atomicAckEth(), "opcode RC_SEND_ONLY has no ATOMIC_ACK_ETH");
        assertState(() -> builder.deth(), "opcode RC_SEND_ONLY has no DETH");
        assertState(() -> builder.immDt(), "opcode RC_SEND_ONLY has no IMM_DT");
        assertState(() -> builder.ieth(), "opcode RC_SEND_ONLY has no IETH");
        assertState(() -> builder.feth(), "opcode RC_SEND_ONLY has no FETH");
        assertState(() -> builder.cnp(), "opcode RC_SEND_ONLY has no CNP_RESERVED");
    }

    @Test
    void badArgumentsNameTheProblem()
    {
        builder.wrap(buffer, 0).ethernet(1, 2).ipv4(1, 2).udp(3);
        assertArgument(() -> builder.bth(null, 1, 1), "bth() needs an opcode, got null");
        builder.bth(Opcode.RC_ACKNOWLEDGE, 1, 1);
        assertArgument(() -> builder.payloadLength(4), "opcode RC_ACKNOWLEDGE carries no payload, got 4 bytes");
        assertArgument(() -> builder.payload(buffer, 0, 1), "opcode RC_ACKNOWLEDGE carries no payload, got 1 bytes");
        builder.payloadLength(0);
        builder.finish();

        builder.wrap(buffer, 0).ethernet(1, 2).ipv4(1, 2).udp(3).bth(Opcode.RC_SEND_ONLY, 1, 1);
        assertArgument(() -> builder.payloadLength(-1), "payload length must be >= 0, got -1");
        // IPv4 total length is 16 bits: 20 + 8 + 12 + payload + pad + 4 <= 65535. 65489 bytes need 3 pad bytes.
        assertArgument(() -> builder.payloadLength(65_489), "makes the IPv4 length 65536, more than 65535");
        builder.payloadLength(65_488);
        assertEquals(14 + 65_532, builder.finish());

        builder.wrap(buffer, 0).ethernet(1, 2).ipv6(0, 1, 0, 2).udp(3).bth(Opcode.UD_SEND_ONLY, 1, 1);
        // IPv6 payload length is 16 bits: 8 + 12 + 8 + payload + pad + 4 <= 65535.
        assertArgument(() -> builder.payloadLength(65_504), "makes the IPv6 length 65536, more than 65535");
        assertArgument(() -> builder.payloadLength(65_501), "makes the IPv6 length 65536, more than 65535");
        builder.payloadLength(65_500);
        assertEquals(14 + 40 + 65_532, builder.finish());
    }

    private static void assertState(final Executable call, final String message)
    {
        final IllegalStateException ex = assertThrows(IllegalStateException.class, call);
        assertTrue(ex.getMessage().contains(message), () -> "message '" + ex.getMessage() + "' lacks '" +
            message + "'");
    }

    private static void assertArgument(final Executable call, final String message)
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, call);
        assertTrue(ex.getMessage().contains(message), () -> "message '" + ex.getMessage() + "' lacks '" +
            message + "'");
    }
}
