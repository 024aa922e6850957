package org.roce4j.cm.oob;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PingpongExchangeTest
{
    private static final QpInfo CLIENT = QpInfo.of(0, 0x11, 0x4d8a5c, 0, 0x0000_FFFF_0A4D_0001L);
    private static final QpInfo SERVER = QpInfo.of(0, 0x12, 0x1bf186, 0, 0x0000_FFFF_0A4D_0002L);

    @Test
    void encodesExactlyWhatRcPingpongSends()
    {
        // "%04x:%06x:%06x:%s" with the GID as 32 hex digits of its wire bytes, NUL-terminated, 52 bytes.
        final byte[] expected = new byte[52];
        final byte[] text = "0000:000011:4d8a5c:00000000000000000000ffff0a4d0001".getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(text, 0, expected, 0, text.length);
        assertEquals(51, text.length);
        assertArrayEquals(expected, PingpongMessage.encode(CLIENT));
    }

    @Test
    void decodesWhatItEncodes() throws Exception
    {
        assertEquals(SERVER, PingpongMessage.decode(PingpongMessage.encode(SERVER)));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "0000:000011:4d8a5c                                  | LID:QPN:PSN:GID",
        "0000:0000zz:4d8a5c:00000000000000000000ffff0a4d0001 | QPN is not hex",
        "0000:000011:4d8a5c:00000000000000000000ffff0a4d00   | GID must be 32 hex digits",
        "0000:000011:4d8a5c:0000000000000000000xffff0a4d0001 | GID is not hex",
        "00000:00011:4d8a5c:00000000000000000000ffff0a4d0001 | LID must be 1..4 hex digits"})
    void rejectsMalformedMessagesNamingTheProblem(final String text, final String expected)
    {
        final byte[] bytes = new byte[52];
        final byte[] ascii = text.trim().getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(ascii, 0, bytes, 0, ascii.length);
        final OobProtocolException ex = assertThrows(OobProtocolException.class, () -> PingpongMessage.decode(bytes));
        assertTrue(ex.getMessage().contains(expected.trim()), ex.getMessage());
    }

    @Test
    void rejectsAMessageWithoutNul()
    {
        final byte[] bytes = new byte[52];
        java.util.Arrays.fill(bytes, (byte)'a');
        assertThrows(OobProtocolException.class, () -> PingpongMessage.decode(bytes));
    }

    @Test
    void clientAndServerExchangeInfoAndDone() throws Exception
    {
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            final CompletableFuture<QpInfo> server = CompletableFuture.supplyAsync(() ->
            {
                try
                {
                    return PingpongExchange.server(listener, remote -> SERVER, Duration.ofSeconds(10));
                }
                catch (final IOException ex)
                {
                    throw new IllegalStateException(ex);
                }
            });
            final QpInfo fromServer = PingpongExchange.client("127.0.0.1", listener.getLocalPort(), CLIENT,
                Duration.ofSeconds(10), Duration.ZERO);
            assertEquals(SERVER, fromServer);
            assertEquals(CLIENT, server.get(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void serverReportsATruncatedClientMessage() throws Exception
    {
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            final CompletableFuture<Void> client = CompletableFuture.runAsync(() ->
            {
                try (Socket socket = new Socket("127.0.0.1", listener.getLocalPort()))
                {
                    final OutputStream out = socket.getOutputStream();
                    out.write(PingpongMessage.encode(CLIENT), 0, 20);
                    out.flush();
                }
                catch (final IOException ex)
                {
                    throw new IllegalStateException(ex);
                }
            });
            final OobProtocolException ex = assertThrows(OobProtocolException.class,
                () -> PingpongExchange.server(listener, remote -> SERVER, Duration.ofSeconds(10)));
            assertTrue(ex.getMessage().contains("truncated client's pingpong message: 20 of 52"), ex.getMessage());
            client.get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void serverTimesOutWhenNobodyConnects() throws Exception
    {
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            final OobProtocolException ex = assertThrows(OobProtocolException.class,
                () -> PingpongExchange.server(listener, remote -> SERVER, Duration.ofMillis(200)));
            assertTrue(ex.getMessage().contains("no pingpong client connected"), ex.getMessage());
        }
    }

    @Test
    void clientReportsAConnectionClosedBeforeTheAnswerOnceItsRetryTimeIsOver() throws Exception
    {
        final ServerSocket listener = new ServerSocket(0, 4, InetAddress.getLoopbackAddress());
        try
        {
            // A peer that accepts and closes at once, like QEMU's port forwarding before the guest listens.
            final Thread closer = new Thread(() ->
            {
                try
                {
                    while (!listener.isClosed())
                    {
                        listener.accept().close();
                    }
                }
                catch (final IOException ignored)
                {
                    // listener closed: done
                }
            });
            closer.start();
            final OobProtocolException ex = assertThrows(OobProtocolException.class,
                () -> PingpongExchange.client("127.0.0.1", listener.getLocalPort(), CLIENT, Duration.ofSeconds(2),
                Duration.ofMillis(300)));
            assertTrue(ex.getMessage().contains("connection closed before the server's pingpong message"),
                ex.getMessage());
            listener.close();
            closer.join(5000);
        }
        finally
        {
            listener.close();
        }
    }
}
