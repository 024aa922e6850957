package org.roce4j.interop;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.roce4j.cm.ib.CmCounter;
import org.roce4j.cm.rdmacm.ConnParam;
import org.roce4j.cm.rdmacm.RdmaCm;
import org.roce4j.cm.rdmacm.RdmaCmEvent;
import org.roce4j.cm.rdmacm.RdmaCmEventType;
import org.roce4j.cm.rdmacm.RdmaCmException;
import org.roce4j.cm.rdmacm.RdmaCmId;
import org.roce4j.ib.AccessFlags;
import org.roce4j.ib.SendFlags;
import org.roce4j.ib.WcStatus;
import org.roce4j.ib.WorkCompletion;
import org.roce4j.ib.WrOpcode;
import org.roce4j.transport.link.tunnel.TunnelLink;
import org.roce4j.verbs.CompletionQueue;
import org.roce4j.verbs.DeviceOptions;
import org.roce4j.verbs.MemoryRegion;
import org.roce4j.verbs.ProtectionDomain;
import org.roce4j.verbs.QpInitAttributes;
import org.roce4j.verbs.RdmaDevice;
import org.roce4j.verbs.RecvWorkRequest;
import org.roce4j.verbs.SendWorkRequest;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.header.Ipv4Header;
import org.roce4j.wire.mad.CmAttribute;
import org.roce4j.wire.mad.CmRejMessage;
import org.roce4j.wire.mad.MadHeader;
import org.roce4j.wire.pcap.PcapReader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * rdma_cm between roce4j and rxe's kernel CM (Linux 6.1, rdma-core 44 rping): {@code roce rping} against
 * {@code rping} in both roles, 100 validated pings of 64 bytes and of 65535 bytes (the largest size rping accepts:
 * RPING_BUFSIZE - 1); a connect to a port nobody listens on, both ways, gets REJ reason 8 (INVALID_SERVICE_ID),
 * the rejection rxe's kernel sends; and a disconnect from either side, in either role, is seen by the other. Every
 * frame on the tunnel is recorded and its ICRC checked.
 */
@RxePeerTest(expectedCaseSeconds = 15)
class RpingWithRxeTest
{
    /** Time a program in the guest may still take after roce4j's side ended (its disconnect handling). */
    private static final Duration GRACE = Duration.ofSeconds(15);
    /** Longest wait for one rdma_cm event or completion: a CM retransmission (6 s) and then some. */
    private static final long WAIT_NS = TimeUnit.SECONDS.toNanos(20);
    /** roce rping's wait for a completion or CM event. */
    private static final String SILENCE_TIMEOUT_MS = "20000";
    private static final int PINGS = 100;

    private RxePeer peer;

    // ---- roce rping against rping -------------------------------------------------------------------------------

    @ParameterizedTest(name = "{0} B, roce4j as client")
    @ValueSource(ints = {64, 65535})
    void roceRpingClientAgainstRpingServer(final int size, final TestInfo test) throws IOException
    {
        final long start = System.nanoTime();
        final String name = CaseName.of(test) + "-" + size;
        final int port = 20000 + size % 1000;
        final boolean print = 64 == size;
        peer.kill("rps");
        // rping's stdout is buffered and its stderr is not: keep them apart so lines do not interleave.
        peer.start("rps", "rping -s -V -a " + peer.guestAddress() + " -p " + port + " -S " + size +
            (print ? " -v" : "") + " 2>/tmp/rps.err");
        awaitRpingListening(port);

        final RoceRun roce = RoceRun.run("rping", "-c", "-a", peer.guestAddress(), "-p", Integer.toString(port),
            "-C", Integer.toString(PINGS), "-v", "-V", "-S", Integer.toString(size),
            "--link", peer.tunnelSpec(name, 0, 0), "--timeout", SILENCE_TIMEOUT_MS);
        final int rxeExit = peer.waitFor("rps", peer.caseTimeLeft(), () -> true, GRACE);
        final String rxeLog = peer.log("rps");
        final String rxeErr = peer.runOk("cat /tmp/rps.err");
        final String context = context(name, roce, rxeLog + "--- rping (stderr):\n" + rxeErr);

        assertEquals(0, roce.exitCode(), "roce rping failed\n" + context);
        assertEquals(0, rxeExit, "rping -s failed\n" + context);
        assertPings(roce.out(), "ping data: ", size, context);
        assertFalse(roce.err().contains("data mismatch"), context);
        // rxe saw roce4j's disconnect: rping -s ends its loop on the DISCONNECTED event, as after a C client.
        assertTrue(rxeErr.contains("server DISCONNECT EVENT..."), context);
        assertTrue(rxeErr.contains("wait for RDMA_READ_ADV state 10"), context);
        if (print)
        {
            assertPings(rxeLog, "server ping data: ", size, context);
        }
        final Map<CmAttribute, Integer> cm = CmCaptures.verify(name, context);
        assertEquals(1, cm.get(CmAttribute.CONNECT_REQUEST), "one REQ (no retransmission)\n" + cm);
        assertEquals(1, cm.get(CmAttribute.CONNECT_REPLY));
        assertEquals(1, cm.get(CmAttribute.READY_TO_USE));
        assertEquals(1, cm.get(CmAttribute.DISCONNECT_REQUEST));
        assertEquals(1, cm.get(CmAttribute.DISCONNECT_REPLY));
        report(name, start, cm);
    }

