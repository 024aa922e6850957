package org.roce4j.transport.link.ethernet;

import java.util.ArrayList;
import java.util.List;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.addr.Mac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The neighbour table's states (UNKNOWN, INCOMPLETE, REACHABLE, FAILED) for IPv4 and IPv6 keys, its retries on the
 * given clock, its shared hold pool and the order held frames leave in.
 */
class NeighbourTableTest
{
    private static final long SECOND_NS = 1_000_000_000L;
    private static final Gid PEER = Gid.parse("10.0.0.2");
    private static final Gid OTHER = Gid.parse("10.0.0.3");
    private static final Gid PEER6 = Gid.parse("fd00:77::2");
    private static final long PEER_MAC = 0x02_00_00_00_00_22L;

    private final List<Gid> requests = new ArrayList<>();
    private final List<String> sent = new ArrayList<>();
    private final List<String> drops = new ArrayList<>();
    private boolean mediumFull;
    private final NeighbourTable table = new NeighbourTable(new NeighbourPolicy(3, 1000, 6, 4), 128,
        new NeighbourTable.Listener()
        {
            public void solicit(final long high, final long low)
            {
                requests.add(new Gid(high, low));
            }

            public boolean transmitHeld(final UnsafeBuffer frame, final int offset, final int length)
            {
                if (mediumFull)
                {
                    return false;
                }
                sent.add(Long.toHexString(Mac.read(frame, offset)) + "#" + frame.getByte(offset + 20) + "/" + length);
                return true;
            }

            public void dropped(final long high, final long low, final int frames, final boolean failed)
            {
                drops.add(new Gid(high, low) + ":" + frames + (failed ? ":failed" : ":overflow"));
            }
        });
    private final UnsafeBuffer frame = new UnsafeBuffer(new byte[128]);

    private boolean hold(final Gid peer, final int number, final long nowNs)
    {
        frame.putByte(20, (byte)number);
        final boolean held = table.hold(peer.high(), peer.low(), frame, 0, 60 + number, nowNs);
        table.service(nowNs);
        return held;
    }

    @Test
    void holdsUntilTheAnswerThenSendsInOrderWithTheMac()
    {
        assertEquals(NeighbourState.UNKNOWN, table.state(PEER.high(), PEER.low()));
        assertTrue(hold(PEER, 1, 0));
        assertTrue(hold(PEER, 2, 10));
        assertEquals(List.of(PEER), requests, "one request at once, none for the second frame");
        assertEquals(NeighbourState.INCOMPLETE, table.state(PEER.high(), PEER.low()));
        assertEquals(Mac.NONE, table.lookup(PEER.high(), PEER.low()));
        assertEquals(2, table.heldFrames());

        assertTrue(table.learn(PEER.high(), PEER.low(), PEER_MAC, false));
        assertEquals(List.of("20000000022#1/61", "20000000022#2/62"), sent);
        assertEquals(NeighbourState.REACHABLE, table.state(PEER.high(), PEER.low()));
        assertEquals(PEER_MAC, table.lookup(PEER.high(), PEER.low()));
        assertEquals(0, table.heldFrames());
        assertEquals(0, table.resolvingCount());
    }

    @Test
    void ipv6NeighboursLiveInTheSameTable()
    {
        assertTrue(hold(PEER6, 1, 0));
        assertTrue(hold(PEER, 2, 0));
        assertEquals(List.of(PEER6, PEER), requests, "one solicitation, one ARP request");
        table.learn(PEER6.high(), PEER6.low(), PEER_MAC + 6, false);
        assertEquals(List.of("20000000028#1/61"), sent, "only the IPv6 neighbour's frame left");
        assertEquals(NeighbourState.INCOMPLETE, table.state(PEER.high(), PEER.low()));
        assertEquals(PEER_MAC + 6, table.lookup(PEER6.high(), PEER6.low()));
    }

    @Test
    void retriesOnTheIntervalThenFailsAndDropsWhatWaited()
    {
        hold(PEER, 1, 0);
        hold(PEER, 2, 0);
        table.service(SECOND_NS - 1);
        assertEquals(1, requests.size(), "no retry before the interval");
        table.service(SECOND_NS);
        table.service(2 * SECOND_NS);
        assertEquals(3, requests.size(), "three requests in all");
        assertEquals(NeighbourState.INCOMPLETE, table.state(PEER.high(), PEER.low()));
        table.service(3 * SECOND_NS);
        assertEquals(NeighbourState.FAILED, table.state(PEER.high(), PEER.low()));
        assertEquals(List.of("::ffff:10.0.0.2:2:failed"), drops);
        assertEquals(0, table.heldFrames(), "slots returned to the pool");
        assertEquals(List.of(), sent);

        hold(PEER, 3, 10 * SECOND_NS);
        assertEquals(4, requests.size(), "a new frame starts a new round");
        assertEquals(NeighbourState.INCOMPLETE, table.state(PEER.high(), PEER.low()));
    }

