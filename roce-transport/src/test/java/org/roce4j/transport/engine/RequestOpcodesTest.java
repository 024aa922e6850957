package org.roce4j.transport.engine;

import org.junit.jupiter.api.Test;
import org.roce4j.ib.WrOpcode;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.Operation;
import org.roce4j.wire.Position;
import org.roce4j.wire.Transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The requester's opcode table ({@link RequestOpcodes}, rxe next_opcode_rc / next_opcode_uc), checked whole against
 * the opcode table: every (transport, work request, place in the message) gives the opcode of that transport,
 * operation and position, with immediate data or an invalidate rkey exactly on the packet that ends a message of a
 * WR that carries one; FLUSH and ATOMIC_WRITE are RC only and one ONLY packet whatever the place (rxe
 * next_opcode_rc returns IB_OPCODE_RC_FLUSH / IB_OPCODE_RC_ATOMIC_WRITE); READ, atomics and UC SEND_WITH_INV have no
 * entry.
 */
final class RequestOpcodesTest
{
    private static final Position[] PLACES = {Position.FIRST, Position.MIDDLE, Position.LAST, Position.ONLY};

    @Test
    void everyEntryHasTheTransportOperationPositionAndTrailerOfItsWorkRequest()
    {
        int entries = 0;
        for (final boolean reliable : new boolean[] {true, false})
        {
            for (final WrOpcode op : WrOpcode.values())
            {
                final boolean singlePacket = WrOpcode.FLUSH == op || WrOpcode.ATOMIC_WRITE == op;
                final boolean offered = ((op.isSend() || op.isWrite()) && (reliable || WrOpcode.SEND_WITH_INV != op)) ||
                    (singlePacket && reliable);
                for (int place = RequestOpcodes.FIRST; place <= RequestOpcodes.ONLY; place++)
                {
                    final Opcode opcode = RequestOpcodes.next(reliable, op, place);
                    final String what = (reliable ? "RC " : "UC ") + op + " " + PLACES[place];
                    if (!offered)
                    {
                        assertNull(opcode, what);
                        continue;
                    }
                    assertNotNull(opcode, what);
                    entries++;
                    if (singlePacket)
                    {
                        assertEquals(WrOpcode.FLUSH == op ? Opcode.RC_FLUSH : Opcode.RC_ATOMIC_WRITE, opcode, what);
                        assertEquals(Position.ONLY, opcode.position(), what);
                        continue;
                    }
                    final Position position = PLACES[place];
                    assertEquals(reliable ? Transport.RC : Transport.UC, opcode.transport(), what);
                    assertEquals(op.isSend() ? Operation.SEND : Operation.RDMA_WRITE, opcode.operation(), what);
                    assertEquals(position, opcode.position(), what);
                    assertEquals(op.hasImmediate() && position.isEnd(), opcode.hasImmediate(), what);
                    assertEquals(WrOpcode.SEND_WITH_INV == op && position.isEnd(), opcode.hasInvalidate(), what);
                }
            }
        }
        // RC: SEND, SEND_WITH_IMM, SEND_WITH_INV, RDMA_WRITE, RDMA_WRITE_WITH_IMM, FLUSH, ATOMIC_WRITE; UC: the
        // first five but SEND_WITH_INV.
        assertEquals((7 + 4) * PLACES.length, entries);
    }
}
