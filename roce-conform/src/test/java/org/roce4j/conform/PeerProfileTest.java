package org.roce4j.conform;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;
import org.roce4j.conform.catalogue.Catalogue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The profiles are tables: each is checked whole, every entry names a scenario of the catalogue and cites its source.
 */
class PeerProfileTest
{
    /** Words one of which every ConnectX entry's source contains. */
    private static final List<String> CONNECTX_SOURCES = List.of("mlx5 ", "NVIDIA", "Lumina");

    @Test
    void everyEntryNamesAScenarioOfTheCatalogue()
    {
        final Set<String> names = new TreeSet<>();
        Catalogue.all().forEach(scenario -> names.add(scenario.name()));
        for (final PeerProfile profile : PeerProfile.values())
        {
            assertTrue(names.containsAll(profile.deviating()), profile + " deviations " + profile.deviating());
            assertTrue(names.containsAll(profile.described()), profile + " behaviours " + profile.described());
        }
    }

    @Test
    void theConnectxProfileHoldsOnlySourcedEntries()
    {
        final PeerProfile connectx = PeerProfile.CONNECTX;
        assertEquals(Set.of("requester.lost-ack-retransmit"), connectx.deviating(),
            "adaptive retransmission is its one sourced departure");
        assertEquals(new TreeSet<>(List.of("congestion.ce-marked-gets-cnp", "requester.retry-exhausted",
            "requester.lost-ack-retransmit", "requester.nak-sequence-go-back-n", "requester.implied-nak-read",
            "responder.psn-sequence-error", "responder.duplicate-write", "responder.duplicate-send",
            "responder.bad-icrc-dropped")), connectx.described());
        for (final String scenario : connectx.described())
        {
            final String text = connectx.behaviour(scenario);
            assertTrue(CONNECTX_SOURCES.stream().anyMatch(text::contains), scenario + " cites no source: " + text);
        }
        assertTrue(connectx.deviation("requester.lost-ack-retransmit").contains("NVIDIA, Adaptive Retransmission"));
        assertNull(connectx.deviation("congestion.ce-marked-gets-cnp"), "a notification point: no deviation");
        assertNull(connectx.deviation("requester.retry-exhausted"), "7 retries are 7, not rxe's forever");
    }

    @Test
    void rxeAndNoneDescribeNoBehaviours()
    {
        assertEquals(Set.of(), PeerProfile.NONE.deviating());
        assertEquals(Set.of(), PeerProfile.NONE.described());
        assertEquals(Set.of(), PeerProfile.RXE.described());
        assertEquals(Set.of("requester.ghost-ack-ignored", "requester.retry-exhausted",
            "responder.send-longer-than-receive", "congestion.ce-marked-gets-cnp"), PeerProfile.RXE.deviating());
    }
}
