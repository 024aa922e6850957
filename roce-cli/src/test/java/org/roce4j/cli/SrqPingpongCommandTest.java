package org.roce4j.cli;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.roce4j.cli.pingpong.SrqPingpong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code roce pingpong --srq N}: ibv_srq_pingpong's run and lines (rdma-core libibverbs/examples/srq_pingpong.c)
 * roce4j to roce4j over the in-memory fabric, both roles in one process: N " local address:" lines, then N
 * " remote address:" lines, each side's remote lines the other's local lines in order, the two closing lines with
 * srq_pingpong's printf formats, and its argument checks in its words, exit code 1.
 */
class SrqPingpongCommandTest
{
    /** printf("  local address:  LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s\n"), the remote line alike. */
    private static final Pattern ADDRESS = Pattern.compile(
        "  (local|remote) address: {1,2}LID 0x0000, QPN 0x([0-9a-f]{6}), PSN 0x([0-9a-f]{6}), GID (\\S+)");
    /** printf("%lld bytes in %.2f seconds = %.2f Mbit/sec\n"). */
    private static final Pattern BYTES =
        Pattern.compile("(\\d+) bytes in \\d+\\.\\d{2} seconds = \\d+\\.\\d{2} Mbit/sec");
    /** printf("%d iters in %.2f seconds = %.2f usec/iter\n"). */
    private static final Pattern ITERS =
        Pattern.compile("(\\d+) iters in \\d+\\.\\d{2} seconds = \\d+\\.\\d{2} usec/iter");

    @ParameterizedTest(name = "--srq {0}, -s {1}, -n {2}")
    @CsvSource({"4, 64, 200", "16, 4096, 320", "1, 1, 50"})
    void bothRolesPrintSrqPingpongsLinesForEveryQp(final int qps, final int size, final int iters)
    {
        final Cli.Result result = Cli.run("pingpong", "--srq", Integer.toString(qps), "-s", Integer.toString(size),
            "-n", Integer.toString(iters), "-c");
        assertEquals(0, result.exitCode(), result.out() + result.err());
        assertEquals("", result.err());
        final List<String> lines = result.outLines();
        // The client's lines, then the in-process server's, each prefixed "[server] ".
        assertEquals(2 * (2 * qps + 2), lines.size(), result.out());
        final List<String> client = lines.subList(0, 2 * qps + 2);
        final List<String> server = lines.subList(2 * qps + 2, lines.size()).stream()
            .map(line -> line.substring("[server] ".length())).toList();
        checkSide(client, qps, size, iters, "::ffff:" + InProcessPorts.CLIENT_IP, "::ffff:" + InProcessPorts.SERVER_IP);
        checkSide(server, qps, size, iters, "::ffff:" + InProcessPorts.SERVER_IP, "::ffff:" + InProcessPorts.CLIENT_IP);
        for (int i = 0; i < qps; i++)
        {
            assertEquals(client.get(i).replace("local address: ", "remote address:"), server.get(qps + i),
                "the server's remote line " + i + " is the client's local line " + i);
            assertEquals(server.get(i).replace("local address: ", "remote address:"), client.get(qps + i),
                "the client's remote line " + i + " is the server's local line " + i);
        }
        assertTrue(result.out().lines().noneMatch(line -> line.contains("invalid data")), result.out());
    }

    private static void checkSide(final List<String> lines, final int qps, final int size, final int iters,
        final String localGid, final String remoteGid)
    {
        for (int i = 0; i < 2 * qps; i++)
        {
            final Matcher address = ADDRESS.matcher(lines.get(i));
            assertTrue(address.matches(), "line " + i + ": '" + lines.get(i) + "'");
            assertEquals(i < qps ? "local" : "remote", address.group(1), lines.get(i));
            assertEquals(i < qps ? localGid : remoteGid, address.group(4), lines.get(i));
            assertEquals(i < qps ? "  local address:  " : "  remote address: ", lines.get(i).substring(0, 18));
        }
        final Matcher bytes = BYTES.matcher(lines.get(2 * qps));
        assertTrue(bytes.matches(), lines.get(2 * qps));
        assertEquals((long)size * iters * 2, Long.parseLong(bytes.group(1)), "size x iters x 2, as srq_pingpong");
        final Matcher itersLine = ITERS.matcher(lines.get(2 * qps + 1));
        assertTrue(itersLine.matches(), lines.get(2 * qps + 1));
        assertEquals(iters, Integer.parseInt(itersLine.group(1)));
    }

    @Test
    void numQpIsTheSameOptionAsSrq()
    {
        final Cli.Result result = Cli.run("pingpong", "-q", "3", "-n", "30", "-s", "32");
        assertEquals(0, result.exitCode(), result.err());
        assertEquals(3, result.out().lines().filter(line -> line.startsWith("  local address:  ")).count(),
            result.out());
        assertEquals(0, Cli.run("pingpong", "--num-qp", "2", "-n", "10", "-s", "32").exitCode());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "--srq 0                   | -q 0: ibv_srq_pingpong needs at least one QP",
        "--srq 256 -r 1000         | num_qp 256 must be less than 255",
        "--srq 17 -r 16            | rx_depth 16 is too small for 17 QPs -- must have at least one receive per QP.",
        "--srq 4 --transport ud    | --srq runs ibv_srq_pingpong, whose QPs are RC: drop --transport ud",
        "--srq 4 -s 0              | -s 0: ibv_srq_pingpong's size is at least 1"})
    void rejectsWhatSrqPingpongRejectsWithExitCode1(final String args, final String message)
    {
        final Cli.Result result = Cli.run(("pingpong " + args.trim()).split(" "));
        assertEquals(PingpongCommand.EXIT_FAILURE, result.exitCode(), result.out() + result.err());
        assertEquals("roce pingpong: " + message.trim(), result.err().strip());
        assertEquals("", result.out());
    }

    @Test
    void takesUpTo255QpsAsSrqPingpongDoes()
    {
        // srq_pingpong.c: "if (num_qp >= MAX_QP)" with MAX_QP 256, so 255 passes (its message says "less than 255").
        SrqPingpong.checkQps(255, 500);
        assertEquals("num_qp 256 must be less than 255",
            assertThrows(IllegalArgumentException.class, () -> SrqPingpong.checkQps(256, 500)).getMessage());
        assertEquals("rx_depth 254 is too small for 255 QPs -- must have at least one receive per QP.",
            assertThrows(IllegalArgumentException.class, () -> SrqPingpong.checkQps(255, 254)).getMessage());
    }

    @Test
    void helpNamesTheOptionAndItsMapping()
    {
        final Cli.Result result = Cli.run("pingpong", "--help");
        assertEquals(0, result.exitCode());
        assertTrue(result.out().contains("--srq 16 is ibv_srq_pingpong"), result.out());
        assertTrue(result.out().contains("-q, --srq, --num-qp=num") || result.out().contains("--srq, -q, --num-qp"),
            result.out());
    }
}
