package org.roce4j.interop;

import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.roce4j.testcontainers.RxePeerOptions;
import org.roce4j.testcontainers.RxeReady;
import org.junit.jupiter.api.Test;
import org.roce4j.transport.link.tunnel.TunnelLink;
import org.roce4j.wire.Opcode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Negative evidence: rxe drops a frame with a wrong ICRC and a frame for a QP that does not exist, and accepts the
 * same SEND when it is right, shown by rxe's own counters.
 *
 * <p>What moves on the guest's kernel (6.1.0-56, measured): {@code /sys/class/infiniband/rxe0/ports/1/hw_counters}
 * has ack_deferred, completer_retry_err, duplicate_request, lifespan, link_downed, out_of_seq_request, rcvd_pkts,
 * rcvd_rnr_err, rcvd_seq_err, rdma_recvs, rdma_sends, retry_exceeded_err, retry_rnr_exceeded_err, send_err,
 * send_rnr_err and sent_pkts ({@code rdma statistic show} prints the same values). {@code rcvd_pkts} counts a packet
 * only after every check in {@code rxe_rcv()} passed (destination GID, header, QP lookup, ICRC), so neither bad frame
 * moves it, and no counter at all moves for them: 6.1 has no bad-ICRC or unknown-QP counter and logs nothing to
 * dmesg for either (both are silent drops, protocol-facts A.5). The good SEND moves rcvd_pkts by 1, rdma_recvs by 1
 * (its receive completed) and sent_pkts by 2 (rxe's ACK and rxe's own SEND); our final ACK moves rcvd_pkts again
 * and rdma_sends (rxe's SEND completed). Reading the counters over the serial console delays that ACK beyond rxe's
 * 67 ms retransmit timer, so rxe usually sends its SEND a second time, which shows as completer_retry_err +1 and
 * sent_pkts +1 (seen: {@code {completer_retry_err=1, rcvd_pkts=2, rdma_recvs=1, rdma_sends=1, sent_pkts=3}}).
 * That the bad frames did reach rxe's UDP tunnel socket, and were not lost on the way, shows in the guest's
 * {@code /proc/net/snmp} Udp InDatagrams, which the UDP layer counts before handing a datagram to rxe's encap_rcv.
 *
 * <p>All three SENDs carry the same PSN. Had rxe accepted either bad one, the good one would be a duplicate
 * (duplicate_request +1, an ACK for the earlier copy) instead of a new message completing with MSN 1.
 */
@RxePeerTest
class RxeDropsBadFramesTest
{
    /** A QPN rxe has not allocated: its QPNs count up from 0x11. */
    private static final int QPN_OFFSET_TO_NOWHERE = 0x100;

    private RxePeer peer;

    @Test
    void wrongIcrcAndWrongDestQpAreDroppedTheGoodFrameIsAccepted() throws IOException
    {
        assumeTrue(peer.supportsTunnel(), "raw frames need the QEMU peer's dgram tunnel");
        final RxeReady ready = peer.ready();
        peer.start("pp", "ibv_rc_pingpong -g " + ready.ipv4GidIndex() + " -n 1 -s 64");
        try (TunnelLink link = peer.openLink(getClass().getSimpleName()))
        {
            final HandRolledRc rc = new HandRolledRc(link, ready.ip(), RcPingpongScenario.OUR_QPN);
            rc.resolvePeer(RcPingpongScenario.TIMEOUT);
            final int ourPsn = 0x424242;
            final PingpongDest us = new PingpongDest(0, RcPingpongScenario.OUR_QPN, ourPsn,
                PingpongDest.ipv4MappedGid(link.address().ipv4()));
            final PingpongDest theirs = peer.tcpConnect(RxePeerOptions.PINGPONG_PORT, RcPingpongScenario.TIMEOUT,
                socket ->
                {
                    final OutputStream out = socket.getOutputStream();
                    out.write(us.encode());
                    final byte[] reply = PingpongDest.readFully(socket.getInputStream(), PingpongDest.WIRE_LENGTH);
                    out.write(PingpongDest.DONE);
                    return PingpongDest.decode(reply);
                });
            final byte[] payload = RcPingpongScenario.pattern(64);
            final Map<String, Long> before = peer.hwCounters();
            final long udpBefore = udpInDatagrams();

            rc.sendOnly(theirs.qpn(), ourPsn, payload, true);
            rc.sendOnly(theirs.qpn() + QPN_OFFSET_TO_NOWHERE, ourPsn, payload, false);
            final Map<String, Long> afterBad = peer.hwCounters();

            assertEquals(Map.of(), delta(before, afterBad), "no rxe counter moves for the two bad frames");

            rc.sendOnly(theirs.qpn(), ourPsn, payload, false);
            final HandRolledRc.Packet ack = rc.await("rxe's ACK of the good SEND",
                p -> Opcode.RC_ACKNOWLEDGE == p.opcode(), RcPingpongScenario.TIMEOUT);
            final Map<String, Long> afterGood = peer.hwCounters();
            final long udpAfterGood = udpInDatagrams();

            assertEquals(ourPsn, ack.psn());
            assertEquals(1, ack.msn(), "the good SEND completed the first message: nothing before it was accepted");
            final Map<String, Long> goodDelta = delta(before, afterGood);
            assertEquals(1L, goodDelta.get("rcvd_pkts"), "rxe counted exactly one of the three frames: " + goodDelta);
            assertEquals(1L, goodDelta.get("rdma_recvs"), "one receive completed: " + goodDelta);
            assertEquals(null, goodDelta.get("duplicate_request"), "the good SEND was no duplicate: " + goodDelta);
            assertEquals(null, goodDelta.get("out_of_seq_request"), goodDelta.toString());
            assertEquals(3, udpAfterGood - udpBefore, "all three frames reached rxe's UDP socket");

            final List<HandRolledRc.Packet> message = rc.awaitMessage(theirs.psn(), RcPingpongScenario.TIMEOUT);
            rc.sendAck(theirs.qpn(), message.get(message.size() - 1).psn(), 1);
            assertEquals(0, peer.waitFor("pp", RcPingpongScenario.TIMEOUT), peer.log("pp"));
            final Map<String, Long> end = delta(before, peer.hwCounters());

            assertEquals(4, rc.roceFramesSent(), "bad ICRC, bad QP, good SEND, ACK");
            assertEquals(rc.roceFramesSent() - 2L, end.get("rcvd_pkts"), "all but the two bad frames: " + end);
            // Reading counters over the console takes longer than rxe's 67 ms retransmit timer, so rxe may have
            // sent its SEND more than once before our ACK; every copy carries the same PSN.
            assertEquals(1, rc.received().stream().filter(p -> Opcode.RC_ACKNOWLEDGE == p.opcode()).count(),
                "rxe sent one ACK (syndrome 0x1f) and no NAK: " + rc.received());
            assertTrue(rc.received().stream().filter(p -> Opcode.RC_ACKNOWLEDGE != p.opcode())
                .allMatch(p -> Opcode.RC_SEND_ONLY == p.opcode() && theirs.psn() == p.psn()), rc.received().toString());
            final String dmesg = peer.runOk("dmesg");
            assertTrue(!dmesg.contains("ICRC") && !dmesg.contains("qpn"), "6.1 logs nothing for these drops:\n" +
                dmesg);
            System.out.println("[rxe-counters] after the bad frames: " + delta(before, afterBad) + "; after the good " +
                "one: " + goodDelta + "; at the end: " + end + "; Udp InDatagrams +" + (udpAfterGood - udpBefore));
        }
    }

    private long udpInDatagrams() throws IOException
    {
        // Two "Udp:" lines: the column names, then the values.
        final String[] lines = peer.runOk("grep '^Udp:' /proc/net/snmp").split("\n");
        final String[] names = lines[0].trim().split("\\s+");
        final String[] values = lines[1].trim().split("\\s+");
        for (int i = 0; i < names.length; i++)
        {
            if ("InDatagrams".equals(names[i]))
            {
                return Long.parseLong(values[i]);
            }
        }
        throw new IllegalStateException("no Udp InDatagrams in /proc/net/snmp: " + String.join("\n", lines));
    }

    private static Map<String, Long> delta(final Map<String, Long> before, final Map<String, Long> after)
    {
        final Map<String, Long> delta = new TreeMap<>();
        for (final Map.Entry<String, Long> entry : after.entrySet())
        {
            final long change = entry.getValue() - before.getOrDefault(entry.getKey(), 0L);
            // lifespan is the counters' cache time in ms, not an event count.
            if (0 != change && !"lifespan".equals(entry.getKey()))
            {
                delta.put(entry.getKey(), change);
            }
        }
        return delta;
    }
}
