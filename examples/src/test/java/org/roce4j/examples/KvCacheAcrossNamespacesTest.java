package org.roce4j.examples;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.roce4j.transport.link.NetnsProcess;
import org.roce4j.transport.link.NamespacePair;
import org.roce4j.transport.link.TestEnvironment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The KV-cache hand-off between two network namespaces joined by a veth pair (9000-byte MTU), each side on the udp
 * link, as examples/kv-cache-netns.sh runs it: the decode side in a child JVM in one namespace, the prefill side
 * here on a thread inside the other. Needs root and ip (CI has both); skipped with the reason otherwise.
 */
@Tag("slow")
class KvCacheAcrossNamespacesTest
{
    private static final String DECODE_IP = "10.81.0.1";
    private static final String PREFILL_IP = "10.81.0.2";
    private static final int PAGES = 32;
    private static final int PAGE_BYTES = 64 * 1024;
    private static final int ROUNDS = 10;
    private static NamespacePair namespaces;

    private static void requireEnvironment()
    {
        TestEnvironment.requireNetworkAdmin();
        TestEnvironment.requireCommand("ip");
    }

    @BeforeAll
    static void createNamespaces()
    {
        namespaces = NamespacePair.joinedByVeth(KvCacheAcrossNamespacesTest::requireEnvironment,
            "kvd", "kvd0", DECODE_IP + "/24", "kvp", "kvp0", PREFILL_IP + "/24", 9000);
    }

    @AfterAll
    static void removeNamespaces()
    {
        NamespacePair.close(namespaces);
    }

    @Test
    void pagesCrossAVethAndEveryByteArrives()
    {
        requireEnvironment();
        final String[] sizes = {"--pages", Integer.toString(PAGES), "--page-size", Integer.toString(PAGE_BYTES),
            "--rounds", Integer.toString(ROUNDS)};
        try (NetnsProcess decode = NetnsProcess.start(namespaces.first(), KvCacheTransfer.class, "decode", "--link",
            "udp:" + DECODE_IP, sizes[0], sizes[1], sizes[2], sizes[3], sizes[4], sizes[5]))
        {
            decode.awaitLine(line -> line.startsWith("decode: listening on port"), 60_000);
            final KvCacheTransfer.Result result = namespaces.second().call(() -> KvCacheTransfer.prefill(
                new KvCacheTransfer.Settings("udp:" + PREFILL_IP, DECODE_IP, KvCacheTransfer.DEFAULT_PORT, PAGES,
                    PAGE_BYTES, ROUNDS)));
            System.out.println(result.describe());
            assertEquals((long)PAGES * PAGE_BYTES * ROUNDS, result.bytes());
            assertEquals(PAGES, result.pages(), "the shape comes from the decode side's accept");
            final String done = decode.awaitLine(line -> line.startsWith("decode: "), 60_000);
            assertEquals("decode: " + ROUNDS + " hand-offs of " + PAGES + " pages, page counts and every byte " +
                "checked", done);
            assertEquals(0, decode.waitFor(60_000), "decode side's exit code");
            assertTrue(result.nanos() > 0);
        }
    }
}
