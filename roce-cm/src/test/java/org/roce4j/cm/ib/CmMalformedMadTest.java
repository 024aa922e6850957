package org.roce4j.cm.ib;

import java.nio.ByteOrder;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import java.util.stream.Stream;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.roce4j.wire.mad.CmAttribute;
import org.roce4j.wire.mad.CmRejMessage;
import org.roce4j.wire.mad.CmRejectReason;
import org.roce4j.wire.mad.MadHeader;
import org.roce4j.wire.mad.RdmaCmServiceId;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bad MADs are dropped and counted, never thrown: every defect of the common header, attributes the CM does not
 * implement, responses that match no connection; and a seeded mutation fuzzer over rxe's real CM MADs.
 */
class CmMalformedMadTest
{
    /**
     * One defect.
     *
     * @param name    what is wrong.
     * @param mutate  applied to rxe's REQ.
     * @param counter the counter the drop must move.
     */
    record Defect(String name, Consumer<MadHeader> mutate, CmCounter counter)
    {
        public String toString()
        {
            return name;
        }
    }

    static Stream<Defect> defects()
    {
        return Stream.of(
            new Defect("base version 2", m -> m.baseVersion(2), CmCounter.DROP_BAD_BASE_VERSION),
            new Defect("class 0x04 (performance)", m -> m.mgmtClass(0x04), CmCounter.DROP_NOT_CM_CLASS),
            new Defect("class version 1", m -> m.classVersion(1), CmCounter.DROP_BAD_CLASS_VERSION),
            new Defect("method Get", m -> m.method(0x01), CmCounter.DROP_BAD_METHOD),
            new Defect("response bit", m -> m.response(true), CmCounter.DROP_BAD_METHOD),
            new Defect("ClassPortInfo", m -> m.attributeId(CmAttribute.CLASS_PORT_INFO.id()),
                CmCounter.DROP_UNSUPPORTED_ATTRIBUTE),
            new Defect("LAP", m -> m.attributeId(CmAttribute.LOAD_ALTERNATE_PATH.id()),
                CmCounter.DROP_UNSUPPORTED_ATTRIBUTE),
            new Defect("SIDR_REP for nobody", m -> m.attributeId(CmAttribute.SERVICE_ID_RES_REQ_RESP.id()),
                CmCounter.DROP_UNMATCHED),
            new Defect("attribute 0x7777", m -> m.attributeId(0x7777), CmCounter.DROP_UNSUPPORTED_ATTRIBUTE),
            new Defect("REP for nobody", m -> m.attributeId(CmAttribute.CONNECT_REPLY.id()),
                CmCounter.DROP_UNMATCHED),
            new Defect("RTU for nobody", m -> m.attributeId(CmAttribute.READY_TO_USE.id()),
                CmCounter.DROP_UNMATCHED),
            new Defect("MRA for nobody", m -> m.attributeId(CmAttribute.MSG_RCPT_ACK.id()),
                CmCounter.DROP_UNMATCHED),
            new Defect("DREP for nobody", m -> m.attributeId(CmAttribute.DISCONNECT_REPLY.id()),
                CmCounter.DROP_UNMATCHED));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("defects")
    void badMadIsDroppedCountedAndUnanswered(final Defect defect)
    {
        final CmPair pair = new CmPair().listenB();
        final byte[] mad = Golden.frame(Golden.SESSION, 3).mad();
        defect.mutate().accept(new MadHeader().wrap(new UnsafeBuffer(mad), 0));
        CmPair.inject(pair.b, mad, CmPair.IP_A);
        assertEquals(1, pair.countersB.get(defect.counter()), pair.countersB.toString());
        assertEquals(1, pair.countersB.get(CmCounter.MADS_RECEIVED));
        assertEquals(List.of(), pair.trace, "nothing is sent for a dropped MAD");
        assertTrue(pair.requests.isEmpty());
    }

    @Test
    void aMadOfAnotherLengthIsDropped()
    {
        final CmPair pair = new CmPair().listenB();
        final byte[] mad = Golden.frame(Golden.SESSION, 3).mad();
        pair.b.onMad(new UnsafeBuffer(mad), 0, 200, MadAddress.ipv4(CmPair.IP_A));
        assertEquals(1, pair.countersB.get(CmCounter.DROP_BAD_LENGTH));
        assertTrue(pair.requests.isEmpty());
    }

    @Test
    void reqForAGidThatIsNotOursGetsInvalidGidWithThatGid()
    {
        final CmPair pair = new CmPair();
        // rping's REQ names 10.77.0.3 as the passive side; deliver it to A (10.77.0.2), listening on its port.
        pair.a.listen(RdmaCmServiceId.serviceId(RdmaCmServiceId.PS_TCP, 18003), c -> CmListener.PENDING);
        CmPair.inject(pair.a, Golden.frame(Golden.SESSION, 3).mad(), CmPair.IP_B);
        assertEquals(1, pair.trace.size());
        final CmRejMessage rej = new CmRejMessage().wrapMad(new UnsafeBuffer(pair.trace.get(0).bytes()), 0);
        assertEquals(CmRejectReason.INVALID_GID.code(), rej.reason());
        assertEquals(16, rej.ariLength());
        assertEquals(MadAddress.ipv4(CmPair.IP_B).gidLow(),
            rej.buffer().getLong(rej.ariBufferOffset() + 8, ByteOrder.BIG_ENDIAN), "the GID that is not ours");
        assertTrue(pair.a.connections().isEmpty());
    }

    @Test
    void seededMutationsOfRealMadsNeverThrowAndEveryMadIsAccountedFor()
    {
        final long seed = Long.getLong("roce4j.cmFuzzSeed", 0x5EED_CAFEL);
        final Random random = new Random(seed);
        final List<byte[]> originals = Stream.of(1, 2, 3, 4, 5, 30, 31)
            .map(n -> Golden.frame(Golden.SESSION, n).mad()).toList();
        final CmPair pair = new CmPair().listenB();
        try
        {
            for (int i = 0; i < 20_000; i++)
            {
                final byte[] mad = originals.get(random.nextInt(originals.size())).clone();
                final int flips = 1 + random.nextInt(6);
                for (int f = 0; f < flips; f++)
                {
                    final int at = random.nextBoolean() ? random.nextInt(32) : random.nextInt(mad.length);
                    mad[at] = (byte)random.nextInt(256);
                }
                final IbCm target = random.nextBoolean() ? pair.a : pair.b;
                CmPair.inject(target, mad, random.nextBoolean() ? CmPair.IP_A : CmPair.IP_B);
                if (0 == i % 1000)
                {
                    pair.advance(7_000_000_000L);
                }
            }
        }
        catch (final RuntimeException ex)
        {
            throw new AssertionError("CM threw on a mutated MAD; rerun with -Droce4j.cmFuzzSeed=" + seed, ex);
        }
        assertEquals(20_000, pair.countersA.get(CmCounter.MADS_RECEIVED) + pair.countersB.get(CmCounter.MADS_RECEIVED));
        long dropped = 0;
        for (final CmCounter counter : CmCounter.values())
        {
            if (counter.name().startsWith("DROP_"))
            {
                dropped += pair.countersA.get(counter) + pair.countersB.get(counter);
            }
        }
        assertTrue(dropped > 10_000, "most mutated MADs are dropped (seed " + seed + "): " + dropped);
    }
}
