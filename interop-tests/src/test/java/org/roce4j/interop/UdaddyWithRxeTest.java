package org.roce4j.interop;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameParser;
import org.roce4j.wire.mad.CmAttribute;
import org.roce4j.wire.mad.CmSidrRepMessage;
import org.roce4j.wire.mad.MadHeader;
import org.roce4j.wire.pcap.PcapReader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * rdma_cm's UDP port space between roce4j and rxe's kernel CM (Linux 6.1, rdma-core 44 udaddy): {@code roce udaddy}
 * against {@code udaddy} in both roles (SIDR_REQ / SIDR_REP, then 10 messages of 100 bytes each way over UD QPs
 * with Q_Key RDMA_UDP_QKEY), and a SIDR_REQ for a port nobody listens on, which rxe's kernel answers with
 * IB_SIDR_UNSUPPORTED. Every frame on the tunnel is recorded and its ICRC checked.
 */
@RxePeerTest(expectedCaseSeconds = 15)
class UdaddyWithRxeTest
{
    /** udaddy's only port (it has no option for it). */
    private static final int PORT = 7174;
    /** Time udaddy in the guest may still take after roce4j's side ended. */
    private static final Duration GRACE = Duration.ofSeconds(15);
    /** roce udaddy's wait for a completion or CM event. */
    private static final String SILENCE_TIMEOUT_MS = "20000";
    /** udaddy's client lines, in order (udaddy.c run_client and main). */
    private static final List<String> CLIENT_LINES = List.of("udaddy: starting client", "udaddy: connecting",
        "initiating data transfers", "receiving data transfers", "data transfers complete", "test complete",
        "return status 0");
    /** udaddy's server lines, in order (udaddy.c run_server and main). */
    private static final List<String> SERVER_LINES = List.of("udaddy: starting server", "receiving data transfers",
        "sending replies", "data transfers complete", "test complete", "return status 0");

    private RxePeer peer;

    @Test
    void roceUdaddyClientAgainstUdaddyServer(final TestInfo test) throws IOException
    {
        final long start = System.nanoTime();
        final String name = CaseName.of(test);
        peer.kill("uds");
        peer.start("uds", "udaddy -b " + peer.guestAddress() + " 2>&1");
        awaitListening();

        final RoceRun roce = RoceRun.run("udaddy", "-s", peer.guestAddress(), "--link", peer.tunnelSpec(name, 0, 0),
            "--timeout", SILENCE_TIMEOUT_MS);
        final int rxeExit = peer.waitFor("uds", peer.caseTimeLeft(), () -> true, GRACE);
        final String rxeLog = peer.log("uds");
        final String context = context(name, roce, rxeLog);

        assertEquals(0, roce.exitCode(), "roce udaddy failed\n" + context);
        assertEquals(CLIENT_LINES, roce.out().lines().toList(), context);
        assertEquals(0, rxeExit, "udaddy (server) failed\n" + context);
        GuestCmTools.assertInOrder(SERVER_LINES, rxeLog, context);
        final Map<CmAttribute, Integer> cm = CmCaptures.verify(name, context);
        assertEquals(1, cm.get(CmAttribute.SERVICE_ID_RES_REQ), "one SIDR_REQ (no retransmission)\n" + cm);
        assertEquals(1, cm.get(CmAttribute.SERVICE_ID_RES_REQ_RESP), cm.toString());
        report(name, start, cm);
    }

