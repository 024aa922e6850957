package org.roce4j.wire;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.roce4j.wire.test.FrameFields;
import org.roce4j.wire.test.RandomFrames;
import org.roce4j.wire.test.Seeded;
import org.roce4j.wire.test.SeededRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Build then parse, for every opcode, IPv4 and IPv6, with and without an 802.1Q tag, and every payload length from
 * 0 to the largest IB path MTU (4096 bytes), so every PadCnt value occurs: the parser reads back every field the
 * builder wrote, the payload bytes, the pad and a good ICRC; re-encoding the parsed frame gives the same bytes.
 */
@Seeded
class RoundTripTest
{
    /** IBA's largest path MTU (IB_MTU_4096), the most rxe uses. */
    private static final int MTU = 4096;
    /** Build at an odd offset, to catch code that assumes the frame starts at 0. */
    private static final int OFFSET = 3;

    @Test
    void everyOpcodeEveryPayloadLengthBothIpVersionsTaggedAndNot(final SeededRandom random)
    {
        final RandomFrames frames = new RandomFrames(random);
        final FrameFields fields = new FrameFields();
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[OFFSET + MTU + 256]);
        final UnsafeBuffer rebuilt = new UnsafeBuffer(new byte[MTU + 256]);
        final RoceFrameParser parser = new RoceFrameParser();
        final FrameReencoder reencoder = new FrameReencoder();
        final int[] padSeen = new int[4];
        long built = 0;
        for (final Opcode opcode : Opcode.values())
        {
            final int maxPayload = opcode.hasPayload() ? MTU : 0;
            for (int ipVersion = 4; ipVersion <= 6; ipVersion += 2)
            {
                for (int tag = 0; tag < 2; tag++)
                {
                    for (int payload = 0; payload <= maxPayload; payload++)
                    {
                        final int length = frames.build(opcode, ipVersion, 1 == tag, payload, buffer, OFFSET, fields);
                        built++;
                        final FrameStatus status = parser.parse(buffer, OFFSET, length, true);
                        if (FrameStatus.OK != status)
                        {
                            assertEquals(FrameStatus.OK, status, opcode + " IPv" + ipVersion + " payload " + payload);
                        }
                        assertParsedFields(fields, parser, frames);
                        padSeen[parser.padCount()]++;
                        // Re-encoding from the parsed fields alone gives the same bytes (sampled: it is a second
                        // build per frame).
                        if (payload < 64 || 0 == payload % 61)
                        {
                            final int again = reencoder.reencode(parser, rebuilt, 0);
                            assertEquals(length, again);
                            for (int i = 0; i < length; i++)
                            {
                                if (buffer.getByte(OFFSET + i) != rebuilt.getByte(i))
                                {
                                    assertEquals(buffer.getByte(OFFSET + i), rebuilt.getByte(i),
                                        opcode + " re-encoded byte " + i);
                                }
                            }
                        }
                    }
                }
            }
        }
        assertEquals(built, parser.counters().get(FrameStatus.OK));
        assertEquals(built, parser.counters().total());
        for (int pad = 0; pad < 4; pad++)
        {
            assertTrue(padSeen[pad] > 1000, "PadCnt " + pad + " seen " + padSeen[pad] + " times");
        }
    }

    static void assertParsedFields(final FrameFields f, final RoceFrameParser p, final RandomFrames payload)
    {
        final FrameFields what = f;
        check(f.opcode, p.opcode(), what, "opcode");
        check(f.frameLength, p.frameLength(), what, "frame length");
        check(f.destinationMac, p.ethernet().destination(), what, "destination MAC");
        check(f.sourceMac, p.ethernet().source(), what, "source MAC");
        check(f.vlan, p.ethernet().hasVlanTag(), what, "VLAN tag");
        if (f.vlan)
        {
            check(f.vlanPriority, p.ethernet().priority(), what, "PCP");
            check(f.vlanId, p.ethernet().vlanId(), what, "VID");
        }
        check(f.ipVersion, p.ipVersion(), what, "IP version");
        if (4 == f.ipVersion)
        {
            check(f.ipv4Source, p.ipv4().source(), what, "IPv4 source");
            check(f.ipv4Destination, p.ipv4().destination(), what, "IPv4 destination");
            check(f.trafficClass, p.ipv4().tos(), what, "TOS");
            check(f.hopLimit, p.ipv4().ttl(), what, "TTL");
            check(f.ipId, p.ipv4().identification(), what, "IPv4 ID");
            check(true, p.ipv4().dontFragment(), what, "DF");
        }
        else
        {
            check(f.ipv6SourceHigh, p.ipv6().sourceHigh(), what, "IPv6 source");
            check(f.ipv6SourceLow, p.ipv6().sourceLow(), what, "IPv6 source");
            check(f.ipv6DestinationHigh, p.ipv6().destinationHigh(), what, "IPv6 destination");
            check(f.ipv6DestinationLow, p.ipv6().destinationLow(), what, "IPv6 destination");
            check(f.trafficClass, p.ipv6().trafficClass(), what, "traffic class");
            check(f.flowLabel, p.ipv6().flowLabel(), what, "flow label");
            check(f.hopLimit, p.ipv6().hopLimit(), what, "hop limit");
        }
        check(f.udpSourcePort, p.udp().sourcePort(), what, "UDP source port");
        check(4791, p.udp().destinationPort(), what, "UDP destination port");
        check(f.solicitedEvent, p.bth().solicitedEvent(), what, "SE");
        check(f.migReq, p.bth().migReq(), what, "MigReq");
        check(f.padCount, p.bth().padCount(), what, "PadCnt");
        check(f.padCount, p.padCount(), what, "pad");
        check(0, p.bth().transportVersion(), what, "TVer");
        check(f.pkey, p.bth().pkey(), what, "P_Key");
        check(f.fecn, p.bth().fecn(), what, "FECN");
        check(f.becn, p.bth().becn(), what, "BECN");
        check(f.destQp, p.bth().destQp(), what, "DestQP");
        check(f.ackReq, p.bth().ackReq(), what, "AckReq");
        check(f.psn, p.bth().psn(), what, "PSN");
        final Opcode opcode = f.opcode;
        if (opcode.has(ExtHeader.RETH))
        {
            check(f.rethVa, p.reth().va(), what, "RETH VA");
            check(f.rethRkey, p.reth().rkey(), what, "RETH R_Key");
            check(f.rethDmaLength, p.reth().dmaLength(), what, "RETH DMA length");
        }
        if (opcode.has(ExtHeader.AETH))
        {
            check(f.aethSyndrome, p.aeth().syndrome(), what, "AETH syndrome");
            check(f.aethMsn, p.aeth().msn(), what, "AETH MSN");
        }
        if (opcode.has(ExtHeader.ATOMIC_ETH))
        {
            check(f.atomicVa, p.atomicEth().va(), what, "AtomicETH VA");
            check(f.atomicRkey, p.atomicEth().rkey(), what, "AtomicETH R_Key");
            check(f.atomicSwapAdd, p.atomicEth().swapAdd(), what, "AtomicETH swap/add");
            check(f.atomicCompare, p.atomicEth().compare(), what, "AtomicETH compare");
        }
        if (opcode.has(ExtHeader.ATOMIC_ACK_ETH))
        {
            check(f.atomicOriginal, p.atomicAckEth().originalData(), what, "AtomicAckETH");
        }
        if (opcode.has(ExtHeader.DETH))
        {
            check(f.qkey, p.deth().qkey(), what, "Q_Key");
            check(f.srcQp, p.deth().srcQp(), what, "SrcQP");
        }
        if (opcode.has(ExtHeader.IMM_DT))
        {
            check(f.immediate, p.immDt().immediate(), what, "ImmDt");
        }
        if (opcode.has(ExtHeader.IETH))
        {
            check(f.iethRkey, p.ieth().rkey(), what, "IETH");
        }
        if (opcode.has(ExtHeader.FETH))
        {
            check(f.fethSelectivity, p.feth().selectivityLevel(), what, "FETH selectivity");
            check(f.fethPlacement, p.feth().placementType(), what, "FETH placement");
        }
        if (opcode.has(ExtHeader.CNP_RESERVED))
        {
            check(0L, p.cnp().reservedHigh() | p.cnp().reservedLow(), what, "CNP reserved");
        }
        for (final ExtHeader header : ExtHeader.values())
        {
            check(opcode.has(header) ? p.bthOffset() + opcode.offsetOf(header) : -1, p.extOffset(header), what,
                "offset of " + header);
        }
        check(f.payloadLength, p.payloadLength(), what, "payload length");
        check(p.bthOffset() + opcode.headerLength(), p.payloadOffset(), what, "payload offset");
        final int mismatch = payload.payloadMismatch(p.buffer(), p.payloadOffset(), f.payloadLength);
        if (mismatch >= 0)
        {
            check(payload.payloadByte(mismatch), p.buffer().getByte(p.payloadOffset() + mismatch), what,
                "payload byte " + mismatch);
        }
        for (int i = 0; i < f.padCount; i++)
        {
            check((byte)0, p.buffer().getByte(p.payloadOffset() + f.payloadLength + i), what, "pad byte " + i);
        }
        check(p.payloadOffset() + f.payloadLength + f.padCount, p.icrcOffset(), what, "ICRC offset");
        check(f.icrc, p.carriedIcrc(), what, "carried ICRC");
        check(f.icrc, p.computedIcrc(), what, "computed ICRC");
    }

    private static void check(final Object expected, final Object actual, final FrameFields what, final String field)
    {
        // assertEquals(Object, Object) would build the message eagerly only on failure; boxing is cheap enough.
        if (!expected.equals(actual))
        {
            assertEquals(expected, actual, () -> describe(what) + ": " + field);
        }
    }

    private static void check(final long expected, final long actual, final FrameFields what, final String field)
    {
        if (expected != actual)
        {
            assertEquals(expected, actual, () -> describe(what) + ": " + field);
        }
    }

    private static void check(final boolean expected, final boolean actual, final FrameFields what, final String field)
    {
        if (expected != actual)
        {
            assertEquals(expected, actual, () -> describe(what) + ": " + field);
        }
    }

    private static String describe(final FrameFields f)
    {
        return f.opcode + " IPv" + f.ipVersion + (f.vlan ? " tagged" : "") + " payload " + f.payloadLength;
    }
}