    @Test
    void aFullPoolDropsTheNeighboursOldestFrameForItsNewest()
    {
        for (int i = 1; i <= 4; i++)
        {
            hold(PEER, i, 0);
        }
        hold(OTHER, 5, 0);
        hold(OTHER, 6, 0);
        assertEquals(6, table.heldFrames(), "pool full");
        assertTrue(hold(OTHER, 7, 0));
        assertEquals(List.of("::ffff:10.0.0.3:1:overflow"), drops, "the other peer's oldest frame made room");
        table.learn(OTHER.high(), OTHER.low(), PEER_MAC, false);
        assertEquals(List.of("20000000022#6/66", "20000000022#7/67"), sent);
        final Gid third = Gid.parse("10.0.0.4");
        table.learn(PEER.high(), PEER.low(), PEER_MAC, false);
        for (int i = 0; i < 6; i++)
        {
            hold(third, 10 + i, 0);
        }
        mediumFull = true;
        assertFalse(hold(Gid.parse("10.0.0.5"), 30, 0), "a neighbour with nothing held gets no room in a full pool");
    }

    @Test
    void framesWaitBehindHeldOnesWhenTheMediumPushesBack()
    {
        hold(PEER, 1, 0);
        mediumFull = true;
        table.learn(PEER.high(), PEER.low(), PEER_MAC, false);
        assertEquals(List.of(), sent, "the medium took nothing");
        assertEquals(Mac.NONE, table.lookup(PEER.high(), PEER.low()), "a newer frame must wait behind the held one");
        assertEquals(PEER_MAC, table.learntMac(PEER.high(), PEER.low()));
        hold(PEER, 2, 0);
        mediumFull = false;
        table.service(0);
        assertEquals(List.of("20000000022#1/61", "20000000022#2/62"), sent, "in order once the medium takes them");
        assertEquals(PEER_MAC, table.lookup(PEER.high(), PEER.low()));
    }

    @Test
    void learnsUnknownNeighboursOnlyWhenAskedTo()
    {
        assertFalse(table.learn(PEER.high(), PEER.low(), PEER_MAC, false));
        assertEquals(NeighbourState.UNKNOWN, table.state(PEER.high(), PEER.low()),
            "an unsolicited answer adds nothing");
        assertTrue(table.learn(PEER.high(), PEER.low(), PEER_MAC, true));
        assertEquals(NeighbourState.REACHABLE, table.state(PEER.high(), PEER.low()),
            "a request for us adds its sender");
        table.learn(PEER.high(), PEER.low(), PEER_MAC + 1, false);
        assertEquals(PEER_MAC + 1, table.lookup(PEER.high(), PEER.low()), "a later announcement updates a known peer");
    }

    @Test
    void resolvesAheadOfTraffic()
    {
        table.resolve(PEER.high(), PEER.low(), 0);
        table.service(0);
        table.resolve(PEER.high(), PEER.low(), 5);
        table.service(5);
        assertEquals(List.of(PEER), requests, "one request, no duplicate round");
        table.learn(PEER.high(), PEER.low(), PEER_MAC, false);
        table.resolve(PEER.high(), PEER.low(), 10);
        table.service(10);
        assertEquals(1, requests.size(), "nothing to do for a reachable peer");
        assertEquals(List.of(), sent);
    }

    @Test
    void aFullTableReusesResolvedEntriesButNeverOnesThatHoldFrames()
    {
        for (int i = 1; i <= 4; i++)
        {
            final Gid peer = Gid.parse("10.0.1." + i);
            table.learn(peer.high(), peer.low(), PEER_MAC + i, true);
        }
        final Gid fifth = Gid.parse("10.0.1.5");
        assertTrue(hold(fifth, 1, 0), "a resolved entry made room");
        for (int i = 6; i <= 8; i++)
        {
            assertTrue(hold(Gid.parse("10.0.1." + i), i, 0));
        }
        assertFalse(hold(Gid.parse("10.0.1.9"), 9, 0), "every entry is resolving: no room");
    }
}
