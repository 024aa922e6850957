package org.roce4j.bench.baseline;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Aeron peer's plumbing over IPC and UDP: a ping-pong and a stream through an embedded driver whose agents back
 * off (not busy-spin: the build shares its cores), each with the shortest window. What is asserted holds whatever
 * the speed: at least one round trip recorded, every pong the ping it answers, every published message received
 * once and in sequence. Speed is not asserted.
 */
class AeronPeerTest
{
    private static AeronPeer peer;

    @BeforeAll
    static void launch()
    {
        peer = new AeronPeer(AeronPeer.Threading.SHARED, false);
    }

    @AfterAll
    static void close()
    {
        peer.close();
    }

    @ParameterizedTest
    @EnumSource(AeronPeer.Medium.class)
    void pingPongRecordsRoundTripsWhosePongsMatchTheirPings(final AeronPeer.Medium medium)
    {
        final AeronPeer.RoundTrips rtt = peer.roundTrips(medium, 64, 0, 1);

        assertTrue(rtt.histogram().getTotalCount() >= 1, "at least one round trip is recorded");
        assertTrue(rtt.histogram().getMaxValue() > 0, "a round trip takes time");
        assertEquals(0, rtt.mismatches(), "pongs out of sequence");
    }

    @ParameterizedTest
    @EnumSource(AeronPeer.Medium.class)
    void streamDeliversEveryMessageOnceInSequence(final AeronPeer.Medium medium)
    {
        final AeronPeer.Throughput stream = peer.throughput(medium, 4096, 0, 1);

        assertTrue(stream.sent() >= 2, "one message at least in the warm-up and in the window: " + stream.sent());
        assertEquals(stream.sent(), stream.received(), "every message published arrives once the run drained");
        assertEquals(0, stream.sequenceErrors(), "messages out of sequence");
        assertTrue(stream.windowMessages() >= 0 && stream.windowMessages() <= stream.received());
    }

    @ParameterizedTest
    @EnumSource(AeronPeer.Medium.class)
    void messagesThatNeedFragmentsAreRefusedByName(final AeronPeer.Medium medium)
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> peer.roundTrips(medium, AeronPeer.MAX_MESSAGE_BYTES + 1, 0, 1));
        assertTrue(ex.getMessage().contains("unfragmented"), ex.getMessage());
    }
}
