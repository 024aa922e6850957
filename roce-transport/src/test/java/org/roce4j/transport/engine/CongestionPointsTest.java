package org.roce4j.transport.engine;

import java.util.ArrayList;
import java.util.List;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.Mtu;
import org.roce4j.ib.QpType;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.ib.WrOpcode;
import org.roce4j.transport.TransportCounter;
import org.roce4j.transport.cc.CongestionControl;
import org.roce4j.transport.cc.QpRate;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.header.EthernetHeader;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.header.UdpHeader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The engine's notification point, reaction point and pacer ({@link CongestionPoints}) between two engines over test
 * links, on a simulated clock that jumps to the next deadline when both engines are idle.
 */
@ExtendWith(EngineHealthCheck.class)
class CongestionPointsTest
{
    private static final int ALL = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ;
    private static final int FIRST_PSN = 0x100;

    /** Set CE in an IPv4 RoCE frame, as a switch does (the ICRC masks the TOS byte), and fix the IP checksum. */
    static void markCe(final byte[] frame)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(frame);
        final Ipv4Header ip = new Ipv4Header().wrap(buffer, EthernetHeader.LENGTH);
        ip.tos(ip.tos() | CongestionControl.ECN_CE).updateChecksum();
    }

    private static RoceFrameParser parse(final byte[] frame)
    {
        final RoceFrameParser parser = new RoceFrameParser();
        assertEquals(FrameStatus.OK, parser.parse(new UnsafeBuffer(frame), 0, frame.length, true));
        return parser;
    }

    private static EnginePair pair(final String cc)
    {
        final TestLink[] links = TestLink.pair(EnginePair.ADDRESS_A, EnginePair.ADDRESS_B, 1500);
        return new EnginePair(links[0], links[1], config -> config.congestionControl(CongestionControl.parse(cc)));
    }

    private static void write(final EnginePair pair, final EnginePair.Connection c, final MemoryRegionEntry local,
        final MemoryRegionEntry remote, final int length, final long wrId)
    {
        EnginePair.post(pair.a, c.qpA, w -> w.wrId(wrId).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
            .remote(remote.iova(), remote.rkey()).sgl().add(local.iova(), length, local.lkey()));
    }

    private static List<WorkCompletion> runUntilCompleted(final EnginePair pair, final EnginePair.Connection c,
        final int count)
    {
        final List<WorkCompletion> done = new ArrayList<>();
        pair.runUntil(() ->
        {
            done.addAll(ScriptedPeer.drain(c.sendCqA));
            return done.size() >= count;
        }, 1_000_000);
        return done;
    }

    @Test
    void ceMarkedRequestsMakeOneCnpInConnectXsFormatPerMinTimeBetweenCnps()
    {
        final EnginePair pair = pair("dcqcn");
        final EnginePair.Connection c = pair.connect(QpType.RC, Mtu.MTU_1024, attr -> attr.sqPsn = FIRST_PSN);
        final TestLink linkA = pair.testLinkA();
        final TestLink linkB = pair.testLinkB();
        linkB.recordSent = true;
        final List<Integer> ecnSent = new ArrayList<>();
        linkA.dropWhen(frame ->
        {
            ecnSent.add(parse(frame).ipv4().ecn());
            markCe(frame);
            return false;
        });
        final MemoryRegionEntry local = EnginePair.register(pair.a, 8192, ALL);
        final MemoryRegionEntry remote = EnginePair.register(pair.b, 8192, ALL);
        // Eight packets sent in one duty cycle, all CE-marked, all at the same instant: one CNP.
        write(pair, c, local, remote, 8192, 1);
        assertEquals(WcStatus.SUCCESS, runUntilCompleted(pair, c, 1).get(0).status());

        assertEquals(8, ecnSent.size());
        for (final int ecn : ecnSent)
        {
            assertEquals(CongestionControl.ECN_ECT0, ecn, "with DCQCN packets leave ECT(0)");
        }
        final List<byte[]> cnps = new ArrayList<>();
        for (final byte[] frame : linkB.sent)
        {
            if (Opcode.CNP_NOTIFICATION == parse(frame).opcode())
            {
                cnps.add(frame);
            }
        }
        assertEquals(1, cnps.size());
        assertEquals(8, pair.b.counters().get(TransportCounter.NP_ECN_MARKED_ROCE_PACKETS));
        assertEquals(1, pair.b.counters().get(TransportCounter.NP_CNP_SENT));
        assertEquals(1, pair.a.counters().get(TransportCounter.RP_CNP_HANDLED));
        assertEquals(0, pair.a.counters().get(TransportCounter.RP_CNP_IGNORED));

        // The CNP of a ConnectX-4 Lx (protocol-facts B.4): TOS 0xC2 (DSCP 48, ECT(0)), UDP source port 0, IP length
        // 60, UDP length 40, BTH 81 00 ff ff | 40 <DestQP> | 00 000000 (BECN, PSN 0), 16 zero bytes, a valid ICRC.
        final byte[] cnp = cnps.get(0);
        final RoceFrameParser parser = parse(cnp);
        assertTrue(parser.icrcVerified());
        assertEquals(0xC2, parser.ipv4().tos());
        assertEquals(60, parser.ipv4().totalLength());
        assertEquals(0, parser.udp().sourcePort());
        assertEquals(UdpHeader.ROCE_V2_PORT, parser.udp().destinationPort());
        assertEquals(40, parser.udp().datagramLength());
        assertEquals(EnginePair.ADDRESS_B.ipv4(), parser.ipv4().source());
        assertEquals(EnginePair.ADDRESS_A.ipv4(), parser.ipv4().destination());
        final int bth = parser.bthOffset();
        assertArrayEquals(new byte[] {(byte)0x81, 0, (byte)0xFF, (byte)0xFF, 0x40,
                (byte)(c.qpA.qpn() >>> 16), (byte)(c.qpA.qpn() >>> 8), (byte)c.qpA.qpn(), 0, 0, 0, 0},
            ScriptedPeer.slice(cnp, bth, 12));
        assertArrayEquals(new byte[16], ScriptedPeer.slice(cnp, bth + 12, 16));
        assertEquals(bth + 28 + 4, cnp.length, "BTH, 16 reserved bytes, ICRC");

        // Less than min_time_between_cnps (4 µs) later: no CNP; at 4 µs: the next one.
        pair.clock.advance(3_999);
        write(pair, c, local, remote, 1024, 2);
        runUntilCompleted(pair, c, 1);
        assertEquals(1, pair.b.counters().get(TransportCounter.NP_CNP_SENT));
        pair.clock.advance(4_000);
        write(pair, c, local, remote, 1024, 3);
        runUntilCompleted(pair, c, 1);
        assertEquals(2, pair.b.counters().get(TransportCounter.NP_CNP_SENT));
        assertEquals(10, pair.b.counters().get(TransportCounter.NP_ECN_MARKED_ROCE_PACKETS));
    }

    @Test
    void cnpTrafficClassAndSourcePortAreConfigurable()
    {
        final EnginePair pair = pair("dcqcn,cnp_dscp=26,cnp_ecn=0,cnp_udp_sport=49152,min_time_between_cnps=0");
        final EnginePair.Connection c = pair.connect(QpType.RC, Mtu.MTU_1024, attr -> {});
        pair.testLinkB().recordSent = true;
        pair.testLinkA().dropWhen(frame ->
        {
            markCe(frame);
            return false;
        });
        final MemoryRegionEntry local = EnginePair.register(pair.a, 4096, ALL);
        final MemoryRegionEntry remote = EnginePair.register(pair.b, 4096, ALL);
        write(pair, c, local, remote, 4096, 1);
        runUntilCompleted(pair, c, 1);
        // min_time_between_cnps 0: a CNP for every CE-marked packet.
        assertEquals(4, pair.b.counters().get(TransportCounter.NP_CNP_SENT));
        for (final byte[] frame : pair.testLinkB().sent)
        {
            final RoceFrameParser parser = parse(frame);
            if (Opcode.CNP_NOTIFICATION == parser.opcode())
            {
                assertEquals(26 << 2, parser.ipv4().tos());
                assertEquals(49152, parser.udp().sourcePort());
            }
        }
    }

    @Test
    void withoutCongestionControlCeIsCountedButNoCnpSentAndCnpsAreIgnored()
    {
        final EnginePair pair = pair("none");
        final EnginePair.Connection c = pair.connect(QpType.RC, Mtu.MTU_1024, attr -> {});
        final List<Integer> ecnSent = new ArrayList<>();
        pair.testLinkA().dropWhen(frame ->
        {
            ecnSent.add(parse(frame).ipv4().ecn());
            markCe(frame);
            return false;
        });
        final MemoryRegionEntry local = EnginePair.register(pair.a, 4096, ALL);
        final MemoryRegionEntry remote = EnginePair.register(pair.b, 4096, ALL);
        write(pair, c, local, remote, 2048, 1);
        runUntilCompleted(pair, c, 1);
        assertEquals(List.of(CongestionControl.ECN_NOT_ECT, CongestionControl.ECN_NOT_ECT), ecnSent,
            "without congestion control packets leave Not-ECT");
        assertEquals(2, pair.b.counters().get(TransportCounter.NP_ECN_MARKED_ROCE_PACKETS));
        assertEquals(0, pair.b.counters().get(TransportCounter.NP_CNP_SENT));
        // A CNP from B's address to A's QP: ignored, counted.
        pair.testLinkA().inject(Frames.cnp(EnginePair.ADDRESS_B, EnginePair.ADDRESS_A, c.qpA.qpn()));
        pair.runUntil(() -> 1 == pair.a.counters().get(TransportCounter.RP_CNP_IGNORED), 100);
        assertEquals(0, pair.a.counters().get(TransportCounter.RP_CNP_HANDLED));
        assertFalse(pair.a.qpRate(c.qpA).limited());
    }

    @Test
    void cnpsForUnknownQpsOrFromStrangersAreIgnored()
    {
        final EnginePair pair = pair("dcqcn");
        final EnginePair.Connection c = pair.connect(QpType.RC, Mtu.MTU_1024, attr -> {});
        final TestLink linkA = pair.testLinkA();
        linkA.inject(Frames.cnp(EnginePair.ADDRESS_B, EnginePair.ADDRESS_A, 0x7777));
        linkA.inject(Frames.cnp(new LinkAddress(EnginePair.ADDRESS_B.mac(), Ipv4Header.parseAddress("10.0.0.9")),
            EnginePair.ADDRESS_A, c.qpA.qpn()));
        linkA.inject(Frames.cnp(EnginePair.ADDRESS_B, EnginePair.ADDRESS_A, c.qpA.qpn()));
        pair.runUntil(() -> 0 == linkA.pending(), 100);
        assertEquals(2, pair.a.counters().get(TransportCounter.RP_CNP_IGNORED));
        assertEquals(1, pair.a.counters().get(TransportCounter.RP_CNP_HANDLED));
        assertEquals(0, pair.a.counters().get(TransportCounter.DROP_NO_QP), "a CNP is not a dropped packet");
        assertTrue(pair.a.qpRate(c.qpA).limited());
    }

    @Test
    void pacerHoldsARateLimitedQpToItsRate()
    {
        // line_rate 25 Gb/s; the byte counter off and the timer as slow as it goes, so the rate stays put after the
        // first decrease: one CNP at t0, decrease at t0 + 4 µs with alpha 1003 (see DcqcnReactionPointTest):
        // Rc = 25e9 - floor(25e9 * 1003 / 2048) = 25e9 - 12243652343 = 12756347657 bit/s.
        final EnginePair pair = pair("dcqcn,rpg_byte_reset=0,rpg_time_reset=131071");
        final EnginePair.Connection c = pair.connect(QpType.RC, Mtu.MTU_1024, attr -> {});
        final long t0 = pair.clock.nanoTime();
        pair.testLinkA().inject(Frames.cnp(EnginePair.ADDRESS_B, EnginePair.ADDRESS_A, c.qpA.qpn()));
        pair.runUntil(() -> 1 == pair.a.counters().get(TransportCounter.RP_CNP_HANDLED), 100);
        pair.clock.update(t0 + 4_000);
        final QpRate rate = pair.a.qpRate(c.qpA);
        assertTrue(rate.limited());
        assertEquals(12_756_347_657L, rate.currentRateBps());
        assertEquals(25_000_000_000L, rate.targetRateBps());

        final List<long[]> sends = new ArrayList<>();
        pair.testLinkA().dropWhen(frame ->
        {
            sends.add(new long[] {pair.clock.nanoTime(), frame.length});
            return false;
        });
        final MemoryRegionEntry local = EnginePair.register(pair.a, 64 * 1024, ALL);
        final MemoryRegionEntry remote = EnginePair.register(pair.b, 64 * 1024, ALL);
        write(pair, c, local, remote, 64 * 1024, 1);
        runUntilCompleted(pair, c, 1);
        assertEquals(64, sends.size());
        // A token bucket that banks at most PACER_MAX_LAG_NS (2 µs) of unused time: packet k leaves at
        // max(start, start - 2 µs + sum of the wire times of packets 0..k-1), a packet's wire time being
        // floor(bytes * 8e9 / 12756347657) ns (688 ns for a 1098-byte WRITE_MIDDLE).
        final long startNs = sends.get(0)[0];
        long sumNs = 0;
        for (int i = 0; i < sends.size(); i++)
        {
            final long expectedNs = Math.max(startNs, startNs - CongestionPoints.PACER_MAX_LAG_NS + sumNs);
            assertEquals(expectedNs, sends.get(i)[0], "packet " + i);
            sumNs += sends.get(i)[1] * 8L * 1_000_000_000L / 12_756_347_657L;
        }
        // 64 KiB at 12.76 Gb/s: the last packet leaves about 41 µs after the first, 2 µs earlier for the bank.
        assertTrue(sends.get(63)[0] - startNs > 40_000, "took " + (sends.get(63)[0] - startNs) + " ns");
        assertTrue(pair.a.counters().get(TransportCounter.PACKETS_SENT) >= 64);
    }
    @Test
    void aPacketWaitingAtASlowRateLeavesWhenTheTimerRaisesTheRate()
    {
        // rate_to_set_on_first_cnp 4000 Mb/s, rpg_gd 10, rpg_min_dec_fac 1, no byte counter: a CNP at t0, the
        // decrease at t0 + 4 µs with alpha 1003: Rc = 4e9 - floor(4e9 * 1003 / 2^10) = 82031250 bit/s (above the 1 %
        // floor, 40e6), Rt stays 4e9. A 1098-byte packet then takes floor(1098 * 8e9 / 82031250) = 107081 ns. The
        // timer raises the rate at t0 + 304 µs (rpg_time_reset 300 after the decrease), its first increase with Rt
        // more than 10 Rc: Rt = 4e9 / 8 = 5e8 (QCN's target reduction), Rc = (5e8 + 82031250 + 1) / 2 = 291015625,
        // floor(1098 * 8e9 / 291015625) = 30184 ns a packet. The packet waiting for its slow slot leaves then, not at
        // its old time, and the rest follow at the new rate.
        final EnginePair pair = pair("dcqcn,rate_to_set_on_first_cnp=4000,rpg_gd=10,rpg_min_dec_fac=1," +
            "rpg_byte_reset=0");
        final EnginePair.Connection c = pair.connect(QpType.RC, Mtu.MTU_1024, attr -> {});
        final long t0 = pair.clock.nanoTime();
        pair.testLinkA().inject(Frames.cnp(EnginePair.ADDRESS_B, EnginePair.ADDRESS_A, c.qpA.qpn()));
        pair.runUntil(() -> 1 == pair.a.counters().get(TransportCounter.RP_CNP_HANDLED), 100);
        pair.clock.update(t0 + 4_000);
        assertEquals(82_031_250L, pair.a.qpRate(c.qpA).currentRateBps());

        final List<Long> sendNs = new ArrayList<>();
        pair.testLinkA().dropWhen(frame ->
        {
            sendNs.add(pair.clock.nanoTime());
            return false;
        });
        final MemoryRegionEntry local = EnginePair.register(pair.a, 16 * 1024, ALL);
        final MemoryRegionEntry remote = EnginePair.register(pair.b, 16 * 1024, ALL);
        write(pair, c, local, remote, 16 * 1024, 1);
        runUntilCompleted(pair, c, 1);
        assertEquals(16, sendNs.size());
        // The pacer banks one packet's wire time (max(PACER_MAX_LAG_NS, txNs)), so packets 0 and 1 leave at 4 µs;
        // packets 2 and 3 at the slow rate, one wire time (~105.5 µs for the 1082-byte frames) apart: ~109.5 and
        // ~215 µs. Packet 4's slot would be ~320 µs; it leaves at the increase, 304 µs.
        final int raised = sendNs.indexOf(t0 + 304_000);
        assertEquals(4, raised, "send times since t0: " + sendNs.stream().map(t -> t - t0).toList());
        assertTrue(sendNs.get(3) - sendNs.get(2) > 100_000, "slow before");
        for (int k = raised + 1; k < sendNs.size(); k++)
        {
            assertTrue(sendNs.get(k) - sendNs.get(k - 1) <= 30_184, "packet " + k + " at the raised rate");
        }
        assertTrue(pair.a.qpRate(c.qpA).targetRateBps() < 1_000_000_000L, "Rt divided by 8, then + 5 Mb/s steps");
    }
}
