package org.roce4j.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A udp-link command in a fresh JVM (logging is configured once per JVM, so not in process) prints nothing but its
 * own lines: no "SLF4J(W): No SLF4J providers" lines (slf4j-api 2 without a binding printed three), no Netty
 * warning. Netty is made to warn on purpose ({@code -Dio.netty.machineId} malformed, which DefaultChannelId reports
 * when the udp link makes its channel, as MacAddressUtil reports a host without a usable MAC); with {@code roce -v}
 * that warning reaches stderr.
 */
class QuietLoggingTest
{
    private static final String MALFORMED_MACHINE_ID = "not-a-machine-id";

    @Test
    void udpCommandsPrintOnlyTheirOwnLinesUnlessVerbose() throws Exception
    {
        final int closedTcpPort = Cli.freeTcpPort();
        final List<String> command = List.of("pingpong", "--link", "udp:127.0.0.1,port=" + Cli.freeUdpPort(), "-g", "1",
            "-p", Integer.toString(closedTcpPort), "127.0.0.1");

        final Run quiet = roce(command);
        assertEquals(1, quiet.exitCode, quiet.err);
        assertEquals("roce pingpong: Couldn't connect to 127.0.0.1:" + closedTcpPort + ": Connection refused\n",
            quiet.err, "stderr holds the tool's line only");
        assertFalse(quiet.err.contains("SLF4J"), quiet.err);
        assertFalse(quiet.err.contains("MacAddressUtil") || quiet.err.contains("io.netty"), quiet.err);

        final List<String> verboseCommand = new ArrayList<>();
        verboseCommand.add("-v");
        verboseCommand.addAll(command);
        final Run verbose = roce(verboseCommand);
        assertEquals(1, verbose.exitCode, verbose.err);
        assertTrue(verbose.err.contains("-Dio.netty.machineId: " + MALFORMED_MACHINE_ID + " (malformed)"),
            "roce -v shows the libraries' warnings:\n" + verbose.err);
        assertFalse(verbose.err.contains("SLF4J(W)"), verbose.err);
    }

    private record Run(int exitCode, String out, String err)
    {
    }

    private static Run roce(final List<String> args) throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
            .toString(), "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "-Dio.netty.machineId=" + MALFORMED_MACHINE_ID, "-cp", System.getProperty("java.class.path"),
            RoceCommand.class.getName()));
        command.addAll(args);
        final Process process = new ProcessBuilder(command).start();
        process.getOutputStream().close();
        final byte[] out = process.getInputStream().readAllBytes();
        final byte[] err = process.getErrorStream().readAllBytes();
        // A guard against a hang, not a speed check: the command fails at its first connect.
        if (!process.waitFor(60, TimeUnit.SECONDS))
        {
            process.destroyForcibly();
            throw new AssertionError("roce " + args + " did not exit");
        }
        return new Run(process.exitValue(), new String(out, StandardCharsets.UTF_8),
            new String(err, StandardCharsets.UTF_8));
    }
}
