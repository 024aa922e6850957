package org.roce4j.transport.engine;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.roce4j.ib.Mtu;
import org.roce4j.transport.TransportCounter;
import org.roce4j.transport.link.LinkCounter;
import org.roce4j.wire.test.Seeded;
import org.roce4j.wire.test.SeededRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The seeded reliability suite: 100,000 mixed RC operations (every opcode, 0 B to 1 MiB, several QP pairs) per
 * fault profile, each operation delivered exactly once and byte-identical (see {@link ReliabilityHarness}).
 * Override the count with -Droce4j.reliability.ops=N; a failure prints the seed to rerun with -Droce4j.seed.
 */
@Tag("slow")
@Seeded
class ReliabilitySuiteTest
{
    private static final long OPERATIONS = Long.getLong("roce4j.reliability.ops", 100_000L);

    enum Profile
    {
        NO_FAULTS, LOSS_1, LOSS_5, LOSS_20, REORDERING, DUPLICATION, CORRUPTION, RNR_STORM
    }

    @ParameterizedTest
    @EnumSource(Profile.class)
    void everyOperationExactlyOnce(final Profile profile, final SeededRandom seed)
    {
        final ReliabilityHarness harness = new ReliabilityHarness(4, seed.nextLong(), Mtu.MTU_4096, 256);
        final long faultSeed = seed.nextLong();
        switch (profile)
        {
            case LOSS_1:
                harness.faultsA().seed(faultSeed).loss(0.01);
                harness.faultsB().seed(faultSeed + 1).loss(0.01);
                break;
            case LOSS_5:
                harness.faultsA().seed(faultSeed).loss(0.05);
                harness.faultsB().seed(faultSeed + 1).loss(0.05);
                break;
            case LOSS_20:
                harness.faultsA().seed(faultSeed).loss(0.20);
                harness.faultsB().seed(faultSeed + 1).loss(0.20);
                break;
            case REORDERING:
                harness.faultsA().seed(faultSeed).reordering(0.05, 8);
                harness.faultsB().seed(faultSeed + 1).reordering(0.05, 8);
                break;
            case DUPLICATION:
                harness.faultsA().seed(faultSeed).duplication(0.05);
                harness.faultsB().seed(faultSeed + 1).duplication(0.05);
                break;
            case CORRUPTION:
                harness.faultsA().seed(faultSeed).corruption(0.02, 3);
                harness.faultsB().seed(faultSeed + 1).corruption(0.02, 3);
                break;
            case RNR_STORM:
                harness.withholdReceives(2_000_000L);
                break;
            default:
                break;
        }
        harness.run(OPERATIONS, 200_000_000L);
        harness.verifyQuiet();
        assertEquals(OPERATIONS, harness.completed());

        final long injected = harness.linkA.counters().get(LinkCounter.INJECTED_DROPS) +
            harness.linkB.counters().get(LinkCounter.INJECTED_DROPS) +
            harness.linkA.counters().get(LinkCounter.INJECTED_CORRUPTIONS) +
            harness.linkB.counters().get(LinkCounter.INJECTED_CORRUPTIONS);
        final long retries = harness.a.counters().get(TransportCounter.RETRIES);
        switch (profile)
        {
            case NO_FAULTS:
                assertEquals(0, retries, harness.a.counters().toString());
                break;
            case LOSS_1:
            case LOSS_5:
            case LOSS_20:
                assertTrue(injected > 0 && retries > 0, "loss must have happened and been repaired");
                assertTrue(harness.a.counters().get(TransportCounter.PACKETS_RETRANSMITTED) > 0);
                break;
            case CORRUPTION:
                assertTrue(harness.a.counters().get(TransportCounter.DROP_BAD_ICRC) +
                    harness.b.counters().get(TransportCounter.DROP_BAD_ICRC) +
                    harness.a.counters().get(TransportCounter.DROP_MALFORMED_FRAME) +
                    harness.b.counters().get(TransportCounter.DROP_MALFORMED_FRAME) > 0);
                assertTrue(retries > 0);
                break;
            case DUPLICATION:
                assertTrue(harness.b.counters().get(TransportCounter.DUPLICATE_REQUESTS) > 0);
                break;
            case RNR_STORM:
                assertTrue(harness.b.counters().get(TransportCounter.NAK_RNR_SENT) > 0);
                assertEquals(harness.b.counters().get(TransportCounter.NAK_RNR_SENT),
                    harness.a.counters().get(TransportCounter.NAK_RNR_RECEIVED));
                break;
            default:
                break;
        }
        System.out.println(profile + ": " + harness.completed() + " operations, " + harness.bytesMoved() +
            " bytes; A: " + harness.a.counters() + " | B: " + harness.b.counters());
    }
}
