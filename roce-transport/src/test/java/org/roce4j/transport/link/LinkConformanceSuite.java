package org.roce4j.transport.link;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.roce4j.wire.addr.Gid;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * What every real {@link Link} must do, run against each medium by a subclass: two links that reach each other
 * ({@link #openFirst()}, {@link #openSecond()}), fresh for every test.
 *
 * <p>Checked: order of 1,000 frames each way; a burst of 10,000 frames sent without the receiver draining in
 * between (nothing lost, or, where the medium may drop under a burst, every loss counted and the order kept); the
 * largest frame (IB MTU 4096 payload plus headers); frames to many QPs from many UDP source ports; close and reopen
 * on the same address; bad configurations failing with clear messages; and the counters agreeing with what was
 * sent and received (frames sent = frames received + counted receive drops).
 *
 * <p>Bad configurations: every subclass either shows each {@link Misconfiguration} failing with a clear message or
 * names, in {@link #inapplicableMisconfigurations()}, why its medium cannot have it (a link bound to an address
 * has no interface to misname); the suite checks that each is covered one way or the other and prints the reasons,
 * so nothing is skipped silently.
 */
public abstract class LinkConformanceSuite
{
    /** Frames in the ordering test. */
    protected static final int ORDERED_FRAMES = 1_000;
    /** Frames in the burst test. */
    protected static final int BURST_FRAMES = 10_000;
    /** Frames (and QPs) in the many-QP test. */
    protected static final int QP_COUNT = 1_000;
    /** Payload of ordinary test frames. */
    protected static final int SMALL_PAYLOAD = 64;
    /** The largest RoCEv2 payload: IB MTU 4096. */
    protected static final int LARGEST_PAYLOAD = 4096;
    /** Frames in flight at most in the ordering tests. */
    protected static final int WINDOW = 64;
    /** First UDP source port used (rxe's RXE_ROCE_V2_SPORT, 0xC000). */
    protected static final int FIRST_SOURCE_PORT = 0xC000;

    /**
     * The bad configurations every link is checked for (issue 6: unknown interface, address not local, port in
     * use), plus {@link #OTHER} for the medium's own ones.
     */
    public enum Misconfiguration
    {
        /** An interface name that does not exist. */
        UNKNOWN_INTERFACE,
        /** An address the link would need to own but this machine (or medium) does not have. */
        ADDRESS_NOT_LOCAL,
        /** An address and port (or the medium's equivalent) already held by another open link. */
        PORT_IN_USE,
        /** Anything else the medium refuses (bad option, bad MTU, ...). */
        OTHER
    }

    /** The misconfigurations each subclass must show refused or explain away. */
    private static final Set<Misconfiguration> REQUIRED = EnumSet.of(
        Misconfiguration.UNKNOWN_INTERFACE, Misconfiguration.ADDRESS_NOT_LOCAL, Misconfiguration.PORT_IN_USE);

    /**
     * A configuration that must fail, and how.
     *
     * @param kind            which misconfiguration it is.
     * @param description     for the failure message.
     * @param open            tries to open the link.
     * @param type            the exception expected.
     * @param messageFragment text the exception's message must contain.
     */
    public record BadConfiguration(
        Misconfiguration kind,
        String description,
        Executable open,
        Class<? extends Throwable> type,
        String messageFragment)
    {
    }

    private final LinkTestFrames frames = LinkTestFrames.create();
    private Link first;
    private Link second;

    /**
     * @return a new link; frames sent to {@link #openSecond()}'s address reach it.
     */
    protected abstract Link openFirst();

    /**
     * @return a new link reachable from {@link #openFirst()}.
     */
    protected abstract Link openSecond();

    /**
     * @return configurations that must be refused (unknown interface, address not local, port in use, ...).
     */
    protected abstract List<BadConfiguration> badConfigurations();

    /**
     * @return for each required {@link Misconfiguration} this medium cannot have, why not; the others must appear
     *     in {@link #badConfigurations()}.
     */
    protected abstract Map<Misconfiguration, String> inapplicableMisconfigurations();

    /**
     * @return true to run every case over IPv6 (the links' first IPv6 addresses) instead of IPv4.
     */
    protected boolean ipv6()
    {
        return false;
    }

    /**
     * @param link one of the two links.
     * @return the address frames to it go to: its first IPv6 address, or its primary IPv4 address (IPv4-mapped).
     */
    protected final Gid ip(final Link link)
    {
        return ipv6() ? link.address().primaryIpv6() : Gid.ofIpv4(link.address().ipv4());
    }

    /**
     * @param sender   the sending link.
     * @param sentPort the UDP source port the frame was built with.
     * @return the source port the receiver will see (a kernel socket replaces it with its bound port).
     */
    protected int sourcePortOnArrival(final Link sender, final int sentPort)
    {
        return sentPort;
    }

    /**
     * Make two fresh links ready for traffic (a link that resolves peers by ARP resolves them here). Called after
     * every open and reopen.
     *
     * @param first  one link.
     * @param second the other.
     */
    protected void prepare(final Link first, final Link second)
    {
    }

    /**
     * @return true when the medium may drop frames under a burst (then losses must be counted, order kept).
     */
    protected boolean mediumMayDropUnderBurst()
    {
        return false;
    }

    @BeforeEach
    void openLinks()
    {
        first = openFirst();
        second = openSecond();
        prepare(first, second);
    }

    @AfterEach
    void closeLinks()
    {
        if (null != first)
        {
            first.close();
        }
        if (null != second)
        {
            second.close();
        }
    }

    @Test
    void deliversAThousandFramesInOrderEachWay()
    {
        exchangeInOrder(first, second, ORDERED_FRAMES, SMALL_PAYLOAD);
        exchangeInOrder(second, first, ORDERED_FRAMES, SMALL_PAYLOAD);
    }

    @Test
    void burstOfTenThousandFramesIsDeliveredOrCountedInOrder()
    {
        final LinkTestFrames.Collector collector = new LinkTestFrames.Collector(BURST_FRAMES, second.verifiesIcrc());
        for (int i = 0; i < BURST_FRAMES; i++)
        {
            // The receiver is polled only when the sender has no room: a burst, not a ping-pong.
            frames.send(first, second, collector, ip(second), i, 1, FIRST_SOURCE_PORT, SMALL_PAYLOAD);
        }
        first.flush();
        assertEquals(BURST_FRAMES, first.counters().get(LinkCounter.FRAMES_SENT), "frames sent");
        assertEquals(0, first.counters().get(LinkCounter.SEND_ERRORS), "send errors");

        LinkTestFrames.pollUntil(second, collector, first,
            () -> collector.count() + second.counters().get(LinkCounter.RECEIVE_ERRORS) >= BURST_FRAMES,
            "the burst to arrive or be counted as dropped");
        final long dropped = second.counters().get(LinkCounter.RECEIVE_ERRORS);
        System.out.println(second.name() + ": burst of " + BURST_FRAMES + " frames, " + dropped + " counted drops");
        assertEquals(BURST_FRAMES, collector.count() + dropped, "sent = received + counted drops");
        if (!mediumMayDropUnderBurst())
        {
            assertEquals(0, dropped, "frames dropped on an unloaded medium");
        }
        assertEquals(0, collector.badStatus(), "frames that did not parse: first " + collector.firstBadStatus());
        assertEquals(0, collector.badPayload(), "damaged payloads");
        for (int i = 1; i < collector.count(); i++)
        {
            if (collector.sequence(i) <= collector.sequence(i - 1))
            {
                fail("order broken at " + i + ": " + collector.sequence(i - 1) + " then " + collector.sequence(i));
            }
        }
        assertCountersConsistent(first, second, collector);
    }

    @Test
    void carriesTheLargestFrame()
    {
        final int count = 50;
        final LinkTestFrames.Collector collector = new LinkTestFrames.Collector(count, second.verifiesIcrc());
        for (int i = 0; i < count; i++)
        {
            frames.send(first, second, collector, ip(second), i, 7, FIRST_SOURCE_PORT, LARGEST_PAYLOAD);
        }
        first.flush();
        LinkTestFrames.pollUntil(second, collector, first, () -> collector.count() == count,
            count + " largest frames");
        assertEquals(0, collector.badStatus(), "frames that did not parse: first " + collector.firstBadStatus());
        assertEquals(0, collector.badPayload(), "damaged payloads");
        for (int i = 0; i < count; i++)
        {
            assertEquals(LARGEST_PAYLOAD, collector.payloadLength(i), "payload length of frame " + i);
            assertEquals(i, collector.sequence(i), "order");
        }
    }

    @Test
    void reachesManyQpsFromManySourcePorts()
    {
        final LinkTestFrames.Collector collector = new LinkTestFrames.Collector(QP_COUNT, second.verifiesIcrc());
        for (int i = 0; i < QP_COUNT; i++)
        {
            frames.send(first, second, collector, ip(second), i, 0x100 + i * 17, FIRST_SOURCE_PORT + (i & 0x3FFF),
                SMALL_PAYLOAD);
            if (15 == (i & 15))
            {
                first.flush();
                keepWithinWindow(first, second, collector, i + 1);
            }
        }
        first.flush();
        LinkTestFrames.pollUntil(second, collector, first, () -> collector.count() == QP_COUNT,
            QP_COUNT + " frames");
        assertEquals(0, collector.badStatus(), "frames that did not parse: first " + collector.firstBadStatus());
        for (int i = 0; i < QP_COUNT; i++)
        {
            final int sent = (int)collector.sequence(i);
            assertEquals(i, sent, "order");
            assertEquals(0x100 + sent * 17, collector.destQp(i), "destination QP of frame " + sent);
            assertEquals(sourcePortOnArrival(first, FIRST_SOURCE_PORT + (sent & 0x3FFF)), collector.sourcePort(i),
                "UDP source port of frame " + sent);
            assertEquals(ip(first), collector.sourceIp(i), "IP source of frame " + sent);
            assertEquals(ip(second), collector.destinationIp(i), "IP destination of frame " + sent);
        }
    }

    @Test
    void closesAndReopensOnTheSameAddress()
    {
        final LinkAddress before = second.address();
        second.close();
        second.close();
        second = openSecond();
        prepare(first, second);
        assertEquals(before.ips(), second.address().ips(), "same addresses after reopening");
        exchangeInOrder(first, second, 10, SMALL_PAYLOAD);
        exchangeInOrder(second, first, 10, SMALL_PAYLOAD);

        first.close();
        first = openFirst();
        prepare(first, second);
        exchangeInOrder(first, second, 10, SMALL_PAYLOAD);
    }

    @Test
    void refusesBadConfigurationsWithClearMessages()
    {
        final List<BadConfiguration> cases = badConfigurations();
        assertTrue(cases.size() >= 2, "a medium has at least two bad configurations to check");
        final Map<Misconfiguration, String> inapplicable = inapplicableMisconfigurations();
        final List<String> problems = new ArrayList<>();
        for (final Misconfiguration kind : REQUIRED)
        {
            final boolean shown = cases.stream().anyMatch(bad -> kind == bad.kind());
            final String reason = inapplicable.get(kind);
            if (shown == (null != reason))
            {
                problems.add(kind + ": " + (shown ? "both checked and declared inapplicable" :
                    "neither checked nor declared inapplicable with a reason"));
            }
            else if (null != reason)
            {
                assertTrue(reason.length() > 20, kind + " needs a real reason, got '" + reason + "'");
                System.out.println(first.name() + ": " + kind + " does not apply: " + reason);
            }
        }
        for (final Misconfiguration kind : inapplicable.keySet())
        {
            if (!REQUIRED.contains(kind))
            {
                problems.add(kind + " cannot be declared inapplicable");
            }
        }
        for (final BadConfiguration bad : cases)
        {
            final Throwable thrown = assertThrows(bad.type(), bad.open(), bad.description());
            final String message = String.valueOf(thrown.getMessage());
            if (!message.contains(bad.messageFragment()))
            {
                problems.add(bad.description() + ": message '" + message + "' lacks '" + bad.messageFragment() + "'");
            }
        }
        assertEquals(List.of(), problems);
    }

    @Test
    void rejectsClaimsBeyondWhatTheLinkCarries()
    {
        assertThrows(IllegalArgumentException.class, () -> first.tryClaim(first.mtu() + 1_000));
        assertThrows(IllegalArgumentException.class, () -> first.tryClaim(0));
        final int index = first.tryClaim(100);
        assertTrue(index >= 0, "room on an idle link");
        first.abort(index);
        assertEquals(0, first.flush(), "an aborted claim sends nothing");
        assertEquals(0, first.counters().get(LinkCounter.FRAMES_SENT), "nothing sent");
    }

    /**
     * Send frames one way, interleaving flushes and polls, and check order, addresses and counters.
     *
     * @param from          sender.
     * @param to            receiver.
     * @param count         frames.
     * @param payloadLength payload bytes per frame.
     */
    protected final void exchangeInOrder(final Link from, final Link to, final int count, final int payloadLength)
    {
        final long sentBefore = from.counters().get(LinkCounter.FRAMES_SENT);
        final long receivedBefore = to.counters().get(LinkCounter.FRAMES_RECEIVED);
        final LinkTestFrames.Collector collector = new LinkTestFrames.Collector(count, to.verifiesIcrc());
        for (int i = 0; i < count; i++)
        {
            frames.send(from, to, collector, ip(to), i, 3, FIRST_SOURCE_PORT, payloadLength);
            if (7 == (i & 7))
            {
                from.flush();
                keepWithinWindow(from, to, collector, i + 1);
            }
        }
        from.flush();
        LinkTestFrames.pollUntil(to, collector, from, () -> collector.count() == count,
            count + " frames from " + from.name());
        assertEquals(0, collector.badStatus(), "frames that did not parse: first " + collector.firstBadStatus());
        assertEquals(0, collector.badPayload(), "damaged payloads");
        for (int i = 0; i < count; i++)
        {
            assertEquals(i, collector.sequence(i), "frame order");
            assertEquals(ip(from), collector.sourceIp(i), "IP source");
            assertEquals(ip(to), collector.destinationIp(i), "IP destination");
        }
        if (ipv6() && to.verifiesIcrc())
        {
            assertEquals(0, collector.classOrFlowChanged(), "IPv6 frames keep their traffic class and flow label");
        }
        else if (ipv6())
        {
            // The kernel writes the header from the socket (flow label 0 as rxe; the udp link's synthetic header).
            assertEquals(0, collector.nonZeroFlowLabels(), "IPv6 frames through the kernel carry flow label 0");
        }
        assertEquals(count, from.counters().get(LinkCounter.FRAMES_SENT) - sentBefore, "FRAMES_SENT");
        assertEquals(count, to.counters().get(LinkCounter.FRAMES_RECEIVED) - receivedBefore, "FRAMES_RECEIVED");
    }

    /**
     * Let at most {@link #WINDOW} frames be in flight: the ordering tests are not burst tests (a veth's receive
     * backlog, netdev_max_backlog, is 1,000 frames and a loaded machine may not drain it between sends).
     */
    private static void keepWithinWindow(
        final Link from, final Link to, final LinkTestFrames.Collector collector, final int sent)
    {
        LinkTestFrames.pollUntil(to, collector, from, () -> sent - collector.count() <= WINDOW,
            "the receiver to get within " + WINDOW + " frames of the sender");
    }

    private static void assertCountersConsistent(
        final Link from, final Link to, final LinkTestFrames.Collector collector)
    {
        final LinkCounters sent = from.counters();
        final LinkCounters received = to.counters();
        assertEquals(collector.count(), received.get(LinkCounter.FRAMES_RECEIVED), "FRAMES_RECEIVED");
        assertEquals(sent.get(LinkCounter.FRAMES_SENT),
            received.get(LinkCounter.FRAMES_RECEIVED) + received.get(LinkCounter.RECEIVE_ERRORS),
            "sent = received + counted drops");
        final long frameLength = sent.get(LinkCounter.BYTES_SENT) / sent.get(LinkCounter.FRAMES_SENT);
        assertEquals(sent.get(LinkCounter.FRAMES_SENT) * frameLength, sent.get(LinkCounter.BYTES_SENT),
            "BYTES_SENT of equal frames");
        assertEquals(received.get(LinkCounter.FRAMES_RECEIVED) * frameLength, received.get(LinkCounter.BYTES_RECEIVED),
            "BYTES_RECEIVED of equal frames");
        if (!to.verifiesIcrc())
        {
            assertEquals(received.get(LinkCounter.FRAMES_RECEIVED), received.get(LinkCounter.RECEIVE_UNVERIFIED),
                "every frame of a link that cannot verify ICRCs is counted unverified");
        }
    }
}
