package org.roce4j.cm.perftest;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.roce4j.cm.oob.OobProtocolException;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link PerftestSession} over TCP in both roles against a fake peer that replays, byte for byte, what one side of a
 * real perftest 4.5+0.17 run sent, and checks that roce4j sends exactly what the other side sent when given the same
 * values; then against peers that misbehave.
 */
class PerftestSessionTest
{
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    /** How the captured tool runs its exchange (the order of its main()). */
    enum Flow
    {
        /** ib_write_bw, ib_read_bw, ib_atomic_bw one way: records, records, barrier, run, barrier, report, close. */
        BW_WITH_REPORT,
        /** ib_send_bw one way and ib_send_lat: records, barrier, records, barrier before the run, run, close. */
        SEND
    }

    @ParameterizedTest(name = "{0} as {1}")
    @CsvSource({
        "write_bw, client, BW_WITH_REPORT", "write_bw, server, BW_WITH_REPORT",
        "read_bw, client, BW_WITH_REPORT", "read_bw, server, BW_WITH_REPORT",
        "atomic_bw_cmp_and_swap, client, BW_WITH_REPORT", "atomic_bw_cmp_and_swap, server, BW_WITH_REPORT",
        "atomic_bw_fetch_and_add, client, BW_WITH_REPORT", "atomic_bw_fetch_and_add, server, BW_WITH_REPORT",
        "send_bw, client, SEND", "send_bw, server, SEND",
        "send_lat, client, SEND", "send_lat, server, SEND"})
    void speaksTheCapturedExchangeByteForByte(final String tool, final String role, final Flow flow) throws Exception
    {
        final CapturedExchange captured = CapturedExchange.load(tool);
        final boolean client = "client".equals(role);
        final PerftestDest local = PerftestKeyMessage.decode(
            captured.of(client, PerftestKeyMessage.LENGTH_GID).get(0), true);
        final PerftestDest remote = PerftestKeyMessage.decode(
            captured.of(!client, PerftestKeyMessage.LENGTH_GID).get(0), true);

        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            final CompletableFuture<String> fake = replay(captured, !client, listener);
            final PerftestConnector connector = client ?
                PerftestTcpConnector.client("127.0.0.1", listener.getLocalPort(), true, TIMEOUT, TIMEOUT) :
                PerftestTcpConnector.server(listener, true, TIMEOUT);
            final PerftestSession session = PerftestSession.open(connector, PerftestVersion.LOCAL, TIMEOUT);
            assertEquals("6.06", session.peerVersion());
            assertEquals(client, session.isClient());
            assertEquals(PerftestSysData.DEFAULT, session.exchangeSysData(PerftestSysData.DEFAULT));
            assertEquals(3, session.exchangeMtu(3));
            assertEquals(remote, session.exchangeDests(new PerftestDest[] {local})[0]);
            if (Flow.BW_WITH_REPORT == flow)
            {
                assertEquals(remote, session.exchangeDests(new PerftestDest[] {local})[0]);
                assertEquals(remote, session.handShake(local));
                assertEquals(remote, session.handShake(local));
                final PerftestReport mine = report(captured, client);
                final PerftestReport theirs = report(captured, !client);
                final PerftestReport received = session.exchangeReport(mine);
                for (int i = 0; i < PerftestReport.FIELDS; i++)
                {
                    assertArrayEquals(theirs.field(i), received.field(i), "report field " + i);
                }
            }
            else
            {
                assertEquals(remote, session.handShake(local));
                assertEquals(remote, session.exchangeDests(new PerftestDest[] {local})[0]);
                assertEquals(remote, session.handShake(local));
            }
            session.close(local);
            assertEquals("", fake.get(10, TimeUnit.SECONDS));
        }
    }

    @ParameterizedTest
    @CsvSource({"5.60, client", "5.50, server", "4.5, client"})
    void refusesAPeerVersionItDoesNotSpeakNamingIt(final String version, final String role) throws Exception
    {
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            final boolean client = "client".equals(role);
            final CompletableFuture<String> fake = peer(listener, !client, (in, out) ->
            {
                if (client)
                {
                    readN(in, 16);
                    out.write(PerftestVersion.encode(version));
                }
                else
                {
                    out.write(PerftestVersion.encode(version));
                    readN(in, 16);
                }
                return "";
            });
            final PerftestVersionException ex = assertThrows(PerftestVersionException.class,
                () -> PerftestSession.open(connector(listener, client), PerftestVersion.LOCAL, TIMEOUT));
            assertTrue(ex.getMessage().contains("version " + version), ex.getMessage());
            fake.get(10, TimeUnit.SECONDS);
        }
    }

    @ParameterizedTest
    @CsvSource({"6.28, client", "6.29, server", "26.01, client"})
    void aNewerPeerHearingRoce4jsVersionSkipsTheNegotiationAndGoesOnToTheRecords(final String version,
        final String role) throws Exception
    {
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            final boolean client = "client".equals(role);
            final byte[] peerRecord = PerftestKeyMessage.encode(dest(), true);
            final CompletableFuture<String> fake = peer(listener, !client, (in, out) ->
            {
                // perftest >= 6.28 against 6.06: version, sys data, MTU, then the records (no negotiate_params).
                final byte[][] sent = {PerftestVersion.encode(version), {0, 0, 0x10, 0}, {0, 0, 0, 0x40}, {'3', 0},
                    peerRecord};
                final int[] lengths = {16, 4, 4, 2, PerftestKeyMessage.LENGTH_GID};
                for (int i = 0; i < sent.length; i++)
                {
                    if (client)
                    {
                        readN(in, lengths[i]);
                        out.write(sent[i]);
                    }
                    else
                    {
                        out.write(sent[i]);
                        readN(in, lengths[i]);
                    }
                }
                return "";
            });
            final PerftestSession session = PerftestSession.open(connector(listener, client), PerftestVersion.LOCAL,
                TIMEOUT);
            assertEquals(version, session.peerVersion());
            assertEquals(false, session.negotiates());
            session.exchangeSysData(PerftestSysData.DEFAULT);
            assertEquals(3, session.exchangeMtu(3));
            assertEquals(dest(), session.exchangeDests(new PerftestDest[] {dest()})[0]);
            assertEquals("", fake.get(10, TimeUnit.SECONDS));
            session.close();
        }
    }

    @ParameterizedTest(name = "server verb {0}")
    @CsvSource(delimiter = '|', value = {"2 | ", "4 | verb mismatch: local=WRITE, remote=READ"})
    void twoSidesAnnouncing629NegotiateAndNameTheFirstMismatch(final int serverVerb, final String mismatch)
        throws Exception
    {
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            final CompletableFuture<String> server = CompletableFuture.supplyAsync(() ->
            {
                try (PerftestSession session = PerftestSession.open(connector(listener, false), "6.29", TIMEOUT))
                {
                    return negotiateAfterMtu(session, serverVerb);
                }
                catch (final IOException ex)
                {
                    return ex.getMessage();
                }
            });
            final String clientOutcome;
            try (PerftestSession session = PerftestSession.open(connector(listener, true), "6.29", TIMEOUT))
            {
                assertTrue(session.negotiates());
                clientOutcome = negotiateAfterMtu(session, 2);
            }
            final String serverOutcome = server.get(10, TimeUnit.SECONDS);
            if (null == mismatch)
            {
                assertEquals("max_qp_rd_atom 16", clientOutcome);
                assertEquals("max_qp_rd_atom 16", serverOutcome);
            }
            else
            {
                assertEquals(mismatch + "\n Failed to negotiate parameters", clientOutcome);
                assertEquals("verb mismatch: local=READ, remote=WRITE\n Failed to negotiate parameters",
                    serverOutcome);
            }
        }
    }

    private static String negotiateAfterMtu(final PerftestSession session, final int verb) throws IOException
    {
        session.exchangeSysData(PerftestSysData.DEFAULT);
        session.exchangeMtu(3);
        try
        {
            return "max_qp_rd_atom " + session.negotiate(PerftestNegotiationTest.writeBw(verb)).maxQpRdAtom();
        }
        catch (final OobProtocolException ex)
        {
            return ex.getMessage();
        }
    }

    @Test
    void namesATruncatedQpRecord() throws Exception
    {
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            final CompletableFuture<String> fake = peer(listener, false, (in, out) ->
            {
                answerSetup(in, out);
                readN(in, PerftestKeyMessage.LENGTH_GID);
                out.write(Arrays.copyOf(CapturedExchange.load("write_bw").of(false, 108).get(0), 50));
                return "";
            });
            final PerftestSession session = PerftestSession.open(connector(listener, true), "6.06", TIMEOUT);
            session.exchangeSysData(PerftestSysData.DEFAULT);
            session.exchangeMtu(3);
            final OobProtocolException ex = assertThrows(OobProtocolException.class,
                () -> session.exchangeDests(new PerftestDest[] {dest()}));
            assertTrue(ex.getMessage().contains("truncated QP record") && ex.getMessage().contains("50 of 108"),
                ex.getMessage());
            session.close();
            fake.get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aClientRetriesAPeerThatClosesBeforeAnsweringAndGivesUpAfterItsRetryTime() throws Exception
    {
        try (ServerSocket listener = new ServerSocket(0, 4, InetAddress.getLoopbackAddress()))
        {
            // As QEMU's port forwarding does while nothing listens in the guest: accept, then close unanswered.
            final AtomicInteger closed = new AtomicInteger();
            final CompletableFuture<Void> fake = CompletableFuture.runAsync(() ->
            {
                try
                {
                    for (int i = 0; i < 2; i++)
                    {
                        listener.accept().close();
                        closed.incrementAndGet();
                    }
                    try (Socket socket = listener.accept())
                    {
                        answerSetup(socket.getInputStream(), socket.getOutputStream());
                    }
                }
                catch (final IOException ex)
                {
                    throw new IllegalStateException(ex);
                }
            });
            final PerftestSession session = PerftestSession.open(connector(listener, true), "6.06", TIMEOUT);
            assertEquals(2, closed.get());
            assertEquals(PerftestSysData.DEFAULT, session.exchangeSysData(PerftestSysData.DEFAULT));
            assertEquals(3, session.exchangeMtu(3));
            session.close();
            fake.get(10, TimeUnit.SECONDS);

            final CompletableFuture<Void> closer = CompletableFuture.runAsync(() ->
            {
                try
                {
                    listener.accept().close();
                    closed.incrementAndGet();
                }
                catch (final IOException ex)
                {
                    throw new IllegalStateException(ex);
                }
            });
            final OobProtocolException ex = assertThrows(OobProtocolException.class, () -> PerftestSession.open(
                PerftestTcpConnector.client("127.0.0.1", listener.getLocalPort(), true, TIMEOUT, Duration.ZERO),
                "6.06", Duration.ZERO));
            assertTrue(ex.getMessage().contains("closed the connection instead of sending its data"), ex.getMessage());
            closer.get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aSilentPeerIsATimeoutNamingWhatWasAwaited() throws Exception
    {
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            final CompletableFuture<String> fake = peer(listener, false, (in, out) ->
            {
                readN(in, 16);
                // ... and say nothing until the client gives up and closes.
                return 0 > in.read() ? "" : "client sent more";
            });
            final OobProtocolException ex = assertThrows(OobProtocolException.class, () -> PerftestSession.open(
                PerftestTcpConnector.client("127.0.0.1", listener.getLocalPort(), true, Duration.ofMillis(300),
                    Duration.ZERO), "6.06", Duration.ZERO));
            assertTrue(ex.getMessage().contains("timed out waiting for the data"), ex.getMessage());
            assertEquals("", fake.get(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void rejectsAMalformedMtuFieldAndIgnoresAnOutOfRangeOne() throws Exception
    {
        for (final byte[] field : List.of(new byte[] {'x', 0}, new byte[] {'7', 0}))
        {
            try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
            {
                final CompletableFuture<String> fake = peer(listener, false, (in, out) ->
                {
                    readN(in, 16);
                    out.write(PerftestVersion.encode("6.06"));
                    readN(in, 2);
                    out.write(field);
                    return "";
                });
                final PerftestSession session = PerftestSession.open(connector(listener, true), "6.06", TIMEOUT);
                if ('x' == field[0])
                {
                    final OobProtocolException ex = assertThrows(OobProtocolException.class,
                        () -> session.exchangeMtu(3));
                    assertTrue(ex.getMessage().contains("MTU field must be a digit and a NUL, got 7800"),
                        ex.getMessage());
                }
                else
                {
                    assertEquals(3, session.exchangeMtu(3));
                }
                session.close();
                fake.get(10, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void agreesOnTheLargerSysDataAndTheSmallerMtu() throws Exception
    {
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            final CompletableFuture<String> fake = peer(listener, false, (in, out) ->
            {
                readN(in, 16);
                out.write(PerftestVersion.encode("6.20"));
                readN(in, 4);
                out.write(new byte[] {0, 1, 0, 0});
                readN(in, 4);
                out.write(new byte[] {0, 0, 0, 32});
                readN(in, 2);
                out.write(new byte[] {'2', 0});
                // 6.07 and later send no "done": the handshake, then close.
                final byte[] record = readN(in, PerftestKeyMessage.LENGTH_GID);
                out.write(record);
                return readN(in, 5).length == 5 ? "" : "no done";
            });
            final PerftestSession session = PerftestSession.open(connector(listener, true), "6.06", TIMEOUT);
            assertEquals("6.20", session.peerVersion());
            assertEquals(new PerftestSysData(65536, 64), session.exchangeSysData(PerftestSysData.DEFAULT));
            assertEquals(2, session.exchangeMtu(3));
            session.close(dest());
            assertEquals("", fake.get(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void namesGarbageInsteadOfTheClosingDone() throws Exception
    {
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            final CompletableFuture<String> fake = peer(listener, false, (in, out) ->
            {
                readN(in, 16);
                out.write(PerftestVersion.encode("6.06"));
                out.write(readN(in, PerftestKeyMessage.LENGTH_GID));
                out.write(new byte[] {'n', 'o', 'p', 'e', '!', '!'});
                return "";
            });
            final PerftestSession session = PerftestSession.open(connector(listener, true), "6.06", TIMEOUT);
            final OobProtocolException ex = assertThrows(OobProtocolException.class, () -> session.close(dest()));
            assertTrue(ex.getMessage().contains("instead of \"done\""), ex.getMessage());
            fake.get(10, TimeUnit.SECONDS);
        }
    }

    private static PerftestDest dest()
    {
        return new PerftestDest(0, 1, 0x11, 0x123456, 0x1000, 0x7f00_0000_0000L, 0, 0x0000_FFFF_0A4D_0001L, 0);
    }

    private static PerftestConnector connector(final ServerSocket listener, final boolean client)
    {
        return client ?
            PerftestTcpConnector.client("127.0.0.1", listener.getLocalPort(), true, TIMEOUT, TIMEOUT) :
            PerftestTcpConnector.server(listener, true, TIMEOUT);
    }

    private static PerftestReport report(final CapturedExchange captured, final boolean client)
    {
        return PerftestReport.fromFields(captured.of(client, PerftestReport.FIELD_BYTES).toArray(new byte[0][]));
    }

    /** One fake peer's conversation on its socket; returns "" or what went wrong. */
    @FunctionalInterface
    interface Conversation
    {
        String talk(InputStream in, OutputStream out) throws IOException;
    }

    private static CompletableFuture<String> peer(final ServerSocket listener, final boolean fakeIsClient,
        final Conversation conversation)
    {
        return CompletableFuture.supplyAsync(() ->
        {
            try (Socket socket = fakeIsClient ? connect(listener.getLocalPort()) : listener.accept())
            {
                socket.setSoTimeout(10_000);
                return conversation.talk(socket.getInputStream(), socket.getOutputStream());
            }
            catch (final IOException ex)
            {
                return "fake peer failed: " + ex;
            }
        });
    }

    /**
     * Play one side of a capture: write its messages, and read the other side's, comparing each byte.
     */
    private static CompletableFuture<String> replay(
        final CapturedExchange captured, final boolean fakeIsClient, final ServerSocket listener)
    {
        return peer(listener, fakeIsClient, (in, out) ->
        {
            int index = 0;
            for (final CapturedExchange.Message message : captured.messages())
            {
                if (message.fromClient() == fakeIsClient)
                {
                    out.write(message.bytes());
                    out.flush();
                }
                else
                {
                    final byte[] got = readN(in, message.bytes().length);
                    if (!Arrays.equals(message.bytes(), got))
                    {
                        return captured.name() + " message " + index + ": expected " +
                            HexFormat.of().formatHex(message.bytes()) + ", got " + HexFormat.of().formatHex(got);
                    }
                }
                index++;
            }
            return in.read() < 0 ? "" : "roce4j sent more after the last captured message";
        });
    }

    private static Socket connect(final int port) throws IOException
    {
        final Socket socket = new Socket();
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 10_000);
        return socket;
    }

    private static void answerSetup(final InputStream in, final OutputStream out) throws IOException
    {
        readN(in, 16);
        out.write(PerftestVersion.encode("6.06"));
        readN(in, 4);
        out.write(new byte[] {0, 0, 0x10, 0});
        readN(in, 4);
        out.write(new byte[] {0, 0, 0, 0x40});
        readN(in, 2);
        out.write(new byte[] {'3', 0});
    }

    private static byte[] readN(final InputStream in, final int length) throws IOException
    {
        final byte[] bytes = new byte[length];
        int done = 0;
        while (done < length)
        {
            final int n = in.read(bytes, done, length - done);
            if (n < 0)
            {
                return Arrays.copyOf(bytes, done);
            }
            done += n;
        }
        return bytes;
    }
}
