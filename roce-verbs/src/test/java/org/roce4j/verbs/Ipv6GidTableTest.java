package org.roce4j.verbs;

import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.roce4j.ib.QpType;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.ib.WrOpcode;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.addr.Mac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.roce4j.verbs.VerbsFixture.ALL_ACCESS;
import static org.roce4j.verbs.VerbsFixture.drain;
import static org.roce4j.verbs.VerbsFixture.register;

/**
 * A device's GID table as rxe builds it from its link's addresses (index 0 the link-local GID from the MAC, then one
 * IPv4-mapped GID per IPv4 address, then each global IPv6 address), and RC traffic over a global IPv6 GID picked by
 * index, as {@code -g}/{@code -x} pick it.
 */
class Ipv6GidTableTest
{
    private static final LinkAddress A = new LinkAddress(Mac.parse("02:00:00:00:00:0a"),
        List.of(Gid.parse("10.0.0.1"), Gid.parse("fd00:77::1"), Gid.parse("10.0.1.1")));
    private static final LinkAddress B = new LinkAddress(Mac.parse("02:00:00:00:00:0b"),
        List.of(Gid.parse("fd00:77::2")));

    private final VerbsFixture fx = new VerbsFixture(A, B, 1500);

    @AfterEach
    void close()
    {
        fx.assertNoInternalErrors();
        fx.close();
    }

    @Test
    void theTableIsBuiltInRxesOrderAndListed()
    {
        assertEquals(4, fx.a.queryPort().gidTblLen());
        assertEquals(List.of("fe80::ff:fe00:a", "::ffff:10.0.0.1", "::ffff:10.0.1.1", "fd00:77::1"),
            List.of(fx.a.queryGid(0).toString(), fx.a.queryGid(1).toString(), fx.a.queryGid(2).toString(),
                fx.a.queryGid(3).toString()));
        // An IPv6-only link: the link-local GID, then its global address; no IPv4-mapped entry.
        assertEquals(2, fx.b.queryPort().gidTblLen());
        assertEquals("fd00:77::2", fx.b.queryGid(1).toString());

        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> fx.connect(QpType.RC, params -> params.sourceGidIndex = 4, init -> { }));
        assertTrue(ex.getMessage().endsWith(": ah_attr.grh.sgid_index 4 is not in the GID table (4 entries: " +
            "0 link-local fe80::ff:fe00:a, 1 IPv4-mapped ::ffff:10.0.0.1, 2 IPv4-mapped ::ffff:10.0.1.1, " +
            "3 IPv6 fd00:77::1)"), ex.getMessage());
    }

    @Test
    void anIpv4MappedDestinationFromAnIpv6OnlyPortNamesTheMissingFamily()
    {
        final QueuePair qp = fx.pdB.createQp(VerbsFixture.init(QpType.RC, fx.b.createCq(4), fx.b.createCq(4)));
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> VerbsFixture.bringUp(qp, 0x11, fx.a.queryGid(1), 1, 1, withSource(new VerbsFixture.Params(), 1)));
        assertTrue(ex.getMessage().endsWith("RoCEv2 needs both ends in one IP family (the port has no IPv4 " +
            "address)"), ex.getMessage());
    }

    @Test
    void rcSendOverAGlobalIpv6Gid()
    {
        fx.linkA.record(true);
        fx.linkB.record(true);
        final VerbsFixture.Pair c = connect(3, 1);
        final MemoryRegion src = register(fx.pdA, 3000, ALL_ACCESS);
        final MemoryRegion dst = register(fx.pdB, 3000, ALL_ACCESS);
        for (int i = 0; i < 3000; i++)
        {
            src.buffer().putByte(i, (byte)(i * 7));
        }
        c.b.qp.postRecv(new RecvWorkRequest().wrId(1).addSge(dst, 0, 3000));
        c.a.qp.postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
            .addSge(src, 0, 3000));

        final WorkCompletion recv = drain(c.b.recvCq, 1).get(0);
        final WorkCompletion send = drain(c.a.sendCq, 1).get(0);
        assertEquals(WcStatus.SUCCESS, recv.status(), recv.toString());
        assertEquals(WcStatus.SUCCESS, send.status(), send.toString());
        assertEquals(3000, recv.byteLen());
        for (int i = 0; i < 3000; i++)
        {
            assertEquals((byte)(i * 7), dst.buffer().getByte(i), "byte " + i);
        }
        final List<PairLink.Sent> frames = fx.linkA.trace();
        assertTrue(frames.size() >= 4, "3 SENDs and an ACK at MTU 1024: " + frames);
        for (final PairLink.Sent frame : frames)
        {
            final RoceFrameParser parser = frame.parse();
            assertEquals(6, parser.ipVersion(), frame.toString());
            final String from = Gid.toString(parser.ipv6().sourceHigh(), parser.ipv6().sourceLow());
            final String to = Gid.toString(parser.ipv6().destinationHigh(), parser.ipv6().destinationLow());
            assertEquals("A".equals(frame.from()) ? "fd00:77::1>fd00:77::2" : "fd00:77::2>fd00:77::1",
                from + ">" + to, frame.toString());
        }
    }

    private VerbsFixture.Pair connect(final int sourceIndexA, final int sourceIndexB)
    {
        final VerbsFixture.Pair pair = new VerbsFixture.Pair();
        pair.a.sendCq = fx.a.createCq(64);
        pair.a.recvCq = fx.a.createCq(64);
        pair.b.sendCq = fx.b.createCq(64);
        pair.b.recvCq = fx.b.createCq(64);
        pair.a.qp = fx.pdA.createQp(VerbsFixture.init(QpType.RC, pair.a.sendCq, pair.a.recvCq));
        pair.b.qp = fx.pdB.createQp(VerbsFixture.init(QpType.RC, pair.b.sendCq, pair.b.recvCq));
        final VerbsFixture.Params params = new VerbsFixture.Params();
        VerbsFixture.bringUp(pair.a.qp, pair.b.qp.qpNum(), fx.b.queryGid(sourceIndexB), params.psnA, params.psnB,
            withSource(new VerbsFixture.Params(), sourceIndexA));
        VerbsFixture.bringUp(pair.b.qp, pair.a.qp.qpNum(), fx.a.queryGid(sourceIndexA), params.psnB, params.psnA,
            withSource(new VerbsFixture.Params(), sourceIndexB));
        return pair;
    }

    private static VerbsFixture.Params withSource(final VerbsFixture.Params params, final int index)
    {
        params.sourceGidIndex = index;
        return params;
    }
}