    @ParameterizedTest(name = "{0} B, roce4j as server")
    @ValueSource(ints = {64, 65535})
    void rpingClientAgainstRoceRpingServer(final int size, final TestInfo test) throws IOException
    {
        final long start = System.nanoTime();
        final String name = CaseName.of(test) + "-" + size;
        final int port = 21000 + size % 1000;
        final boolean print = 64 == size;
        final CompletableFuture<RoceRun> roce = CompletableFuture.supplyAsync(() -> RoceRun.run("rping", "-s",
            "-a", peer.linkAddress(), "-p", Integer.toString(port), "-v", "-V", "-S", Integer.toString(size),
            "--link", peer.tunnelSpec(name, 0, 0), "--timeout", SILENCE_TIMEOUT_MS));
        peer.kill("rpc");
        // roce rping may not listen yet: rping then gets REJ 8 (or no ARP answer yet); try again, as a user would.
        peer.start("rpc", "i=0; while [ $i -lt 100 ]; do rping -c -V -a " + peer.linkAddress() + " -p " + port +
            " -C " + PINGS + " -S " + size + (print ? " -v" : "") + " >/tmp/rpc.out 2>/tmp/rpc.err; rc=$?; " +
            "cat /tmp/rpc.out; grep -qE 'error 8|ADDR_ERROR|UNREACHABLE' /tmp/rpc.err || exit $rc; " +
            "i=$((i+1)); usleep 100000; done; exit 1");
        final int rxeExit = peer.waitFor("rpc", peer.caseTimeLeft(), roce::isDone, GRACE);
        final String rxeLog = peer.log("rpc") + peer.runOk("cat /tmp/rpc.err");
        final RoceRun result = join(roce, rxeLog);
        final String context = context(name, result, rxeLog);

        assertEquals(0, rxeExit, "rping -c failed\n" + context);
        assertEquals(0, result.exitCode(), "roce rping -s failed\n" + context);
        assertPings(result.out(), "server ping data: ", size, context);
        // roce4j saw rxe's disconnect.
        assertTrue(result.err().contains("server DISCONNECT EVENT..."), context);
        assertTrue(result.err().contains("wait for RDMA_READ_ADV state 10"), context);
        if (print)
        {
            assertPings(rxeLog, "ping data: ", size, context);
        }
        assertFalse(rxeLog.contains("data mismatch"), context);
        final Map<CmAttribute, Integer> cm = CmCaptures.verify(name, context);
        assertTrue(cm.get(CmAttribute.CONNECT_REPLY) >= 1, cm.toString());
        assertEquals(1, cm.get(CmAttribute.DISCONNECT_REQUEST), cm.toString());
        assertEquals(1, cm.get(CmAttribute.DISCONNECT_REPLY), cm.toString());
        report(name, start, cm);
    }

    // ---- rejection for a port nobody listens on -----------------------------------------------------------------