    @Test
    void udaddyClientAgainstRoceUdaddyServer(final TestInfo test) throws IOException
    {
        final long start = System.nanoTime();
        final String name = CaseName.of(test);
        final CompletableFuture<RoceRun> roce = CompletableFuture.supplyAsync(() -> RoceRun.run("udaddy",
            "-b", peer.linkAddress(), "--link", peer.tunnelSpec(name, 0, 0), "--timeout", SILENCE_TIMEOUT_MS));
        peer.kill("udc");
        // roce udaddy may not listen yet: udaddy then hears IB_SIDR_UNSUPPORTED (UNREACHABLE, error 1) or no
        // answer; try again, as a user would.
        peer.start("udc", "i=0; while [ $i -lt 100 ]; do udaddy -s " + peer.linkAddress() +
            " >/tmp/udc.out 2>&1; rc=$?; cat /tmp/udc.out; grep -qE 'UNREACHABLE|ADDR_ERROR' /tmp/udc.out || " +
            "exit $rc; i=$((i+1)); usleep 100000; done; exit 1");
        final int rxeExit = peer.waitFor("udc", peer.caseTimeLeft(), roce::isDone, GRACE);
        final String rxeLog = peer.log("udc");
        final RoceRun result = GuestCmTools.join(peer, roce, "roce udaddy", rxeLog);
        final String context = context(name, result, rxeLog);

        assertEquals(0, rxeExit, "udaddy -s failed\n" + context);
        assertEquals(0, result.exitCode(), "roce udaddy (server) failed\n" + context);
        assertEquals(SERVER_LINES, result.out().lines().toList(), context);
        // The last try's lines (earlier tries may have ended UNREACHABLE while roce4j did not listen yet).
        final int lastTry = Math.max(0, rxeLog.lastIndexOf("udaddy: starting client"));
        GuestCmTools.assertInOrder(CLIENT_LINES, rxeLog.substring(lastTry), context);
        final Map<CmAttribute, Integer> cm = CmCaptures.verify(name, context);
        assertTrue(cm.get(CmAttribute.SERVICE_ID_RES_REQ_RESP) >= 1, cm.toString());
        report(name, start, cm);
    }

    @Test
    void aSidrReqForAPortNobodyListensOnInRxeGetsIbSidrUnsupported(final TestInfo test) throws IOException
    {
        final long start = System.nanoTime();
        final String name = CaseName.of(test);
        peer.kill("uds");
        final RoceRun roce = RoceRun.run("udaddy", "-s", peer.guestAddress(), "-C", "1", "--link",
            peer.tunnelSpec(name, 0, 0), "--timeout", SILENCE_TIMEOUT_MS);
        final String context = context(name, roce, "");
        assertEquals(1, roce.exitCode(), "udaddy's status: the event's, IB_SIDR_UNSUPPORTED\n" + context);
        assertTrue(roce.out().contains("udaddy: event: RDMA_CM_EVENT_UNREACHABLE, error: 1"), context);
        final Map<CmAttribute, Integer> cm = CmCaptures.verify(name, context);
        assertEquals(1, cm.get(CmAttribute.SERVICE_ID_RES_REQ_RESP), cm.toString());
        final byte[] rep = sidrRep(name);
        assertEquals(CmSidrRepMessage.STATUS_UNSUPPORTED,
            new CmSidrRepMessage().wrapMad(new UnsafeBuffer(rep), 0).status(), "rxe's cm_sidr_req_handler");
        report(name, start, cm);
    }

    // ---- helpers ------------------------------------------------------------------------------------------------

    /** Wait until udaddy in the guest has its rdma_cm id in LISTEN on 7174. */
    private void awaitListening() throws IOException
    {
        GuestCmTools.awaitListening(peer, PORT, "uds");
    }

    private static String context(final String name, final RoceRun roce, final String rxeLog)
    {
        return name + ":\n--- roce udaddy (stdout):\n" + roce.out() + "--- roce udaddy (stderr):\n" + roce.err() +
            "--- udaddy:\n" + rxeLog;
    }

    /** The first SIDR_REP in a recording. */
    private static byte[] sidrRep(final String name) throws IOException
    {
        final RoceFrameParser parser = new RoceFrameParser();
        final MadHeader mad = new MadHeader();
        try (PcapReader reader = PcapReader.open(CmCaptures.pcap(name)))
        {
            while (reader.next())
            {
                if (FrameStatus.OK == parser.parse(reader.buffer(), 0, reader.capturedLength()) &&
                    Opcode.UD_SEND_ONLY == parser.opcode() && 1 == parser.bth().destQp() &&
                    CmAttribute.SERVICE_ID_RES_REQ_RESP.id() ==
                    mad.wrap(parser.buffer(), parser.payloadOffset()).attributeId())
                {
                    final byte[] bytes = new byte[MadHeader.MAD_LENGTH];
                    parser.buffer().getBytes(parser.payloadOffset(), bytes);
                    return bytes;
                }
            }
        }
        throw new AssertionError("no SIDR_REP in " + name + ".pcap");
    }

    private static void report(final String name, final long startNs, final Map<CmAttribute, Integer> cm)
    {
        CmCaptures.report("udaddy-interop", name, startNs, cm);
    }
}
