package org.roce4j.cm.ib;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Predicate;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.mad.CmAttribute;
import org.roce4j.wire.mad.MadHeader;
import org.roce4j.wire.mad.RdmaCmServiceId;

/**
 * Two IB CMs wired back to back through a scripted wire on a simulated clock: every MAD each sends is queued,
 * recorded with its send time, and delivered (or dropped by a filter) when the test says so. Nothing runs unless
 * the test moves it, so every transition and timeout is deterministic.
 */
final class CmPair
{
    /** A's address (the active side in most tests). */
    static final int IP_A = Ipv4Header.parseAddress("10.77.0.2");
    /** B's address. */
    static final int IP_B = Ipv4Header.parseAddress("10.77.0.3");
    /** A's CA GUID. */
    static final long GUID_A = 0x5054_00FF_FE00_0002L;
    /** B's CA GUID. */
    static final long GUID_B = 0x5054_00FF_FE00_0003L;
    /** The TCP service of port 7174 (rping's default). */
    static final long SERVICE = RdmaCmServiceId.serviceId(RdmaCmServiceId.PS_TCP, 7174);
    /** Clock at start. */
    static final long START_NS = 1_000_000_000L;

    /** A MAD on the scripted wire. */
    record Mad(String from, MadAddress to, byte[] bytes, long sentNs)
    {
        CmAttribute attribute()
        {
            return CmAttribute.of(new MadHeader().wrap(new UnsafeBuffer(bytes), 0).attributeId());
        }

        long tid()
        {
            return new MadHeader().wrap(new UnsafeBuffer(bytes), 0).transactionId();
        }

        public String toString()
        {
            return from + " " + attribute().shortName() + " @" + (sentNs - START_NS) / 1_000_000 + "ms";
        }
    }

    /** Records every callback; optionally answers a REP with the RTU as rdma_cm does. */
    static final class Recorder implements CmHandler
    {
        final String name;
        final List<String> events = new ArrayList<>();
        IbCm cm;
        boolean autoRtu = true;

        Recorder(final String name)
        {
            this.name = name;
        }

        public void onReply(final CmConnection c)
        {
            events.add("reply");
            if (autoRtu)
            {
                cm.sendRtu(c, null);
            }
        }

        public void onEstablished(final CmConnection c)
        {
            events.add("established");
        }

        public void onRejected(final CmConnection c)
        {
            events.add("rejected " + c.rejectReason());
        }

        public void onTimeout(final CmConnection c, final CmState state)
        {
            events.add("timeout " + state);
        }

        public void onDisconnectRequest(final CmConnection c)
        {
            events.add("dreq");
        }

        public void onDisconnectReply(final CmConnection c)
        {
            events.add("drep");
        }

        public void onTimewaitExit(final CmConnection c)
        {
            events.add("timewait-exit");
        }

        public void onMra(final CmConnection c)
        {
            events.add("mra");
        }

        public void onSidrReply(final CmConnection c)
        {
            events.add("sidr-reply status " + c.sidrStatus() + " qpn 0x" + Integer.toHexString(c.remoteQpn()) +
                " qkey 0x" + Integer.toHexString(c.remoteQkey()));
        }
    }

    final CachedNanoClock clock = new CachedNanoClock();
    final CmCounters countersA = new CmCounters();
    final CmCounters countersB = new CmCounters();
    final IbCm a;
    final IbCm b;
    final Recorder recA = new Recorder("A");
    final Recorder recB = new Recorder("B");
    final List<Mad> trace = new ArrayList<>();
    final List<CmConnection> requests = new ArrayList<>();
    private final ArrayDeque<Mad> inFlight = new ArrayDeque<>();
    private Predicate<Mad> drop = mad -> false;
    int listenerVerdict = CmListener.PENDING;

    CmPair()
    {
        this(new CmConfig(), new Random(42), new Random(43));
    }