    @Test
    void connectToAPortNobodyListensOnInRxeGetsTheKernelsRejectReason8(final TestInfo test) throws IOException
    {
        final long start = System.nanoTime();
        final String name = CaseName.of(test);
        final RdmaCmEvent event;
        try (Endpoint ep = new Endpoint(name))
        {
            final RdmaCmId id = ep.cm.createId();
            id.createQp(ep.pd, new QpInitAttributes().cq(ep.cq).cap(4, 4, 1, 1, 0));
            id.connect(new InetSocketAddress(peer.guestAddress(), 7999), new ConnParam());
            event = assertThrows(RdmaCmException.class,
                () -> ep.cm.expect(id, RdmaCmEventType.ESTABLISHED, WAIT_NS)).event();
        }
        assertEquals(RdmaCmEventType.REJECTED, event.type(), event.toString());
        assertEquals(8, event.status(), "rxe's kernel: no listener for the service ID: REJ INVALID_SERVICE_ID");

        final List<byte[]> rejs = madsOf(name, CmAttribute.CONNECT_REJECT, true);
        assertEquals(1, rejs.size());
        final CmRejMessage rej = new CmRejMessage().wrapMad(new UnsafeBuffer(rejs.get(0)), 0);
        assertEquals(8, rej.reason());
        assertEquals(0, rej.localCommId(), "cm_issue_rej: no connection, local comm ID 0");
        assertEquals(CmRejMessage.REJECTED_REQ, rej.messageRejected());
        final byte[] req = madsOf(name, CmAttribute.CONNECT_REQUEST, false).get(0);
        assertEquals(new MadHeader().wrap(new UnsafeBuffer(req), 0).transactionId(),
            new MadHeader().wrap(new UnsafeBuffer(rejs.get(0)), 0).transactionId(), "the REJ echoes our REQ's TID");
        report(name, start, CmCaptures.verify(name, event.toString()));
    }

    @Test
    void rpingToAPortNobodyListensOnInRoce4jGetsReason8Too(final TestInfo test) throws IOException
    {
        final long start = System.nanoTime();
        final String name = CaseName.of(test);
        try (Endpoint ep = new Endpoint(name))
        {
            final RxePeer.Result result = peer.run("rping -c -a " + peer.linkAddress() + " -p 7998 -C 1",
                Duration.ofSeconds(60));
            assertEquals(255, result.exitCode(), result.output());
            assertTrue(result.output().contains("cma event RDMA_CM_EVENT_REJECTED, error 8"), result.output());
            assertEquals(1, ep.cm.counters().get(CmCounter.REJ_INVALID_SERVICE_ID));
        }
        report(name, start, CmCaptures.verify(name, name));
    }

    // ---- disconnect from either side -----------------------------------------------------------------------------

    @Test
    void roce4jClientDisconnectIsSeenByRpingServer(final TestInfo test) throws IOException
    {
        final long start = System.nanoTime();
        final String name = CaseName.of(test);
        final int port = 22001;
        peer.kill("rps");
        peer.start("rps", "rping -s -a " + peer.guestAddress() + " -p " + port);
        awaitRpingListening(port);
        try (Endpoint ep = new Endpoint(name))
        {
            final RdmaCmId id = ep.connect(port);
            id.disconnect();
            final RdmaCmEvent done = ep.cm.expect(id, RdmaCmEventType.DISCONNECTED, WAIT_NS);
            assertTrue(done.message().contains("DREP received"), done.toString());
        }
        final int exit = peer.waitFor("rps", peer.caseTimeLeft(), () -> true, GRACE);
        final String log = peer.log("rps");
        assertEquals(0, exit, log);
        assertTrue(log.contains("server DISCONNECT EVENT..."), log);
        report(name, start, CmCaptures.verify(name, log));
    }

