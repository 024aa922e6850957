package org.roce4j.transport.engine;

import java.util.SplittableRandom;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.roce4j.ib.Mtu;
import org.roce4j.ib.QpState;
import org.roce4j.transport.TransportCounter;
import org.roce4j.transport.cc.CongestionControl;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.link.memory.MemoryLink;
import org.roce4j.wire.addr.Mac;
import org.roce4j.wire.header.Ipv4Header;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * roce4j accepts CNPs from a peer at any time without error (issue 18, point 7): bursts of CNPs, as a ConnectX NIC
 * sends them, go into live RC traffic of every operation (each completion's data checked by
 * {@link ReliabilityHarness}), with congestion control on and off. CNPs for the QPs, from their peers, drive the rate
 * (rp_cnp_handled) with DCQCN and are ignored without it (rp_cnp_ignored); CNPs for unknown QPNs or from a stranger
 * are always ignored; nothing fails, nothing leaves RTS, the engines never throw. The seed is printed;
 * {@code -Droce4j.seed=N} picks another.
 */
@ExtendWith(EngineHealthCheck.class)
class CnpBurstTest
{
    private static final long SEED = Long.getLong("roce4j.seed", 0xC0FFEE_18L);
    private static final int PAIRS = 2;
    private static final long OPERATIONS = 1_500;
    private static final int BURST = 24;
    private static final long CYCLES_BETWEEN_BURSTS = 200;
    private static final LinkAddress INJECTOR = new LinkAddress(Mac.parse("02:00:00:00:00:77"),
        Ipv4Header.parseAddress("10.0.0.77"));
    private static final LinkAddress STRANGER = new LinkAddress(Mac.parse("02:00:00:00:00:78"),
        Ipv4Header.parseAddress("10.0.0.78"));

    @ParameterizedTest(name = "--cc {0}")
    @ValueSource(strings = {"dcqcn", "none"})
    void cnpBurstsIntoLiveTrafficDisturbNothing(final String cc)
    {
        System.out.println("CnpBurstTest --cc " + cc + " seed=0x" + Long.toHexString(SEED) +
            " (rerun with -Droce4j.seed=N)");
        final boolean on = CongestionControl.parse(cc).enabled();
        final ReliabilityHarness harness = new ReliabilityHarness(PAIRS, SEED, Mtu.MTU_1024, 256,
            config -> config.congestionControl(CongestionControl.parse(cc)));
        EngineHealthCheck.track(harness.a);
        EngineHealthCheck.track(harness.b);
        final MemoryLink injector = harness.fabric.attach(INJECTOR, 9000);
        final SplittableRandom random = new SplittableRandom(SEED);
        final long[] valid = new long[2];
        final long[] invalid = new long[2];
        final boolean[] limited = new boolean[1];
        harness.run(OPERATIONS, 20_000_000L, cycle ->
        {
            if (0 != cycle % CYCLES_BETWEEN_BURSTS)
            {
                return;
            }
            for (int i = 0; i < BURST; i++)
            {
                final int pair = random.nextInt(PAIRS);
                final boolean toA = random.nextBoolean();
                final int kind = random.nextInt(8);
                final LinkAddress target = toA ? harness.linkA.address() : harness.linkB.address();
                final LinkAddress peer = toA ? harness.linkB.address() : harness.linkA.address();
                final int qpn = toA ? harness.qpA(pair).qpn() : harness.qpB(pair).qpn();
                final byte[] frame;
                if (0 == kind)
                {
                    frame = Frames.cnp(peer, target, 0x00ABCD);
                    invalid[toA ? 0 : 1]++;
                }
                else if (1 == kind)
                {
                    frame = Frames.cnp(STRANGER, target, qpn);
                    invalid[toA ? 0 : 1]++;
                }
                else
                {
                    frame = Frames.cnp(peer, target, qpn);
                    valid[toA ? 0 : 1]++;
                }
                assertTrue(injector.send(new UnsafeBuffer(frame), 0, frame.length));
            }
            for (int p = 0; p < PAIRS; p++)
            {
                limited[0] |= harness.a.qpRate(harness.qpA(p)).limited();
            }
        });
        harness.verifyQuiet();
        for (int p = 0; p < PAIRS; p++)
        {
            assertEquals(QpState.RTS, harness.qpA(p).state());
            assertEquals(QpState.RTS, harness.qpB(p).state());
        }
        final String counters = "A: " + harness.a.counters() + " / B: " + harness.b.counters();
        final RoceEngine[] engines = {harness.a, harness.b};
        for (int e = 0; e < 2; e++)
        {
            final long handled = engines[e].counters().get(TransportCounter.RP_CNP_HANDLED);
            final long ignored = engines[e].counters().get(TransportCounter.RP_CNP_IGNORED);
            assertTrue(valid[e] > 0 && invalid[e] > 0, counters);
            assertEquals(on ? valid[e] : 0, handled, counters);
            assertEquals(on ? invalid[e] : valid[e] + invalid[e], ignored, counters);
            assertEquals(0, engines[e].counters().get(TransportCounter.DROP_NO_QP), counters);
            assertEquals(0, engines[e].counters().get(TransportCounter.ERROR_COMPLETIONS), counters);
        }
        assertEquals(on, limited[0], "with DCQCN the CNPs rate-limit the requesters, without it nothing does");
        System.out.println("CnpBurstTest --cc " + cc + ": " + harness.completed() + " operations, CNPs valid " +
            valid[0] + "/" + valid[1] + " invalid " + invalid[0] + "/" + invalid[1] + "; " + counters);
    }
}
