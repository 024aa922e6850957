package org.roce4j.cli;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code roce udaddy} run in process: roce4j's client against roce4j's server over the in-memory fabric, through
 * rdma_cm's UDP port space (SIDR), with udaddy's output lines and return status; option errors and refusals as
 * udaddy reports them.
 */
class UdaddyCommandTest
{
    private static List<String> server(final Cli.Result result)
    {
        return result.outLines().stream().filter(l -> l.startsWith("[server] "))
            .map(l -> l.substring("[server] ".length())).toList();
    }

    private static List<String> client(final Cli.Result result)
    {
        return result.outLines().stream().filter(l -> !l.startsWith("[server] ")).toList();
    }

    @Test
    void bothRolesPrintUdaddysLinesAndReturnZero()
    {
        final Cli.Result result = Cli.run("udaddy", "--link", "memory", "--timeout", "20000");
        assertEquals(0, result.exitCode(), result.out() + result.err());
        assertEquals(List.of("udaddy: starting client", "udaddy: connecting", "initiating data transfers",
            "receiving data transfers", "data transfers complete", "test complete", "return status 0"),
            client(result));
        assertEquals(List.of("udaddy: starting server", "receiving data transfers", "sending replies",
            "data transfers complete", "test complete", "return status 0"), server(result));
    }

    @Test
    void severalConnectionsMessageCountAndSize()
    {
        final Cli.Result result = Cli.run("udaddy", "--link", "memory", "-c", "3", "-C", "5", "-S", "1024",
            "--timeout", "20000");
        assertEquals(0, result.exitCode(), result.out() + result.err());
        assertEquals("return status 0", result.outLines().get(6));
        assertTrue(server(result).contains("data transfers complete"), result.out());
    }

    @Test
    void noMessagesOnlyResolves()
    {
        final Cli.Result result = Cli.run("udaddy", "--link", "memory", "-C", "0", "--timeout", "20000");
        assertEquals(0, result.exitCode(), result.out() + result.err());
        assertEquals(List.of("udaddy: starting client", "udaddy: connecting", "test complete", "return status 0"),
            client(result));
        assertEquals(List.of("udaddy: starting server", "test complete", "return status 0"), server(result));
    }

    @Test
    void aMessageLargerThanTheActiveMtuIsEinval()
    {
        final Cli.Result result = Cli.run("udaddy", "--link", "memory", "-S", "2048", "--timeout", "500");
        assertEquals(234, result.exitCode(), result.out() + result.err());
        assertTrue(client(result).contains("udaddy: message_size 2048 is larger than active mtu 1024"),
            result.out());
        assertTrue(client(result).contains("return status -22"), result.out());
    }

    @Test
    void badOptionsPrintTheUsageAndExit1()
    {
        final Cli.Result unknown = Cli.run("udaddy", "-x");
        assertEquals(UdaddyCommand.EXIT_USAGE, unknown.exitCode());
        final Cli.Result gid = Cli.run("udaddy", "-f", "gid");
        assertEquals(UdaddyCommand.EXIT_USAGE, gid.exitCode());
        assertTrue(gid.out().contains("[-p port_space - 0x111 for UDP (default), 0x2 for IPOIB]"), gid.out());
        assertTrue(gid.err().contains("not supported"), gid.err());
    }

    @Test
    void anIpoibPortSpaceIsRefusedLikeAFailedRdmaCreateId()
    {
        final Cli.Result result = Cli.run("udaddy", "--link", "memory", "-P", "ipoib", "--timeout", "2000");
        assertEquals(1, result.exitCode(), result.out() + result.err());
        assertTrue(result.err().contains("port space 0x2 is not supported"), result.err());
    }

    @Test
    void anUnresolvableServerIsEaiNoname()
    {
        final Cli.Result result = Cli.run("udaddy", "-s", "no-such-host.invalid", "--link", "memory");
        assertEquals(UdaddyCommand.EXIT_EAI_NONAME, result.exitCode(), result.out() + result.err());
        assertTrue(result.out().startsWith("rdma_getaddrinfo error: "), result.out());
    }
}