    @Test
    void rxeServerDisconnectIsSeenByRoce4jClient(final TestInfo test) throws IOException
    {
        final long start = System.nanoTime();
        final String name = CaseName.of(test);
        final int port = 22002;
        peer.kill("rps");
        peer.start("rps", "rping -s -a " + peer.guestAddress() + " -p " + port);
        awaitRpingListening(port);
        final RdmaCmEvent seen;
        try (Endpoint ep = new Endpoint(name))
        {
            final RdmaCmId id = ep.connect(port);
            // An 8-byte SEND is not a struct rping_rdma_info: rping -s fails and disconnects (rping_disconnect).
            final MemoryRegion mr = ep.pd.registerMemory(ByteBuffer.allocateDirect(64), AccessFlags.LOCAL_WRITE);
            id.qp().postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .addSge(mr, 0, 8));
            seen = ep.cm.expect(id, RdmaCmEventType.DISCONNECTED, WAIT_NS);
        }
        final int exit = peer.waitFor("rps", peer.caseTimeLeft(), () -> true, GRACE);
        final String log = peer.log("rps");
        assertTrue(seen.message().contains("DREQ received"), seen.toString());
        assertTrue(log.contains("Received bogus data, size 8"), log);
        assertEquals(255, exit, "rping -s fails after bogus data\n" + log);
        final Map<CmAttribute, Integer> cm = CmCaptures.verify(name, log);
        assertEquals(1, cm.get(CmAttribute.DISCONNECT_REQUEST), "the DREQ came from rxe: " + cm);
        report(name, start, cm);
    }

    @Test
    void roce4jServerDisconnectIsSeenByRpingClient(final TestInfo test) throws IOException
    {
        final long start = System.nanoTime();
        final String name = CaseName.of(test);
        final int port = 22003;
        try (Endpoint ep = new Endpoint(name))
        {
            final RdmaCmId listener = ep.cm.createId().listen(new InetSocketAddress("0.0.0.0", port), 3);
            peer.kill("rpc");
            peer.start("rpc", "rping -c -a " + peer.linkAddress() + " -p " + port + " -C 1 -v");
            final RdmaCmEvent request = ep.cm.expect(listener, RdmaCmEventType.CONNECT_REQUEST, WAIT_NS);
            final RdmaCmId child = request.id();
            child.createQp(ep.pd, new QpInitAttributes().cq(ep.cq).cap(4, 4, 1, 1, 0));
            final MemoryRegion mr = ep.pd.registerMemory(ByteBuffer.allocateDirect(64), AccessFlags.LOCAL_WRITE);
            child.qp().postRecv(new RecvWorkRequest().wrId(1).addSge(mr, 0, 64));
            child.accept(null);
            ep.cm.expect(child, RdmaCmEventType.ESTABLISHED, WAIT_NS);
            final WorkCompletion[] wc = {new WorkCompletion()};
            assertEquals(1, ep.cq.pollBlocking(wc, WAIT_NS), "rping's first SEND (its buffer's address)");
            assertEquals(WcStatus.SUCCESS, wc[0].status());
            assertEquals(16, wc[0].byteLen(), "struct rping_rdma_info");
            child.disconnect();
            ep.cm.expect(child, RdmaCmEventType.DISCONNECTED, WAIT_NS);
        }
        final int exit = peer.waitFor("rpc", peer.caseTimeLeft(), () -> true, GRACE);
        final String log = peer.log("rpc");
        assertTrue(log.contains("client DISCONNECT EVENT..."), log);
        assertEquals(0, exit, "rping -c ends normally on a disconnect\n" + log);
        report(name, start, CmCaptures.verify(name, log));
    }

    // ---- helpers ------------------------------------------------------------------------------------------------

    /** A roce4j device with rdma_cm on a tunnel to the guest, recording to target/pcaps/NAME.pcap. */
    private final class Endpoint implements AutoCloseable
    {
        final RdmaDevice device;
        final RdmaCm cm;
        final ProtectionDomain pd;
        final CompletionQueue cq;

        Endpoint(final String pcapName) throws IOException
        {
            assumeTrue(peer.supportsTunnel(), "raw frames need the QEMU peer's dgram tunnel");
            final TunnelLink link = peer.openLink(pcapName);
            device = RdmaDevice.open(link, DeviceOptions.dedicated().backoff());
            cm = RdmaCm.open(device);
            pd = device.allocPd();
            cq = device.createCq(16);
        }

        RdmaCmId connect(final int port)
        {
            final RdmaCmId id = cm.createId();
            id.createQp(pd, new QpInitAttributes().cq(cq).cap(4, 4, 1, 1, 0));
            id.connect(new InetSocketAddress(peer.guestAddress(), port), new ConnParam());
            cm.expect(id, RdmaCmEventType.ESTABLISHED, WAIT_NS);
            return id;
        }

        public void close()
        {
            assertEquals(0, cm.errors(), String.valueOf(cm.lastError()));
            cm.close();
            device.close();
        }
    }

    private RoceRun join(final CompletableFuture<RoceRun> roce, final String rxeLog)
    {
        try
        {
            return roce.get(peer.caseTimeLeft().toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (final Exception ex)
        {
            throw new AssertionError("roce rping did not finish; rping said:\n" + rxeLog, ex);
        }
    }

    /** Wait until rping -s in the guest has its rdma_cm id in LISTEN on the port (iproute2's rdma tool). */
    private void awaitRpingListening(final int port) throws IOException
    {
        final RxePeer.Result result = peer.run("timeout 30 sh -c 'until rdma res show cm_id 2>/dev/null | " +
            "grep LISTEN | grep -q \":" + port + " \"; do usleep 20000; done'", Duration.ofSeconds(60));
        assertEquals(0, result.exitCode(), "rping -s did not listen on " + port + ":\n" + result.output() + "\n" +
            peer.log("rps"));
    }

    private static String context(final String name, final RoceRun roce, final String rxeLog)
    {
        return name + ":\n--- roce rping (stdout, first 3000 chars):\n" + head(roce.out()) + "--- roce rping " +
            "(stderr):\n" + roce.err() + "--- rping:\n" + head(rxeLog);
    }

    private static String head(final String text)
    {
        return text.length() > 3000 ? text.substring(0, 3000) + "...\n" : text;
    }

    /** Every ping line carries rping's pattern for its number: "rdma-ping-N: " and A..z from 'A' + N % 58. */
    private static void assertPings(final String output, final String prefix, final int size, final String context)
    {
        final List<String> lines = output.lines().filter(l -> l.startsWith(prefix)).toList();
        assertEquals(PINGS, lines.size(), "'" + prefix + "' lines\n" + context);
        for (int i = 0; i < PINGS; i++)
        {
            final String expected = prefix + expectedPing(i, size);
            if (!expected.equals(lines.get(i)))
            {
                throw new AssertionError("ping " + i + " differs from rping's pattern:\n  got      " +
                    head(lines.get(i)) + "\n  expected " + head(expected) + "\n" + context);
            }
        }
    }

    private static String expectedPing(final int ping, final int size)
    {
        final StringBuilder sb = new StringBuilder("rdma-ping-" + ping + ": ");
        int c = 65 + ping % 58;
        while (sb.length() < size - 1)
        {
            sb.append((char)c);
            c = c >= 122 ? 65 : c + 1;
        }
        return sb.substring(0, size - 1);
    }

    /** The MADs of one attribute in a recording, sent by rxe (fromRxe) or by roce4j. */
    private List<byte[]> madsOf(final String name, final CmAttribute attribute, final boolean fromRxe)
        throws IOException
    {
        final int rxe = Ipv4Header.parseAddress(peer.guestAddress());
        final List<byte[]> out = new ArrayList<>();
        final RoceFrameParser parser = new RoceFrameParser();
        final MadHeader mad = new MadHeader();
        try (PcapReader reader = PcapReader.open(CmCaptures.pcap(name)))
        {
            while (reader.next())
            {
                if (FrameStatus.OK != parser.parse(reader.buffer(), 0, reader.capturedLength()) ||
                    Opcode.UD_SEND_ONLY != parser.opcode() || 1 != parser.bth().destQp())
                {
                    continue;
                }
                if (attribute.id() == mad.wrap(parser.buffer(), parser.payloadOffset()).attributeId() &&
                    (rxe == parser.ipv4().source()) == fromRxe)
                {
                    final byte[] bytes = new byte[MadHeader.MAD_LENGTH];
                    parser.buffer().getBytes(parser.payloadOffset(), bytes);
                    out.add(bytes);
                }
            }
        }
        return out;
    }

    private static void report(final String name, final long startNs, final Map<CmAttribute, Integer> cm)
    {
        CmCaptures.report("rping-interop", name, startNs, cm);
    }
}