    CmPair(final CmConfig config, final Random randomA, final Random randomB)
    {
        clock.update(START_NS);
        a = new IbCm(port("A"), config, clock, CmIdSource.of(randomA), GUID_A,
            (high, low) -> 0 == high && MadAddress.ipv4(IP_A).gidLow() == low, countersA);
        b = new IbCm(port("B"), config, clock, CmIdSource.of(randomB), GUID_B,
            (high, low) -> 0 == high && MadAddress.ipv4(IP_B).gidLow() == low, countersB);
        recA.cm = a;
        recB.cm = b;
    }

    private MadPort port(final String name)
    {
        return (final MadAddress to, final DirectBuffer mad, final int offset) ->
        {
            final byte[] bytes = new byte[MadHeader.MAD_LENGTH];
            mad.getBytes(offset, bytes);
            final Mad sent = new Mad(name, to, bytes, clock.nanoTime());
            trace.add(sent);
            inFlight.addLast(sent);
            return true;
        };
    }

    /** B listens on {@link #SERVICE}; requests are kept in {@link #requests} with B's recorder as handler. */
    CmPair listenB()
    {
        b.listen(SERVICE, c ->
        {
            requests.add(c);
            c.handler(recB);
            return listenerVerdict;
        });
        return this;
    }

    /** A connects to B with rping's values. */
    CmConnection connectA()
    {
        return a.connect(request(), recA, MadAddress.ipv4(IP_B));
    }

    static CmRequestParams request()
    {
        return new CmRequestParams().serviceId(SERVICE).localQpn(0x15).startingPsn(0xC19AA7).pathMtu(3)
            .responderResources(1).initiatorDepth(1).retryCount(7).rnrRetryCount(7)
            .localGid(0, MadAddress.ipv4(IP_A).gidLow()).remoteGid(0, MadAddress.ipv4(IP_B).gidLow())
            .flowLabel(0x9F424).hopLimit(64);
    }

    static CmReplyParams reply()
    {
        return new CmReplyParams().localQpn(0x13).startingPsn(0x1DBB70).responderResources(1).initiatorDepth(1)
            .rnrRetryCount(7);
    }

    void dropWhen(final Predicate<Mad> filter)
    {
        this.drop = filter;
    }

    /**
     * Deliver every MAD in flight (and those their delivery causes) not dropped by the filter.
     */
    void deliver()
    {
        Mad mad;
        while (null != (mad = inFlight.pollFirst()))
        {
            if (drop.test(mad))
            {
                continue;
            }
            final IbCm target = "A".equals(mad.from()) ? b : a;
            final int sourceIp = "A".equals(mad.from()) ? IP_A : IP_B;
            target.onMad(new UnsafeBuffer(mad.bytes().clone()), 0, MadHeader.MAD_LENGTH,
                MadAddress.ipv4(sourceIp));
        }
    }

    /**
     * Move the clock to the earliest timer of either CM, fire it, deliver what it sent.
     *
     * @return the new clock value.
     */
    long nextTimer()
    {
        final long next = Math.min(a.earliestDeadlineNs(), b.earliestDeadlineNs());
        if (Long.MAX_VALUE == next)
        {
            throw new AssertionError("no timer armed");
        }
        clock.update(next);
        a.processTimers();
        b.processTimers();
        deliver();
        return next;
    }

    /**
     * Advance the clock by some time, firing timers due on the way in order.
     */
    void advance(final long ns)
    {
        final long end = clock.nanoTime() + ns;
        while (Math.min(a.earliestDeadlineNs(), b.earliestDeadlineNs()) <= end)
        {
            nextTimer();
        }
        clock.update(end);
    }

    List<Mad> sent(final String from, final CmAttribute attribute)
    {
        final List<Mad> out = new ArrayList<>();
        for (final Mad mad : trace)
        {
            if (mad.from().equals(from) && mad.attribute() == attribute)
            {
                out.add(mad);
            }
        }
        return out;
    }

    /** Deliver a raw 256-byte MAD to a CM. */
    static void inject(final IbCm target, final byte[] mad, final int sourceIp)
    {
        target.onMad(new UnsafeBuffer(mad.clone()), 0, mad.length, MadAddress.ipv4(sourceIp));
    }
}
