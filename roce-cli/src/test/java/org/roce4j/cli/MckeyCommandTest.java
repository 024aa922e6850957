package org.roce4j.cli;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code roce mckey} run in process: a roce4j sender and a roce4j receiver joined to one group over the in-memory
 * fabric, through rdma_cm's UDP port space, with mckey's output lines and return status; option errors and refusals
 * as mckey reports them.
 */
class MckeyCommandTest
{
    private static List<String> receiver(final Cli.Result result)
    {
        return result.outLines().stream().filter(l -> l.startsWith("[server] "))
            .map(l -> l.substring("[server] ".length())).toList();
    }

    private static List<String> sender(final Cli.Result result)
    {
        return result.outLines().stream().filter(l -> !l.startsWith("[server] ")).toList();
    }

    @Test
    void anIpv4GroupBothRolesPrintMckeysLinesAndReturnZero()
    {
        final Cli.Result result = Cli.run("mckey", "--link", "memory", "-m", "239.1.2.3", "--pause", "0",
            "--timeout", "20000");
        assertEquals(0, result.exitCode(), result.out() + result.err());
        assertEquals(List.of("mckey: starting client", "mckey: joining",
            "mckey: joined dgid: ::ffff:239.1.2.3 mlid 0x0 sl 0", "initiating data transfers",
            "data transfers complete", "test complete", "return status 0"), sender(result));
        assertEquals(List.of("mckey: starting server", "mckey: joining",
            "mckey: joined dgid: ::ffff:239.1.2.3 mlid 0x0 sl 0", "receiving data transfers",
            "data transfers complete", "test complete", "return status 0"), receiver(result));
    }

    @Test
    void anIpv6GroupWithSeveralIdentifiersCountsAndSizes()
    {
        final Cli.Result result = Cli.run("mckey", "--link", "memory", "-m", "ff0e::77:1", "-c", "3", "-C", "5",
            "-S", "1000", "--pause", "0", "--timeout", "20000");
        assertEquals(0, result.exitCode(), result.out() + result.err());
        assertEquals(3, receiver(result).stream().filter(l -> l.equals("mckey: joined dgid: ff0e::77:1 mlid 0x0 sl 0"))
            .count(), result.out());
        assertTrue(receiver(result).contains("data transfers complete"), result.out());
        assertTrue(sender(result).contains("return status 0"), result.out());
    }

    @Test
    void aSendOnlyReceiverGetsNothingAndTimesOut()
    {
        final Cli.Result result = Cli.run("mckey", "--link", "memory", "-m", "239.1.2.3", "-o", "-C", "2",
            "--pause", "0", "--timeout", "1000");
        assertEquals(146, result.exitCode(), result.out() + result.err());
        assertTrue(receiver(result).contains("roce mckey: 0 of 2 messages within 1000 ms"), result.out());
        assertTrue(receiver(result).contains("return status -110"), result.out());
    }

    @Test
    void aMessageLargerThanTheActiveMtuFailsTheJoin()
    {
        final Cli.Result result = Cli.run("mckey", "--link", "memory", "-m", "239.1.2.3", "-S", "2048",
            "--pause", "0", "--timeout", "1000");
        assertTrue(sender(result).contains("mckey: message_size 2048 is larger than active mtu 1024"), result.out());
        assertTrue(result.err().contains("mckey: failure leaving: rdma_leave_multicast: 239.1.2.3 was not joined " +
            "on this identifier (EADDRNOTAVAIL)"), result.err());
        assertTrue(sender(result).contains("return status -1"), result.out());
        assertEquals(MckeyCommand.EXIT_FAILED, result.exitCode(), "mckey returns the failed leave's -1");
    }

    @Test
    void badOptionsAndWhatRoceCannotHonourExit1()
    {
        final Cli.Result unknown = Cli.run("mckey", "-x");
        assertEquals(MckeyCommand.EXIT_USAGE, unknown.exitCode());
        final Cli.Result unmapped = Cli.run("mckey", "-M", "ff12:401b::1");
        assertEquals(MckeyCommand.EXIT_USAGE, unmapped.exitCode());
        assertTrue(unmapped.out().contains("unmapped multicast address requires binding to source address"),
            unmapped.out());
        final Cli.Result afIb = Cli.run("mckey", "-M", "ff12:401b::1", "-b", "10.0.0.1");
        assertEquals(MckeyCommand.EXIT_USAGE, afIb.exitCode());
        assertTrue(afIb.err().contains("RoCE groups are IP multicast addresses"), afIb.err());
        final Cli.Result ipoib = Cli.run("mckey", "-m", "239.1.2.3", "-p", "0x2");
        assertEquals(MckeyCommand.EXIT_USAGE, ipoib.exitCode());
        assertTrue(ipoib.err().contains("RDMA_PS_UDP (0x111) only"), ipoib.err());
        assertTrue(ipoib.out().contains("[-o join as a send-only full-member]"), ipoib.out());
        final Cli.Result unicast = Cli.run("mckey", "-m", "10.0.0.9");
        assertEquals(MckeyCommand.EXIT_USAGE, unicast.exitCode());
        assertTrue(unicast.err().contains("is not a multicast address"), unicast.err());
    }
}
