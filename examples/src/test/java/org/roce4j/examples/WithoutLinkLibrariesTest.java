package org.roce4j.examples;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An in-memory program needs none of the link libraries (issue 16 point 4): the quick start runs in a JVM whose class
 * path is this test's without Netty, Pcap4J and JNA, and a udp link opened there fails with an error naming the
 * dependency to add, not a NoClassDefFoundError.
 */
class WithoutLinkLibrariesTest
{
    /** The jars roce-transport declares optional (Netty for udp, Pcap4J and its JNA for pcap). */
    private static final Pattern LINK_LIBRARY = Pattern.compile(".*/(netty-[^/]*|pcap4j-[^/]*|jna-[^/]*)\\.jar");
    private static final long TIMEOUT_S = 120;

    @Test
    void theQuickStartRunsWithoutNettyPcap4jAndJna() throws Exception
    {
        assertEquals("RECV_RDMA_WITH_IMM imm=42: hello, RDMA\n", runWithoutLinkLibraries(QuickStart.class));
    }

    @Test
    void aUdpLinkOpenedWithoutNettyNamesTheDependencyToAdd() throws Exception
    {
        final String out = runWithoutLinkLibraries(UdpWithoutLinkLibraries.class);
        assertTrue(out.startsWith("the udp link needs Netty 4.2 ") &&
            out.contains("add the dependency org.roce4j:roce-links (type pom)"), out);
    }

    private static String runWithoutLinkLibraries(final Class<?> main) throws IOException, InterruptedException
    {
        final List<String> kept = new ArrayList<>();
        int removed = 0;
        for (final String entry : System.getProperty("java.class.path").split(File.pathSeparator))
        {
            if (LINK_LIBRARY.matcher(entry.replace(File.separatorChar, '/')).matches())
            {
                removed++;
            }
            else
            {
                kept.add(entry);
            }
        }
        // Netty's transport, its epoll and io_uring classes, Pcap4J and JNA at least: else this proves nothing.
        assertTrue(removed >= 5, "the test class path should hold the link libraries to leave out, removed " +
            removed);
        final Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        final Process process = new ProcessBuilder(java.toString(),
            "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "-cp", String.join(File.pathSeparator, kept), main.getName())
            .redirectErrorStream(true)
            .start();
        process.getOutputStream().close();
        final boolean ended = process.waitFor(TIMEOUT_S, TimeUnit.SECONDS);
        final String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!ended)
        {
            process.destroyForcibly();
        }
        assertTrue(ended, main.getSimpleName() + " did not end within " + TIMEOUT_S + " s: " + out);
        assertEquals(0, process.exitValue(), main.getSimpleName() + " failed:\n" + out);
        return out;
    }
}
