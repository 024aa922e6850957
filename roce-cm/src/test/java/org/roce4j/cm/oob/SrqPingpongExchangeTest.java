package org.roce4j.cm.oob;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ibv_srq_pingpong's exchange (rdma-core libibverbs/examples/srq_pingpong.c, pp_client_exch_dest and
 * pp_server_exch_dest), byte for byte, in both roles against a scripted peer that does what the C code does: each
 * side writes MAX_QP = 256 messages of {@code sizeof "0000:000000:000000:" + 32 hex digits + NUL} = 52 bytes,
 * {@code sprintf("%04x:%06x:%06x:%s")} of its QPs' LID, QPN, PSN and wire GID, then of the zeroed entries
 * past -q (my_dest is memset to 0); the server connects after reading and answers; the client ends with "done\0".
 * The transcript here is written from the C source, not from PingpongMessage.
 */
class SrqPingpongExchangeTest
{
    private static final int MESSAGES = 256;
    private static final int MESSAGE_BYTES = 52;
    private static final String ZERO_LINE = "0000:000000:000000:00000000000000000000000000000000";
    private static final List<String> CLIENT_LINES = List.of(
        "0000:000011:4d8a5c:00000000000000000000ffff0a4d0001",
        "0000:000012:000001:00000000000000000000ffff0a4d0001",
        "0000:000013:ffffff:00000000000000000000ffff0a4d0001");
    private static final List<String> SERVER_LINES = List.of(
        "0000:000021:1bf186:00000000000000000000ffff0a4d0002",
        "0000:000022:000000:00000000000000000000ffff0a4d0002",
        "0000:000023:abcdef:00000000000000000000ffff0a4d0002");
    private static final List<QpInfo> CLIENT = List.of(
        QpInfo.of(0, 0x11, 0x4d8a5c, 0, 0x0000_FFFF_0A4D_0001L),
        QpInfo.of(0, 0x12, 0x000001, 0, 0x0000_FFFF_0A4D_0001L),
        QpInfo.of(0, 0x13, 0xffffff, 0, 0x0000_FFFF_0A4D_0001L));
    private static final List<QpInfo> SERVER = List.of(
        QpInfo.of(0, 0x21, 0x1bf186, 0, 0x0000_FFFF_0A4D_0002L),
        QpInfo.of(0, 0x22, 0x000000, 0, 0x0000_FFFF_0A4D_0002L),
        QpInfo.of(0, 0x23, 0xabcdef, 0, 0x0000_FFFF_0A4D_0002L));
    private static final QpInfo ZERO = QpInfo.of(0, 0, 0, 0, 0);
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    /**
     * What one side of srq_pingpong writes: its lines, then zero lines up to MAX_QP, each NUL-padded to 52 bytes.
     */
    private static byte[] transcript(final List<String> lines)
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (int i = 0; i < MESSAGES; i++)
        {
            final byte[] message = new byte[MESSAGE_BYTES];
            final byte[] text = (i < lines.size() ? lines.get(i) : ZERO_LINE).getBytes(StandardCharsets.US_ASCII);
            assertEquals(MESSAGE_BYTES - 1, text.length);
            System.arraycopy(text, 0, message, 0, text.length);
            bytes.writeBytes(message);
        }
        return bytes.toByteArray();
    }

    private static List<QpInfo> padded(final List<QpInfo> infos)
    {
        final List<QpInfo> all = new ArrayList<>(infos);
        while (all.size() < MESSAGES)
        {
            all.add(ZERO);
        }
        return all;
    }

    @Test
    void transcriptIs256MessagesOf52BytesEachWay()
    {
        assertEquals(MESSAGES, PingpongExchange.SRQ_MESSAGES, "srq_pingpong.c's MAX_QP");
        assertEquals(MESSAGES * MESSAGE_BYTES, transcript(CLIENT_LINES).length);
        assertEquals(13_312, transcript(SERVER_LINES).length);
    }

    @Test
    void clientWritesExactlyWhatSrqPingpongWritesAndReadsItsAnswer() throws Exception
    {
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            // The scripted ibv_srq_pingpong server: read 256 messages, answer 256, read "done\0", see the close.
            final CompletableFuture<byte[]> scripted = CompletableFuture.supplyAsync(() ->
            {
                try (Socket socket = listener.accept())
                {
                    final InputStream in = socket.getInputStream();
                    final byte[] received = in.readNBytes(MESSAGES * MESSAGE_BYTES);
                    final OutputStream out = socket.getOutputStream();
                    out.write(transcript(SERVER_LINES));
                    out.flush();
                    final byte[] done = in.readNBytes(5);
                    assertArrayEquals(new byte[] {'d', 'o', 'n', 'e', 0}, done);
                    assertEquals(-1, in.read(), "the client closes after \"done\"");
                    return received;
                }
                catch (final IOException ex)
                {
                    throw new IllegalStateException(ex);
                }
            });
            final List<QpInfo> fromServer = PingpongExchange.client("127.0.0.1", listener.getLocalPort(), CLIENT,
                PingpongExchange.SRQ_MESSAGES, TIMEOUT, Duration.ZERO);
            assertArrayEquals(transcript(CLIENT_LINES), scripted.get(10, TimeUnit.SECONDS));
            assertEquals(padded(SERVER), fromServer);
        }
    }

    @Test
    void serverReadsAllMessagesBeforeItsStepAndAnswersExactlyAsSrqPingpong() throws Exception
    {
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            // The scripted ibv_srq_pingpong client: write 256 messages, read 256, write "done\0".
            final CompletableFuture<byte[]> scripted = CompletableFuture.supplyAsync(() ->
            {
                try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), listener.getLocalPort()))
                {
                    final OutputStream out = socket.getOutputStream();
                    out.write(transcript(CLIENT_LINES));
                    out.flush();
                    final byte[] received = socket.getInputStream().readNBytes(MESSAGES * MESSAGE_BYTES);
                    out.write(new byte[] {'d', 'o', 'n', 'e', 0});
                    out.flush();
                    return received;
                }
                catch (final IOException ex)
                {
                    throw new IllegalStateException(ex);
                }
            });
            final List<List<QpInfo>> seenByStep = new ArrayList<>();
            final List<QpInfo> fromClient = PingpongExchange.server(listener, remote ->
            {
                seenByStep.add(remote);
                return SERVER;
            }, PingpongExchange.SRQ_MESSAGES, TIMEOUT);
            assertArrayEquals(transcript(SERVER_LINES), scripted.get(10, TimeUnit.SECONDS));
            assertEquals(List.of(padded(CLIENT)), seenByStep, "the step runs once, after all 256 messages");
            assertEquals(padded(CLIENT), fromClient);
        }
    }

    @Test
    void serverNamesTheMessageAnRcPingpongClientNeverSent() throws Exception
    {
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            // ibv_rc_pingpong as the client writes one message and waits for one: the SRQ server waits for 255 more.
            final CompletableFuture<Void> rcClient = CompletableFuture.runAsync(() ->
            {
                try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), listener.getLocalPort()))
                {
                    socket.getOutputStream().write(transcript(CLIENT_LINES), 0, MESSAGE_BYTES);
                    socket.getOutputStream().flush();
                }
                catch (final IOException ex)
                {
                    throw new IllegalStateException(ex);
                }
            });
            final IOException ex = assertThrows(IOException.class, () -> PingpongExchange.server(listener,
                remote -> SERVER, PingpongExchange.SRQ_MESSAGES, TIMEOUT));
            assertTrue(ex.getMessage().contains("client's pingpong message 2 of 256"), ex.getMessage());
            rcClient.get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void moreQpsThanMessagesIsTheCallersError()
    {
        final List<QpInfo> tooMany = padded(CLIENT);
        tooMany.add(ZERO);
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () ->
            PingpongExchange.client("127.0.0.1", 1, tooMany, PingpongExchange.SRQ_MESSAGES, TIMEOUT, Duration.ZERO));
        assertEquals("257 QPs do not fit in 256 messages", ex.getMessage());
    }
}
