package org.roce4j.interop;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.roce4j.cm.QpSetup;
import org.roce4j.cm.oob.QpInfo;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.Flush;
import org.roce4j.ib.MwType;
import org.roce4j.ib.QpState;
import org.roce4j.ib.QpType;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcOpcode;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.ib.WrOpcode;
import org.roce4j.transport.TransportCounter;
import org.roce4j.transport.link.tunnel.TunnelLink;
import org.roce4j.transport.provider.EngineConfig;
import org.roce4j.verbs.CompletionQueue;
import org.roce4j.verbs.DeviceOptions;
import org.roce4j.verbs.MemoryRegion;
import org.roce4j.verbs.MemoryWindow;
import org.roce4j.verbs.ProtectionDomain;
import org.roce4j.verbs.QpInitAttributes;
import org.roce4j.verbs.QueuePair;
import org.roce4j.verbs.RdmaDevice;
import org.roce4j.verbs.RecvWorkRequest;
import org.roce4j.verbs.SendWorkRequest;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.addr.Gid;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The verbs no stock tool exercises, against the newest rxe (trixie: Linux 6.12, rdma-core 56.1): FLUSH and
 * ATOMIC_WRITE (IBA 1.5 annex A19; rxe since Linux 6.2), type 1 memory windows (IBA 10.6.7.1: ibv_bind_mw, access
 * through the window's rkey) and type 2B ones (IBA 10.6.7.2: BIND_MW, LOCAL_INV, SEND_WITH_INVALIDATE), in both
 * directions. The guest side is a
 * python3-pyverbs program ({@link PyverbsAgent}, {@code docker/rxe-vm/pyverbs/rxe_agent.py}) driving one RC QP on
 * rxe0; roce4j's side is the Verbs API over the tunnel link. Each side's memory is read locally afterwards, every
 * frame on the tunnel is recorded and its ICRC checked, and the new opcodes must be on the wire in the expected
 * direction.
 */
@RxePeerTest(expectedCaseSeconds = 40, suite = "trixie")
class PyverbsWithRxeTest
{
    private static final int MR_SIZE = 4096;
    /** Where each check writes in the MRs: the WRITE+FLUSH range, the ATOMIC_WRITE word, the memory window. */
    private static final int WRITE_OFFSET = 0;
    private static final int ATOMIC_OFFSET = 512;
    private static final int WINDOW_OFFSET = 1024;
    private static final int WINDOW_LENGTH = 256;
    private static final int TYPE1_OFFSET = 1536;
    private static final int PATTERN_LENGTH = 64;
    /** IBV_WC_SUCCESS and IBV_WC_REM_ACCESS_ERR as pyverbs reports them (enum ibv_wc_status). */
    private static final int IBV_WC_SUCCESS = 0;
    private static final int IBV_WC_REM_ACCESS_ERR = 10;
    private static final int IBV_WC_RETRY_EXC_ERR = 12;
    /** IBV_QPS_ERR (enum ibv_qp_state). */
    private static final int IBV_QPS_ERR = 6;
    /** roce4j's MR: every remote right, windows may be bound to it, FLUSH of the global placement type. */
    private static final int MR_ACCESS = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE |
        AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC | AccessFlags.MW_BIND | AccessFlags.FLUSH_GLOBAL;
    private static final long WAIT_NS = Duration.ofSeconds(15).toNanos();
    private static final HexFormat HEX = HexFormat.of();

    /** MAC of roce4j's tunnel link, which tells the directions of the recording apart. */
    private long ourMac;
    private RxePeer peer;

    @Test
    void roceRequesterAgainstRxeResponder(final TestInfo test) throws IOException
    {
        final long start = System.nanoTime();
        final String name = CaseName.of(test);
        final String log;
        try (Roce roce = new Roce(name, true); PyverbsAgent rxe = new PyverbsAgent(peer, peer.caseTimeLeft()))
        {
            final JsonNode theirs = roce.connect(rxe, QpSetup.DEFAULT_RETRY);
            final long addr = theirs.get("addr").asLong();
            final int rkey = theirs.get("rkey").asInt();

            // WRITE, then FLUSH the range it wrote (the usual persistence pattern), then FLUSH the whole MR
            final byte[] pattern = pattern(PATTERN_LENGTH, 0x11);
            roce.mr.buffer().putBytes(WRITE_OFFSET, pattern);
            expect(WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, roce.post(new SendWorkRequest().opcode(WrOpcode.RDMA_WRITE)
                .addSge(roce.mr, WRITE_OFFSET, PATTERN_LENGTH).rdma(addr + WRITE_OFFSET, rkey)));
            expect(WcStatus.SUCCESS, WcOpcode.FLUSH, roce.post(new SendWorkRequest().opcode(WrOpcode.FLUSH)
                .flush(addr + WRITE_OFFSET, rkey, PATTERN_LENGTH, Flush.GLOBAL, Flush.RANGE)));
            expect(WcStatus.SUCCESS, WcOpcode.FLUSH, roce.post(new SendWorkRequest().opcode(WrOpcode.FLUSH)
                .flush(0, rkey, 0, Flush.GLOBAL, Flush.MR)));
            assertArrayEquals(pattern, readMem(rxe, WRITE_OFFSET, PATTERN_LENGTH), "rxe's memory after WRITE+FLUSH");

            // ATOMIC_WRITE: the 8 bytes land as the requester laid them out (rdma-core passes them through)
            final long value = 0x0102_0304_0506_0708L;
            expect(WcStatus.SUCCESS, WcOpcode.ATOMIC_WRITE, roce.post(new SendWorkRequest()
                .opcode(WrOpcode.ATOMIC_WRITE).atomicWrite(addr + ATOMIC_OFFSET, rkey, value)));
            assertArrayEquals(nativeBytes(value), readMem(rxe, ATOMIC_OFFSET, 8), "rxe's word after ATOMIC_WRITE");

            // a type 2B window bound by rxe: WRITE and READ through its rkey, then LOCAL_INV ends it
            final JsonNode bound = rxe.call("bind_mw", "offset", WINDOW_OFFSET, "length", WINDOW_LENGTH,
                "access", List.of("remote_write", "remote_read"));
            assertEquals(IBV_WC_SUCCESS, bound.get("status").asInt(), "rxe's BIND_MW completion " + bound);
            final int windowRkey = bound.get("rkey").asInt();
            final byte[] through = pattern(WINDOW_LENGTH, 0x5A);
            roce.mr.buffer().putBytes(WINDOW_OFFSET, through);
            expect(WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, roce.post(new SendWorkRequest().opcode(WrOpcode.RDMA_WRITE)
                .addSge(roce.mr, WINDOW_OFFSET, WINDOW_LENGTH).rdma(addr + WINDOW_OFFSET, windowRkey)));
            assertArrayEquals(through, readMem(rxe, WINDOW_OFFSET, WINDOW_LENGTH), "written through rxe's window");
            roce.mr.buffer().setMemory(2048, WINDOW_LENGTH, (byte)0);
            expect(WcStatus.SUCCESS, WcOpcode.RDMA_READ, roce.post(new SendWorkRequest().opcode(WrOpcode.RDMA_READ)
                .addSge(roce.mr, 2048, WINDOW_LENGTH).rdma(addr + WINDOW_OFFSET, windowRkey)));
            assertArrayEquals(through, roce.bytes(2048, WINDOW_LENGTH), "read back through rxe's window");

            // a type 1 window bound by rxe with ibv_bind_mw (IBA 10.6.7.1): roce4j WRITEs through its rkey
            final JsonNode bound1 = rxe.call("bind_mw1", "offset", TYPE1_OFFSET, "length", WINDOW_LENGTH,
                "access", List.of("remote_write"));
            assertEquals(IBV_WC_SUCCESS, bound1.get("status").asInt(), "rxe's ibv_bind_mw completion " + bound1);
            final byte[] throughType1 = pattern(WINDOW_LENGTH, 0x44);
            roce.mr.buffer().putBytes(TYPE1_OFFSET, throughType1);
            expect(WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, roce.post(new SendWorkRequest().opcode(WrOpcode.RDMA_WRITE)
                .addSge(roce.mr, TYPE1_OFFSET, WINDOW_LENGTH).rdma(addr + TYPE1_OFFSET, bound1.get("rkey").asInt())));
            assertArrayEquals(throughType1, readMem(rxe, TYPE1_OFFSET, WINDOW_LENGTH), "through rxe's type 1 window");

            final JsonNode invalidated = rxe.call("local_inv", "rkey", unsigned(windowRkey));
            assertEquals(IBV_WC_SUCCESS, invalidated.get("status").asInt(), "rxe's LOCAL_INV " + invalidated);
            // rxe_resp.c check_rkey: the invalid window gets NAK remote access error; roce4j's QP goes to ERR
            expect(WcStatus.REM_ACCESS_ERR, WcOpcode.RDMA_WRITE, roce.post(new SendWorkRequest()
                .opcode(WrOpcode.RDMA_WRITE).addSge(roce.mr, WINDOW_OFFSET, 8).rdma(addr + WINDOW_OFFSET, windowRkey)));
            assertEquals(QpState.ERR, roce.qp.state());
            log = rxe.log();
        }
        final Map<Opcode, Integer> sent = frames(name, true);
        report(name, start, sent, log);
        assertTrue(sent.get(Opcode.RC_FLUSH) >= 2 && sent.get(Opcode.RC_ATOMIC_WRITE) >= 1, sent.toString());
    }

    @Test
    void rxeRequesterAgainstRoceResponder(final TestInfo test) throws IOException
    {
        final long start = System.nanoTime();
        final String name = CaseName.of(test);
        final String log;
        try (Roce roce = new Roce(name, true); PyverbsAgent rxe = new PyverbsAgent(peer, peer.caseTimeLeft()))
        {
            roce.connect(rxe, QpSetup.DEFAULT_RETRY);
            final long addr = roce.mr.address(0);
            final int rkey = roce.mr.rkey();

            final byte[] pattern = pattern(PATTERN_LENGTH, 0x22);
            assertSuccess(rxe.call("post", "verb", "write", "rkey", unsigned(rkey),
                "addr", addr + WRITE_OFFSET, "hex", HEX.formatHex(pattern)));
            assertSuccess(rxe.call("post", "verb", "flush", "rkey", unsigned(rkey),
                "addr", addr + WRITE_OFFSET, "length", PATTERN_LENGTH, "level", "range"));
            assertSuccess(rxe.call("post", "verb", "flush", "rkey", unsigned(rkey), "addr", 0, "length", 0,
                "level", "mr"));
            assertArrayEquals(pattern, roce.bytes(WRITE_OFFSET, PATTERN_LENGTH), "roce4j's memory after WRITE+FLUSH");
            assertEquals(2, roce.device.counters().get(TransportCounter.RXE_FLUSH_ICRC), "rxe's two FLUSHes");

            final byte[] word = pattern(8, 0x70);
            assertSuccess(rxe.call("post", "verb", "atomic_write", "rkey", unsigned(rkey),
                "addr", addr + ATOMIC_OFFSET, "hex", HEX.formatHex(word)));
            assertArrayEquals(word, roce.bytes(ATOMIC_OFFSET, 8), "roce4j's word after rxe's ATOMIC_WRITE");

            // a type 1 window bound by roce4j with ibv_bind_mw's counterpart: rxe WRITEs through its rkey
            final MemoryWindow type1 = roce.pd.allocMw(MwType.TYPE_1);
            final int type1Rkey = type1.bind(roce.qp, 50, SendFlags.SIGNALED, roce.mr, roce.mr.address(TYPE1_OFFSET),
                WINDOW_LENGTH, AccessFlags.REMOTE_WRITE);
            expect(WcStatus.SUCCESS, WcOpcode.BIND_MW, roce.next());
            final byte[] throughType1 = pattern(WINDOW_LENGTH, 0x55);
            assertSuccess(rxe.call("post", "verb", "write", "rkey", unsigned(type1Rkey),
                "addr", addr + TYPE1_OFFSET, "hex", HEX.formatHex(throughType1)));
            assertArrayEquals(throughType1, roce.bytes(TYPE1_OFFSET, WINDOW_LENGTH), "through roce4j's type 1 window");

            // a type 2B window bound by roce4j: rxe WRITEs through it, then invalidates it with SEND_WITH_INVALIDATE
            final MemoryWindow window = roce.pd.allocMw(MwType.TYPE_2);
            final int windowRkey = MemoryWindow.incRkey(window.rkey());
            expect(WcStatus.SUCCESS, WcOpcode.BIND_MW, roce.post(new SendWorkRequest().opcode(WrOpcode.BIND_MW)
                .bindMw(window, windowRkey, roce.mr, roce.mr.address(WINDOW_OFFSET), WINDOW_LENGTH,
                    AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ)));
            final byte[] through = pattern(WINDOW_LENGTH, 0x33);
            assertSuccess(rxe.call("post", "verb", "write", "rkey", unsigned(windowRkey),
                "addr", addr + WINDOW_OFFSET, "hex", HEX.formatHex(through)));
            assertArrayEquals(through, roce.bytes(WINDOW_OFFSET, WINDOW_LENGTH), "written through roce4j's window");

            roce.qp.postRecv(new RecvWorkRequest().wrId(77).addSge(roce.mr, 3072, 64));
            assertSuccess(rxe.call("post", "verb", "send_inv", "invalidate", unsigned(windowRkey), "hex", "c0ffee"));
            final WorkCompletion received = roce.next();
            assertEquals(WcStatus.SUCCESS, received.status(), received.toString());
            assertEquals(WcOpcode.RECV, received.opcode(), received.toString());
            assertTrue(0 != (received.wcFlags() & WorkCompletion.FLAG_WITH_INV), received.toString());
            assertEquals(windowRkey, received.invalidatedRkey(), received.toString());

            // IBA 10.6.7.2.4: an invalidated window's rkey is refused: rxe's WRITE completes with remote access error
            final JsonNode refused = rxe.call("post", "verb", "write", "rkey", unsigned(windowRkey),
                "addr", addr + WINDOW_OFFSET, "hex", "00");
            assertEquals(IBV_WC_REM_ACCESS_ERR, refused.get("status").asInt(), refused.toString());
            assertEquals(IBV_QPS_ERR, rxe.call("qp_state").get("state").asInt(), "rxe's QP after the NAK");
            log = rxe.log();
        }
        final Map<Opcode, Integer> sent = frames(name, false);
        report(name, start, sent, log);
        assertTrue(sent.get(Opcode.RC_FLUSH) >= 2 && sent.get(Opcode.RC_ATOMIC_WRITE) >= 1 &&
            sent.get(Opcode.RC_SEND_ONLY_WITH_INVALIDATE) >= 1, "rxe's requests on the wire " + sent);
    }

    @Test
    void rxesFlushIcrcDiffersFromTheStandard(final TestInfo test) throws IOException
    {
        // rxe (Linux 6.12) counts a FLUSH's headers twice in its ICRC (rxe_opcode.c gives RC_FLUSH no payload
        // offset). roce4j without EngineConfig.rxeFlushIcrc speaks the standard: rxe drops its FLUSH silently until
        // the retries run out, and roce4j drops rxe's as a bad ICRC. retry_cnt 1 on both sides keeps it short.
        final long start = System.nanoTime();
        final String name = CaseName.of(test);
        final String log;
        try (Roce roce = new Roce(name, false); PyverbsAgent rxe = new PyverbsAgent(peer, peer.caseTimeLeft()))
        {
            final JsonNode theirs = roce.connect(rxe, 1);
            expect(WcStatus.RETRY_EXC_ERR, WcOpcode.FLUSH, roce.post(new SendWorkRequest().opcode(WrOpcode.FLUSH)
                .flush(theirs.get("addr").asLong(), theirs.get("rkey").asInt(), PATTERN_LENGTH, Flush.GLOBAL,
                    Flush.RANGE)));
            final JsonNode refused = rxe.call("post", "verb", "flush", "rkey", unsigned(roce.mr.rkey()),
                "addr", roce.mr.address(0), "length", PATTERN_LENGTH, "level", "range");
            assertEquals(IBV_WC_RETRY_EXC_ERR, refused.get("status").asInt(), refused.toString());
            assertEquals(2, roce.device.counters().get(TransportCounter.DROP_BAD_ICRC), "rxe's FLUSH and its retry");
            assertEquals(0, roce.device.counters().get(TransportCounter.RXE_FLUSH_ICRC));
            log = rxe.log();
        }
        report(name, start, frames(name, true), log);
    }

    // ---- helpers ------------------------------------------------------------------------------------------------

    /** roce4j's side: a device on the tunnel, one RC QP, one MR, recording to target/pcaps/NAME.pcap. */
    private final class Roce implements AutoCloseable
    {
        final RdmaDevice device;
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final QueuePair qp;
        final MemoryRegion mr;
        final int psn = 0x0A_BCDE;
        private final WorkCompletion[] wc = {new WorkCompletion()};
        private long wrId;

        Roce(final String pcapName, final boolean rxeFlushIcrc) throws IOException
        {
            final TunnelLink link = peer.openLink(pcapName);
            ourMac = link.address().mac();
            device = RdmaDevice.open(link, DeviceOptions.dedicated().backoff()
                .engineConfig(new EngineConfig().rxeFlushIcrc(rxeFlushIcrc)));
            pd = device.allocPd();
            cq = device.createCq(32);
            qp = pd.createQp(new QpInitAttributes().qpType(QpType.RC).cq(cq).cap(8, 8, 1, 1, 0));
            mr = pd.registerMemory(ByteBuffer.allocateDirect(MR_SIZE), MR_ACCESS);
        }

        /** Exchange QP numbers, PSNs and GIDs with the agent and bring both QPs to RTS; returns the agent's QP. */
        JsonNode connect(final PyverbsAgent rxe, final int retryCount) throws IOException
        {
            final int gidIndex = peer.ready().ipv4GidIndex();
            final JsonNode theirs = rxe.call("open", "gid_index", gidIndex, "mr_size", MR_SIZE);
            final Gid ours = device.queryGid(1);
            rxe.call("connect", "qpn", qp.qpNum(), "psn", psn, "gid", words(ours), "retry_cnt", retryCount);
            final Gid gid = parseWords(theirs.get("gid").asText());
            final QpSetup setup = new QpSetup().accessFlags(AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ |
                AccessFlags.REMOTE_ATOMIC | AccessFlags.FLUSH_GLOBAL);
            setup.retries(retryCount, QpSetup.DEFAULT_RETRY).toInit(qp);
            setup.toRts(qp, psn, new QpInfo(0, theirs.get("qpn").asInt(), theirs.get("psn").asInt(), gid.high(),
                gid.low(), 0, 0));
            return theirs;
        }

        /** Post one signalled work request and wait for its completion. */
        WorkCompletion post(final SendWorkRequest wr)
        {
            qp.postSend(wr.wrId(++wrId).sendFlags(SendFlags.SIGNALED));
            final WorkCompletion done = next();
            assertEquals(wrId, done.wrId(), done.toString());
            return done;
        }

        WorkCompletion next()
        {
            assertEquals(1, cq.pollBlocking(wc, WAIT_NS), "no completion within 15 s");
            return wc[0];
        }

        byte[] bytes(final int offset, final int length)
        {
            final byte[] out = new byte[length];
            mr.buffer().getBytes(offset, out);
            return out;
        }

        public void close()
        {
            device.close();
        }
    }

    /**
     * The recording's RoCE frames sent by one side, by opcode. Every RoCE frame of it must parse with a good ICRC, the
     * standard one or, on a FLUSH, rxe's. Read after the device is closed, so that the recording is complete.
     */
    private Map<Opcode, Integer> frames(final String pcapName, final boolean byRoce) throws IOException
    {
        final CmCaptures.Tally tally = CmCaptures.tally(pcapName, ourMac, true, pcapName);
        return byRoce ? tally.ours() : tally.theirs();
    }

    private static void expect(final WcStatus status, final WcOpcode opcode, final WorkCompletion wc)
    {
        assertEquals(status, wc.status(), wc.toString());
        assertEquals(opcode, wc.opcode(), wc.toString());
    }

    private static void assertSuccess(final JsonNode answer)
    {
        assertEquals(IBV_WC_SUCCESS, answer.get("status").asInt(), "rxe's completion " + answer);
    }

    private static byte[] readMem(final PyverbsAgent rxe, final int offset, final int length) throws IOException
    {
        return HEX.parseHex(rxe.call("read_mem", "offset", offset, "length", length).get("hex").asText());
    }

    /** An rkey as the agent takes it: the unsigned 32-bit value (pyverbs refuses negative numbers). */
    private static long unsigned(final int rkey)
    {
        return Integer.toUnsignedLong(rkey);
    }

    private static byte[] pattern(final int length, final int seed)
    {
        final byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++)
        {
            bytes[i] = (byte)(seed + i);
        }
        return bytes;
    }

    private static byte[] nativeBytes(final long value)
    {
        return ByteBuffer.allocate(8).order(ByteOrder.nativeOrder()).putLong(value).array();
    }

    /** A GID as pyverbs writes and reads it: eight groups of four hex digits. */
    private static String words(final Gid gid)
    {
        final String hex = String.format("%016x%016x", gid.high(), gid.low());
        final StringBuilder out = new StringBuilder();
        for (int i = 0; i < 32; i += 4)
        {
            out.append(0 == i ? "" : ":").append(hex, i, i + 4);
        }
        return out.toString();
    }

    private static Gid parseWords(final String words)
    {
        final String hex = words.replace(":", "");
        return new Gid(Long.parseUnsignedLong(hex.substring(0, 16), 16), Long.parseUnsignedLong(hex.substring(16), 16));
    }

    private static void report(final String name, final long startNs, final Map<Opcode, Integer> sent,
        final String log)
    {
        System.out.printf("[pyverbs] %s: %.1f s, FLUSH %d, ATOMIC_WRITE %d, SEND_WITH_INV %d on the wire; agent:%n%s%n",
            name, (System.nanoTime() - startNs) / 1e9, sent.get(Opcode.RC_FLUSH), sent.get(Opcode.RC_ATOMIC_WRITE),
            sent.get(Opcode.RC_SEND_ONLY_WITH_INVALIDATE), log);
    }
}
