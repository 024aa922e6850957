package org.roce4j.transport.link.pcap;

import java.util.ArrayList;
import java.util.List;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.roce4j.wire.header.Ipv4Header;

import static java.nio.ByteOrder.BIG_ENDIAN;
import static org.junit.jupiter.api.Assertions.assertEquals;

class NeighbourTableTest
{
    private static final long SECOND_NS = 1_000_000_000L;
    private static final int PEER = Ipv4Header.parseAddress("10.0.0.2");
    private static final int OTHER = Ipv4Header.parseAddress("10.0.0.3");
    private static final long PEER_MAC = 0x02_00_00_00_00_22L;

    private final List<Integer> requests = new ArrayList<>();
    private final List<String> sent = new ArrayList<>();
    private final List<String> drops = new ArrayList<>();
    private final NeighbourTable table = new NeighbourTable(4, 6, 128, SECOND_NS, 3, 8, new NeighbourTable.Actions()
    {
        public void sendArpRequest(final int ipv4)
        {
            requests.add(ipv4);
        }

        public void sendResolved(final UnsafeBuffer frame, final int length)
        {
            final long mac = ((frame.getShort(0, BIG_ENDIAN) & 0xFFFFL) << 32) | (frame.getInt(2, BIG_ENDIAN) & 0xFFFF_FFFFL);
            sent.add(Long.toHexString(mac) + "#" + frame.getByte(20) + "/" + length);
        }

        public void dropped(final int ipv4, final int frames, final boolean failed)
        {
            drops.add(Ipv4Header.addressToString(ipv4) + ":" + frames + (failed ? ":failed" : ":overflow"));
        }
    });
    private final UnsafeBuffer frame = new UnsafeBuffer(new byte[128]);

    private void enqueue(final int peer, final int number, final long nowNs)
    {
        frame.putByte(20, (byte)number);
        table.enqueue(peer, frame, 0, 60 + number, nowNs);
    }

    @Test
    void queuesUntilTheReplyThenSendsInOrderWithTheMac()
    {
        enqueue(PEER, 1, 0);
        enqueue(PEER, 2, 10);
        assertEquals(List.of(PEER), requests, "one request at once, none for the second frame");
        assertEquals(NeighbourState.INCOMPLETE, table.state(PEER));
        assertEquals(NeighbourTable.NO_MAC, table.lookup(PEER));
        assertEquals(2, table.queuedFrames());

        table.learn(PEER, PEER_MAC, false);
        assertEquals(List.of("20000000022#1/61", "20000000022#2/62"), sent);
        assertEquals(NeighbourState.REACHABLE, table.state(PEER));
        assertEquals(PEER_MAC, table.lookup(PEER));
        assertEquals(0, table.queuedFrames());
        assertEquals(0, table.resolvingCount());
    }

    @Test
    void retriesEverySecondThenFailsAndDropsTheQueue()
    {
        enqueue(PEER, 1, 0);
        enqueue(PEER, 2, 0);
        table.onTimer(SECOND_NS - 1);
        assertEquals(1, requests.size(), "no retry before a second");
        table.onTimer(SECOND_NS);
        table.onTimer(2 * SECOND_NS);
        assertEquals(3, requests.size(), "three requests in all");
        assertEquals(NeighbourState.INCOMPLETE, table.state(PEER));
        table.onTimer(3 * SECOND_NS);
        assertEquals(NeighbourState.FAILED, table.state(PEER));
        assertEquals(List.of("10.0.0.2:2:failed"), drops);
        assertEquals(0, table.queuedFrames(), "slots returned to the pool");
        assertEquals(List.of(), sent);

        enqueue(PEER, 3, 10 * SECOND_NS);
        assertEquals(4, requests.size(), "a new frame starts a new round");
        assertEquals(NeighbourState.INCOMPLETE, table.state(PEER));
    }

    @Test
    void dropsTheOldestWhenAPeersQueueIsFull()
    {
        for (int i = 1; i <= 6; i++)
        {
            enqueue(PEER, i, 0);
        }
        assertEquals(List.of("10.0.0.2:1:overflow", "10.0.0.2:1:overflow"), drops);
        table.learn(PEER, PEER_MAC, false);
        assertEquals(List.of("20000000022#3/63", "20000000022#4/64", "20000000022#5/65", "20000000022#6/66"), sent);
    }

    @Test
    void sharesThePoolAcrossPeers()
    {
        for (int i = 1; i <= 4; i++)
        {
            enqueue(PEER, i, 0);
        }
        enqueue(OTHER, 5, 0);
        enqueue(OTHER, 6, 0);
        assertEquals(6, table.queuedFrames(), "pool full");
        enqueue(OTHER, 7, 0);
        assertEquals(List.of("10.0.0.3:1:overflow"), drops, "the other peer's oldest frame made room");
        table.learn(OTHER, PEER_MAC, false);
        assertEquals(List.of("20000000022#6/66", "20000000022#7/67"), sent);
    }

    @Test
    void learnsUnknownPeersOnlyWhenAskedTo()
    {
        table.learn(PEER, PEER_MAC, false);
        assertEquals(NeighbourState.UNKNOWN, table.state(PEER), "an unsolicited reply adds nothing");
        table.learn(PEER, PEER_MAC, true);
        assertEquals(NeighbourState.REACHABLE, table.state(PEER), "a request addressed to us adds its sender");
        table.learn(PEER, PEER_MAC + 1, false);
        assertEquals(PEER_MAC + 1, table.lookup(PEER), "gratuitous ARP updates a known peer");
    }

    @Test
    void resolvesAheadOfTraffic()
    {
        table.resolve(PEER, 0);
        table.resolve(PEER, 5);
        assertEquals(List.of(PEER), requests, "one request, no duplicate round");
        table.learn(PEER, PEER_MAC, false);
        table.resolve(PEER, 10);
        assertEquals(1, requests.size(), "nothing to do for a reachable peer");
        assertEquals(List.of(), sent);
    }
}
