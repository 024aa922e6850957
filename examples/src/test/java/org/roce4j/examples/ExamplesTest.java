package org.roce4j.examples;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every example runs as its one command runs it (here in process, over this JVM's in-memory fabric, shorter) and
 * checks every byte it moves itself; these tests check what they report.
 */
class ExamplesTest
{
    @Test
    void quickStartWritesWithImmediateAndPrintsWhatLanded() throws Exception
    {
        assertEquals("RECV_RDMA_WITH_IMM imm=42: hello, RDMA\n", stdoutOf(() -> QuickStart.main(new String[0])));
    }

    @Test
    void rcPingPongChecksEveryMessage() throws Exception
    {
        final String out = stdoutOf(() -> RcPingPong.main(new String[] {"300", "100"}));
        assertTrue(out.matches("300 round trips of 100 bytes, every byte checked: [0-9.]+ us each\n"), out);
    }

    @Test
    void rdmaCmClientAndServerEchoEveryLine() throws Exception
    {
        final String report = RdmaCmEcho.runBoth(RdmaCmEcho.DEFAULT_PORT, 25);
        assertEquals("client: 25 messages echoed by 10.0.4.1:7471, every byte checked\n" +
            "server: echoed 25 messages to 10.0.4.2", report);
    }

    @Test
    void kvCacheHandOffLandsEveryPageWithoutRetransmission() throws Exception
    {
        final KvCacheTransfer.Settings settings = new KvCacheTransfer.Settings(null, null,
            KvCacheTransfer.DEFAULT_PORT, 16, 32 * 1024, 5);
        final String[] result = new String[1];
        final String out = stdoutOf(() -> result[0] = KvCacheTransfer.runBoth(settings).describe());
        assertEquals("decode: 5 hand-offs of 16 pages, page counts and every byte checked\n", out);
        assertTrue(result[0].startsWith("kv-cache: 5 hand-offs of 16 pages x 32768 B (2.5 MiB) in "), result[0]);
        assertTrue(result[0].endsWith(" 0 packets retransmitted; every byte verified by the decode side"),
            "the in-memory fabric holds a whole hand-off: " + result[0]);
    }

    @Test
    void theKvPatternDependsOnHandOffPageAndPlace()
    {
        final long base = KvCacheTransfer.word(3, 5, 7);
        assertTrue(base != KvCacheTransfer.word(4, 5, 7) && base != KvCacheTransfer.word(3, 6, 7) &&
            base != KvCacheTransfer.word(3, 5, 8), "a stale, misplaced or shifted word would go unnoticed");
    }

    @FunctionalInterface
    private interface Body
    {
        void run() throws Exception;
    }

    private static synchronized String stdoutOf(final Body body) throws Exception
    {
        final PrintStream original = System.out;
        final ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try
        {
            body.run();
        }
        finally
        {
            System.setOut(original);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }
}
