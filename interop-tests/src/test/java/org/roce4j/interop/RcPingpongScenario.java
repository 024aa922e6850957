package org.roce4j.interop;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.roce4j.testcontainers.RxePeerOptions;
import org.roce4j.testcontainers.RxeReady;
import org.roce4j.transport.link.tunnel.TunnelLink;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.Position;
import org.roce4j.wire.Psn;
import org.roce4j.wire.header.AethHeader;
import org.roce4j.wire.header.Ipv4Header;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One {@code ibv_rc_pingpong -n 1} iteration against rxe with roce4j's side done by hand ({@link HandRolledRc}), in
 * either role, with every frame recorded and checked:
 *
 * <ul>
 *   <li>rxe as server: the guest runs {@code ibv_rc_pingpong -g <ipv4 gid index> -n 1 -s SIZE}. rc_pingpong.c's
 *   server posts its receives, reads the client's 52-byte record, moves its QP to RTR and RTS, answers with its own
 *   record and waits for the client's message; only when that receive completes does it post its own SEND, and it
 *   exits once that SEND is acknowledged. Its receive buffer is also its send buffer, so it sends back exactly what
 *   it received. So we: write our record, read rxe's, write "done", send our SEND (AckReq on the last packet),
 *   receive rxe's ACK of it and rxe's SEND, and ACK that.</li>
 *   <li>rxe as client: the guest runs {@code ibv_rc_pingpong ... 10.0.2.2 -p PORT} against our TCP server on the
 *   host, reached through QEMU user networking with {@code restrict=off} (see interop-tests/README.md for why).
 *   The client sends first (its buffer holds 0x7b bytes, rc_pingpong.c's fill), so we: read its record, answer
 *   with ours, read "done", receive its SEND, ACK it, send ours and receive rxe's ACK.</li>
 * </ul>
 *
 * Afterwards ibv_rc_pingpong must have exited 0 and printed "1 iters in", and the pcap the link recorded must hold
 * the expected RoCE frames, in order, all with good ICRCs, and nothing else except copies of rxe frames already
 * seen (rxe retransmits after 67 ms without an ACK, which a loaded two-core machine can occasionally cause).
 */
final class RcPingpongScenario
{
    /** Our QPN: any 24-bit value; rxe's own QPNs start at 0x11. */
    static final int OUR_QPN = 0x000ABC;
    /** rc_pingpong.c fills its buffer with this byte before the first iteration. */
    static final byte RC_PINGPONG_FILL = 0x7B;
    /** Generous: under TCG on a busy two-core machine rxe is slow. */
    static final Duration TIMEOUT = Duration.ofSeconds(60);

    private final RxePeer peer;
    private final String pcapName;
    private final int size;
    private final int pathMtu;
    private final int ourPsn;
    private int framesFromRxeChecked;

    /**
     * @param peer     the rxe peer.
     * @param pcapName file name (no extension) of the capture under interop-tests/target/pcaps.
     * @param size     message size ({@code -s}).
     * @param pathMtu  path MTU in bytes ({@code -m}; 1024 is rc_pingpong's default).
     * @param ourPsn   our first PSN.
     */
    RcPingpongScenario(final RxePeer peer, final String pcapName, final int size, final int pathMtu, final int ourPsn)
    {
        this.peer = peer;
        this.pcapName = pcapName;
        this.size = size;
        this.pathMtu = pathMtu;
        this.ourPsn = ourPsn;
    }

    /**
     * @return RoCE frames from rxe whose ICRC this scenario verified while running.
     */
    int framesFromRxeChecked()
    {
        return framesFromRxeChecked;
    }

    /**
     * Run with rxe as the server.
     *
     * @return the frames of the capture.
     * @throws IOException when the peer or the link fails.
     */
    List<CapturedFrames.Frame> rxeAsServer() throws IOException
    {
        final RxeReady ready = peer.ready();
        final String program = "pp-server";
        peer.start(program, "ibv_rc_pingpong -g " + ready.ipv4GidIndex() + " -n 1 -s " + size + mtuOption());
        final byte[] ours = pattern(size);
        final List<HandRolledRc.Packet> rxeMessage;
        final int expectedPackets = packets(size);
        final PingpongDest theirs;
        final long ourMac;
        try (TunnelLink link = peer.openLink(pcapName))
        {
            ourMac = link.address().mac();
            final HandRolledRc rc = new HandRolledRc(link, ready.ip(), OUR_QPN);
            rc.resolvePeer(TIMEOUT);
            final PingpongDest us = new PingpongDest(0, OUR_QPN, ourPsn, PingpongDest.ipv4MappedGid(link.address()
                .ipv4()));
            theirs = peer.tcpConnect(RxePeerOptions.PINGPONG_PORT, TIMEOUT, socket ->
            {
                final OutputStream out = socket.getOutputStream();
                out.write(us.encode());
                out.flush();
                final byte[] reply = PingpongDest.readFully(socket.getInputStream(), PingpongDest.WIRE_LENGTH);
                out.write(PingpongDest.DONE);
                out.flush();
                return PingpongDest.decode(reply);
            });
            assertArrayEquals(ready.ipv4Gid(), theirs.gid(), "rxe's GID in its record is its ::ffff:IPv4 GID");

            assertEquals(expectedPackets, rc.sendMessage(theirs.qpn(), ourPsn, ours, pathMtu));
            final int ourLastPsn = Psn.add(ourPsn, expectedPackets - 1);
            final HandRolledRc.Packet ack = rc.await(String.format("rxe's ACK of PSN 0x%06x", ourLastPsn),
                p -> Opcode.RC_ACKNOWLEDGE == p.opcode() && ourLastPsn == p.psn(), TIMEOUT);
            assertAck(ack, 1);

            rxeMessage = rc.awaitMessage(theirs.psn(), TIMEOUT);
            assertMessage(rxeMessage, ours);
            final int theirLastPsn = rxeMessage.get(rxeMessage.size() - 1).psn();
            rc.sendAck(theirs.qpn(), theirLastPsn, 1);
            framesFromRxeChecked = rc.received().size();
            assertAllGood(rc.received());
        }
        assertPingpongSucceeded(program, theirs);

        final List<Expected> expected = new ArrayList<>();
        addMessage(expected, true, ourPsn, expectedPackets);
        expected.add(new Expected(false, Opcode.RC_ACKNOWLEDGE, Psn.add(ourPsn, expectedPackets - 1)));
        addMessage(expected, false, theirs.psn(), expectedPackets);
        expected.add(new Expected(true, Opcode.RC_ACKNOWLEDGE, Psn.add(theirs.psn(), expectedPackets - 1)));
        return assertCapture(ourMac, expected);
    }

    /**
     * Run with rxe as the client, connecting to our TCP server through QEMU user networking.
     *
     * @return the frames of the capture.
     * @throws IOException when the peer or the link fails.
     */
    List<CapturedFrames.Frame> rxeAsClient() throws IOException
    {
        final RxeReady ready = peer.ready();
        final String program = "pp-client";
        final int expectedPackets = packets(size);
        final byte[] ours = pattern(size);
        final PingpongDest theirs;
        final long ourMac;
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
            TunnelLink link = peer.openLink(pcapName))
        {
            ourMac = link.address().mac();
            server.setSoTimeout((int)TIMEOUT.toMillis());
            final HandRolledRc rc = new HandRolledRc(link, ready.ip(), OUR_QPN);
            rc.resolvePeer(TIMEOUT);
            final String hostAddress = peer.hostAddressForGuest(server.getLocalPort());
            final String host = hostAddress.substring(0, hostAddress.lastIndexOf(':'));
            peer.start(program, "ibv_rc_pingpong -g " + ready.ipv4GidIndex() + " -n 1 -s " + size + mtuOption() +
                " -p " + server.getLocalPort() + " " + host);

            final PingpongDest us = new PingpongDest(0, OUR_QPN, ourPsn, PingpongDest.ipv4MappedGid(link.address()
                .ipv4()));
            try (Socket socket = server.accept())
            {
                socket.setSoTimeout((int)TIMEOUT.toMillis());
                final InputStream in = socket.getInputStream();
                theirs = PingpongDest.decode(PingpongDest.readFully(in, PingpongDest.WIRE_LENGTH));
                socket.getOutputStream().write(us.encode());
                socket.getOutputStream().flush();
                assertArrayEquals(PingpongDest.DONE, PingpongDest.readFully(in, PingpongDest.DONE.length));
            }
            assertArrayEquals(ready.ipv4Gid(), theirs.gid(), "rxe's GID in its record is its ::ffff:IPv4 GID");

            final List<HandRolledRc.Packet> rxeMessage = rc.awaitMessage(theirs.psn(), TIMEOUT);
            final byte[] fill = new byte[size];
            Arrays.fill(fill, RC_PINGPONG_FILL);
            assertMessage(rxeMessage, fill);
            rc.sendAck(theirs.qpn(), rxeMessage.get(rxeMessage.size() - 1).psn(), 1);

            assertEquals(expectedPackets, rc.sendMessage(theirs.qpn(), ourPsn, ours, pathMtu));
            final int ourLastPsn = Psn.add(ourPsn, expectedPackets - 1);
            final HandRolledRc.Packet ack = rc.await(String.format("rxe's ACK of PSN 0x%06x", ourLastPsn),
                p -> Opcode.RC_ACKNOWLEDGE == p.opcode() && ourLastPsn == p.psn(), TIMEOUT);
            assertAck(ack, 1);
            framesFromRxeChecked = rc.received().size();
            assertAllGood(rc.received());
        }
        assertPingpongSucceeded(program, theirs);

        final List<Expected> expected = new ArrayList<>();
        addMessage(expected, false, theirs.psn(), expectedPackets);
        expected.add(new Expected(true, Opcode.RC_ACKNOWLEDGE, Psn.add(theirs.psn(), expectedPackets - 1)));
        addMessage(expected, true, ourPsn, expectedPackets);
        expected.add(new Expected(false, Opcode.RC_ACKNOWLEDGE, Psn.add(ourPsn, expectedPackets - 1)));
        return assertCapture(ourMac, expected);
    }

    private record Expected(boolean fromUs, Opcode opcode, int psn)
    {
        boolean matches(final CapturedFrames.Frame frame)
        {
            return fromUs == frame.fromUs() && opcode == frame.opcode() && psn == frame.psn();
        }
    }

    private String mtuOption()
    {
        return 1024 == pathMtu ? "" : " -m " + pathMtu;
    }

    private int packets(final int bytes)
    {
        return Math.max(1, (bytes + pathMtu - 1) / pathMtu);
    }

    private void assertAck(final HandRolledRc.Packet ack, final int msn)
    {
        assertEquals(FrameStatus.OK, ack.status(), "rxe's ACK parses and its ICRC is right");
        assertEquals(OUR_QPN, ack.destQp());
        assertEquals(AethHeader.SYNDROME_ACK_UNLIMITED, ack.syndrome(), "rxe ACKs with credit code 0x1f");
        assertEquals(msn, ack.msn(), "one message completed");
        assertEquals(peer.ready().ip(), ack.sourceIp());
    }

    private void assertMessage(final List<HandRolledRc.Packet> packets, final byte[] expectedPayload)
    {
        assertEquals(packets(expectedPayload.length), packets.size(), "packets of rxe's SEND: " + packets);
        for (int i = 0; i < packets.size(); i++)
        {
            final HandRolledRc.Packet packet = packets.get(i);
            assertEquals(FrameStatus.OK, packet.status(), "rxe's packet " + i + " parses with a good ICRC");
            assertEquals(OUR_QPN, packet.destQp());
            final Position expected = 1 == packets.size() ? Position.ONLY :
                0 == i ? Position.FIRST : packets.size() - 1 == i ? Position.LAST : Position.MIDDLE;
            assertEquals(expected, packet.opcode().position(), "packet " + i);
            assertEquals(packets.size() - 1 == i, packet.ackReq(), "rxe asks for an ACK on the last packet only");
            if (i < packets.size() - 1)
            {
                assertEquals(pathMtu, packet.payload().length, "FIRST and MIDDLE carry exactly the path MTU");
            }
        }
        assertArrayEquals(expectedPayload, HandRolledRc.payloadOf(packets), "rxe's message");
    }

    private static void assertAllGood(final List<HandRolledRc.Packet> received)
    {
        for (final HandRolledRc.Packet packet : received)
        {
            assertEquals(FrameStatus.OK, packet.status(), "every frame from rxe has a good ICRC: " + packet);
        }
    }

    private void assertPingpongSucceeded(final String program, final PingpongDest theirs) throws IOException
    {
        final int exitCode = peer.waitFor(program, TIMEOUT);
        final String log = peer.log(program);
        assertEquals(0, exitCode, "ibv_rc_pingpong failed:\n" + log);
        assertTrue(log.contains("1 iters in"), log);
        assertTrue(log.contains(String.format("remote address: LID 0x0000, QPN 0x%06x, PSN 0x%06x", OUR_QPN, ourPsn)),
            log);
        assertTrue(log.contains(String.format("local address:  LID 0x0000, QPN 0x%06x, PSN 0x%06x", theirs.qpn(),
            theirs.psn())), log);
    }

    private List<CapturedFrames.Frame> assertCapture(final long ourMac, final List<Expected> expected)
        throws IOException
    {
        final Path pcap = PeerTools.targetDir().resolve("pcaps").resolve(pcapName + ".pcap");
        final List<CapturedFrames.Frame> frames = CapturedFrames.read(pcap, ourMac);
        final List<CapturedFrames.Frame> matched = new ArrayList<>();
        int retransmissions = 0;
        for (final CapturedFrames.Frame frame : frames)
        {
            assertEquals(FrameStatus.OK, frame.status(), "every RoCE frame in " + pcap + " has a good ICRC: " + frame);
            final int next = matched.size();
            if (next < expected.size() && expected.get(next).matches(frame))
            {
                matched.add(frame);
            }
            else if (!frame.fromUs() && expected.subList(0, next).stream().anyMatch(want -> want.matches(frame)))
            {
                // rxe's retransmit timer (4.096 us << 14 = 67 ms for rc_pingpong) fired before our ACK arrived:
                // a copy of a frame already seen, which the protocol allows.
                retransmissions++;
            }
            else
            {
                throw new AssertionError("unexpected frame " + frame + " at position " + next + " of " + pcap +
                    "; expected " + (next < expected.size() ? expected.get(next) : "nothing more") + "; all: " +
                    frames);
            }
        }
        assertEquals(expected.size(), matched.size(), "expected RoCE frames in " + pcap + ": " + frames);
        System.out.println("[rxe-frames] " + pcapName + ": " + frames.size() + " RoCE frames in " + pcap +
            " (" + retransmissions + " retransmitted by rxe), all ICRCs good; " + framesFromRxeChecked +
            " from rxe checked live; guest " + Ipv4Header.addressToString(peer.ready().ip()));
        return matched;
    }

    private static void addMessage(final List<Expected> expected, final boolean fromUs, final int firstPsn,
        final int packets)
    {
        for (int i = 0; i < packets; i++)
        {
            final Opcode opcode = 1 == packets ? Opcode.RC_SEND_ONLY :
                0 == i ? Opcode.RC_SEND_FIRST : packets - 1 == i ? Opcode.RC_SEND_LAST : Opcode.RC_SEND_MIDDLE;
            expected.add(new Expected(fromUs, opcode, Psn.add(firstPsn, i)));
        }
    }

    /**
     * @param size bytes.
     * @return a payload that cannot be mistaken for rc_pingpong's 0x7b fill or for zeros.
     */
    static byte[] pattern(final int size)
    {
        final byte[] bytes = new byte[size];
        for (int i = 0; i < size; i++)
        {
            bytes[i] = (byte)(i * 31 + 7);
        }
        return bytes;
    }
}
