package org.roce4j.cli.pingpong;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.roce4j.ib.Mtu;
import org.roce4j.transport.TransportCounter;
import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.LinkAddress;
import org.roce4j.transport.link.memory.MemoryFabric;
import org.roce4j.verbs.DeviceOptions;
import org.roce4j.verbs.RdmaDevice;
import org.roce4j.wire.FrameStatus;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrameParser;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The end of an {@link SrqPingpong} run as against rxe's ibv_srq_pingpong (SrqPingpongWithRxeTest, 16 QPs of 64 KiB
 * as client: the guest's tool never exited): each side on a DEDICATED device, as {@code roce pingpong} runs over a
 * network link, the application seeing completions while its engine thread is still in the receive batch that made
 * them. Like srq_pingpong.c, each side ends its loop once it has counted -n receive and -n send completions, so it
 * needs the ACK of every message it counted, and closes its device at once; the side that ends first leaves the
 * other waiting for exactly those ACKs. Both sides must end, and the client's link must have carried an ACK for every
 * message it received before it closed: the client's receive completions become visible before the batch's coalesced
 * ACK is sent, which is the order the hypothesis about the rxe run suspected of losing the last ACK.
 */
class SrqPingpongLastAckTest
{
    private static final int TIMEOUT_MS = 20_000;

    /** One side's result and counters. */
    private record Side(PingpongResult result, long acksLostAtClose)
    {
    }

    /** What the client's link carried: the last PSNs of the messages it received, the PSNs of the ACKs it sent. */
    private static final class ClientFrames
    {
        private final RoceFrameParser parser = new RoceFrameParser();
        private final UnsafeBuffer copy = new UnsafeBuffer(new byte[16384]);
        private final List<Integer> messagesReceived = new ArrayList<>();
        private final Set<Integer> acked = new HashSet<>();
        private final List<Integer> unacked = new ArrayList<>();

        void onFrame(final boolean outgoing, final DirectBuffer buffer, final int offset, final int length)
        {
            copy.putBytes(0, buffer, offset, length);
            if (FrameStatus.OK != parser.parse(copy, 0, length))
            {
                return;
            }
            final Opcode opcode = parser.opcode();
            final int psn = parser.bth().psn();
            if (outgoing && Opcode.RC_ACKNOWLEDGE == opcode)
            {
                acked.add(psn);
                unacked.removeIf(last -> last == psn);
            }
            else if (!outgoing && (Opcode.RC_SEND_LAST == opcode || Opcode.RC_SEND_ONLY == opcode))
            {
                // One message in flight per QP: the ACK that answers it carries exactly its last PSN.
                messagesReceived.add(psn);
                if (!acked.contains(psn))
                {
                    unacked.add(psn);
                }
            }
        }
    }

    @ParameterizedTest(name = "--srq {0}, -s {1}, -n {2}")
    @CsvSource({"16, 65536, 320", "64, 4096, 640"})
    void bothSidesEndAndEveryMessageTheClientReceivedWasAcknowledgedBeforeItClosed(final int qps, final int size,
        final int iters) throws Exception
    {
        final PingpongSettings settings = new PingpongSettings().srqQps(qps).rxDepth(Math.max(500, qps))
            .iterations(iters).size(size).mtu(Mtu.MTU_1024).gidIndex(1).events(true).timeoutMs(TIMEOUT_MS);
        final ClientFrames frames = new ClientFrames();
        try (MemoryFabric fabric = new MemoryFabric();
            ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            final Link serverLink = fabric.attach(LinkAddress.of("02:00:00:00:00:01", "192.168.78.1"), 1500);
            final Link clientLink = fabric.attach(LinkAddress.of("02:00:00:00:00:02", "192.168.78.2"), 1500);
            assertTrue(clientLink.tapFrames((outgoing, dropped, buffer, offset, length) ->
                frames.onFrame(outgoing, buffer, offset, length)));
            final CompletableFuture<Side> server = CompletableFuture.supplyAsync(() ->
                side(serverLink, settings.copy().server(null), listener));
            final Side client = side(clientLink, settings.copy().server("127.0.0.1").port(listener.getLocalPort()),
                null);
            final Side served = server.get(TIMEOUT_MS + 10_000L, TimeUnit.MILLISECONDS);

            for (final Side side : new Side[] {client, served})
            {
                assertEquals(iters, side.result().iterations());
                assertTrue(side.result().sent() >= iters && side.result().received() >= iters, side.toString());
                assertEquals(0, side.acksLostAtClose(), side.toString());
            }
            // The client's device closed (its engine thread joined): what its tap recorded is complete.
            assertTrue(frames.messagesReceived.size() >= iters, "messages the client received: " +
                frames.messagesReceived.size());
            // The server posts sends while its count of send completions is below -n (srq_pingpong.c), so up to one
            // message per QP can reach the client after it destroyed its QPs: dropped unacknowledged, as rxe drops
            // packets for a QP that is gone, and not needed by the server, which ended above. An ACK lost at close
            // would leave the server short of its count, and so not ended.
            assertTrue(frames.unacked.size() <= qps, "last PSNs of messages the client received and never " +
                "acknowledged, more than one per QP: " + frames.unacked);
        }
    }

    /** One side on a DEDICATED device with a backing-off agent thread, as {@code roce pingpong} over a network link. */
    private static Side side(final Link link, final PingpongSettings settings, final ServerSocket listener)
    {
        final StringWriter text = new StringWriter();
        final RdmaDevice device = RdmaDevice.open(link, DeviceOptions.dedicated().backoff());
        final PingpongResult result;
        try (device)
        {
            result = new SrqPingpong(device, settings, new PrintWriter(text, true), listener).run();
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException((null == listener ? "client: " : "server: ") + ex.getMessage() + "\n" +
                text, ex);
        }
        // Read once the device is closed (as srq_pingpong closes right after its loop): the close's drain counted.
        return new Side(result, device.counters().get(TransportCounter.ACKS_LOST_AT_CLOSE));
    }
}
