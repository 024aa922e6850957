package org.roce4j.cli;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code roce perf} with both sides in this JVM over the in-memory fabric: every tool runs to the end, both sides
 * print perftest's layout with sane figures, and bad options are refused with perftest's reasons.
 */
class PerfCommandTest
{
    /** A BW result line: size, iterations, peak, average, message rate. */
    static final Pattern BW_LINE = Pattern.compile(
        "^ (\\d+)\\s+(\\d+)\\s+([0-9.]+)\\s+([0-9.]+)\\s+([0-9.]+)\\s*$", Pattern.MULTILINE);
    /** A latency result line: size, iterations, then seven figures. */
    static final Pattern LAT_LINE = Pattern.compile(
        "^ (\\d+)\\s+(\\d+)\\s+([0-9.]+)\\s+([0-9.]+)\\s+([0-9.]+)\\s+([0-9.]+)\\s+([0-9.]+)\\s+([0-9.]+)\\s+" +
            "([0-9.]+)\\s*$", Pattern.MULTILINE);

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
        "write_bw, -s 4096 -n 200",
        "read_bw, -s 4096 -n 200",
        "send_bw, -s 4096 -n 200",
        "atomic_bw, -n 200",
        "atomic_bw, -n 200 -A CMP_AND_SWAP",
        "write_bw, -s 65536 -n 50 -q 2",
        "send_bw, -s 1024 -n 200 -c UD",
        "send_bw, -s 2 -n 200 -c UC",
        "write_bw, -s 64 -n 200 -b",
        "send_bw, -s 64 -n 200 -b",
        "write_bw, -s 4096 -n 100 --report_gbits",
        "write_bw, -s 4096 -n 200 --perftest-version 6.29",
        "atomic_bw, -n 200 -A CMP_AND_SWAP --perftest-version 6.29"})
    void bandwidthToolsRunBothSidesInProcess(final String tool, final String options)
    {
        final Cli.Result result = run(tool, options);
        assertEquals(0, result.exitCode(), result.out() + result.err());
        final String[] sides = splitSides(result.out());
        final boolean bidirectional = options.contains("-b");
        final boolean oneWaySend = "send_bw".equals(tool) && !bidirectional;
        for (int side = 0; side < 2; side++)
        {
            final Matcher line = BW_LINE.matcher(sides[side]);
            assertTrue(line.find(), "no BW line on side " + side + ":\n" + result.out());
            final long iters = Long.parseLong(line.group(2));
            final int qps = options.contains("-q 2") ? 2 : 1;
            assertEquals(iterations(options) * qps, iters, result.out());
            final long size = Long.parseLong(line.group(1));
            final double peak = Double.parseDouble(line.group(3));
            final double average = Double.parseDouble(line.group(4));
            final double rate = Double.parseDouble(line.group(5));
            assertTrue(rate > 0, "message rate on side " + side + ":\n" + result.out());
            // Printed with 2 decimals, the bandwidth of small messages can read 0.00: check it against the rate.
            final double fromRate = rate * 1e6 * size / (1024 * 1024) / (options.contains("--report_gbits") ?
                1e9 / 8 / (1024 * 1024) : 1);
            assertEquals(fromRate, average, 0.01 + 0.01 * fromRate, "BW = rate x size on side " + side + ":\n" +
                result.out());
            if (0 == side || !oneWaySend)
            {
                assertTrue(peak >= average - 0.011 && (0 == average || peak > 0), "peak BW on side " + side + ":\n" +
                    result.out());
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
        "send_lat, -s 2 -n 100",
        "write_lat, -s 2 -n 100",
        "read_lat, -s 2 -n 100",
        "send_lat, -s 4096 -n 50 -c UC",
        "send_lat, -s 512 -n 50 -c UD"})
    void latencyToolsRunBothSidesInProcess(final String tool, final String options)
    {
        final Cli.Result result = run(tool, options);
        assertEquals(0, result.exitCode(), result.out() + result.err());
        final String[] sides = splitSides(result.out());
        for (int side = 0; side < ("read_lat".equals(tool) ? 1 : 2); side++)
        {
            final Matcher line = LAT_LINE.matcher(sides[side]);
            assertTrue(line.find(), "no latency line on side " + side + ":\n" + result.out());
            assertEquals(iterations(options), Long.parseLong(line.group(2)), result.out());
            final double min = Double.parseDouble(line.group(3));
            final double typical = Double.parseDouble(line.group(5));
            final double max = Double.parseDouble(line.group(4));
            assertTrue(min > 0 && min <= typical && typical <= max, "t_min <= t_typical <= t_max:\n" + result.out());
        }
    }

    @Test
    void aSizeSweepPrintsOneLinePerSize()
    {
        final Cli.Result result = run("write_bw", "-a -n 5");
        assertEquals(0, result.exitCode(), result.out() + result.err());
        final String[] sides = splitSides(result.out());
        final Matcher line = BW_LINE.matcher(sides[0]);
        long size = 2;
        while (line.find())
        {
            assertEquals(size, Long.parseLong(line.group(1)), result.out());
            size *= 2;
        }
        assertEquals(1L << 24, size, "sizes 2 .. 2^23:\n" + result.out());
        final Matcher serverLine = BW_LINE.matcher(sides[1]);
        assertTrue(serverLine.find());
        assertEquals(8_388_608, Long.parseLong(serverLine.group(1)), "the server prints the client's last report");
    }

    @Test
    void jsonReplacesTheTable()
    {
        final Cli.Result result = run("send_lat", "-n 20 --json");
        assertEquals(0, result.exitCode(), result.out() + result.err());
        assertTrue(result.out().startsWith("[{"), result.out());
        assertTrue(result.out().contains("\"test\": \"send_lat\""), result.out());
        assertTrue(result.out().contains("\"role\": \"server\""), result.out());
        assertTrue(result.out().contains("\"t_typical_usec\": "), result.out());
        assertTrue(!result.out().contains("#bytes"), result.out());
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"send_bw, -D 2 -s 64", "write_bw, -D 2 -s 64 -f 0", "send_lat, -D 2", "read_lat, -D 2"})
    void durationRunsReportWhatTheyCountedInTheWindow(final String tool, final String options)
    {
        final Cli.Result result = run(tool, options);
        assertEquals(0, result.exitCode(), result.out() + result.err());
        final String client = splitSides(result.out())[0];
        if (tool.endsWith("_lat"))
        {
            final Matcher line = Pattern.compile("^ (\\d+)\\s+(\\d+)\\s+([0-9.]+)\\s+([0-9.]+)\\s*$", Pattern.MULTILINE)
                .matcher(client);
            assertTrue(client.contains(" #bytes        #iterations       t_avg[usec]    tps average\n"), client);
            assertTrue(line.find(), client);
            final long iters = Long.parseLong(line.group(2));
            final double avgUsec = Double.parseDouble(line.group(3));
            final double tps = Double.parseDouble(line.group(4));
            assertTrue(iters > 0 && avgUsec > 0 && tps > 0, client);
            // Both come from the same window: tps = iterations / window, latency = window / iterations / rtt.
            final double rtt = "read_lat".equals(tool) ? 1 : 2;
            assertEquals(1e6 / (avgUsec * rtt), tps, 0.02 * tps + 0.01, client);
        }
        else
        {
            final Matcher line = BW_LINE.matcher(client);
            assertTrue(line.find(), client);
            assertTrue(Long.parseLong(line.group(2)) > 0, "messages counted in the window:\n" + client);
            assertEquals(0.0, Double.parseDouble(line.group(3)), "no peak in duration mode:\n" + client);
            assertTrue(Double.parseDouble(line.group(5)) > 0, client);
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"write_lat, -s 2 -n 100 -R", "send_bw, -s 4096 -n 200 -R", "send_bw, -s 1024 -n 100 -q 2 -R",
        "read_bw, -s 1024 -n 100 -R",
        // UD: SIDR in rdma_cm's UDP port space; the server learns the client's address from its first SEND when it
        // sends back (latency, -b), not otherwise.
        "send_bw, -s 1024 -n 200 -c UD -R", "send_bw, -s 512 -n 100 -q 2 -c UD -R", "send_bw, -s 64 -n 200 -c UD -b -R",
        "send_lat, -s 512 -n 50 -c UD -R", "send_lat, -s 2 -n 100 -q 1 -c UD -R"})
    void rdmaCmConnectsTheQpsAndCarriesTheExchange(final String tool, final String options)
    {
        final Cli.Result result = run(tool, options);
        assertEquals(0, result.exitCode(), result.out() + result.err());
        final String[] sides = splitSides(result.out());
        final int qps = options.contains("-q 2") ? 2 : 1;
        for (int side = 0; side < 2; side++)
        {
            assertTrue(sides[side].contains(" rdma_cm QPs\t : ON\n Data ex. method : rdma_cm\n"), sides[side]);
            final Matcher line = (tool.endsWith("_lat") ? LAT_LINE : BW_LINE).matcher(sides[side]);
            assertTrue(line.find(), "no result line on side " + side + ":\n" + result.out());
            assertEquals(iterations(options) * qps, Long.parseLong(line.group(2)), result.out());
        }
        assertTrue(sides[1].contains(" Waiting for client rdma_cm QP to connect\n"), sides[1]);
        // The QP numbers each side printed for the peer are the peer's own: the records crossed over rdma_cm.
        final Matcher clientLocal = Pattern.compile("local address: LID 0000 QPN (0x[0-9a-f]+)").matcher(sides[0]);
        final Matcher serverRemote = Pattern.compile("remote address: LID 0000 QPN (0x[0-9a-f]+)").matcher(sides[1]);
        assertTrue(clientLocal.find() && serverRemote.find(), result.out());
        assertEquals(clientLocal.group(1), serverRemote.group(1), result.out());
    }

    @Test
    void countersShowWhatEachDeviceDid()
    {
        final Cli.Result result = run("write_bw", "-s 4096 -n 20 --counters");
        assertEquals(0, result.exitCode(), result.out() + result.err());
        // 20 writes of 4 KiB at MTU 1024: 80 packets from the client, ACKs back from the server.
        assertTrue(result.err().contains("transport.packets_sent 80\n"), result.err());
        assertTrue(result.err().contains("[server] transport.packets_received 80\n"), result.err());
        assertTrue(result.err().contains("[server] transport.payload_bytes_received 81920\n"), result.err());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "atomic_bw | -a                 | Message size cannot be changed for Atomic tests",
        "atomic_bw | -s 16              | Message size cannot be changed for Atomic tests",
        "write_bw  | -n 4               | Iteration num should be between 5 and 100000000",
        "send_lat  | -b                 | Bidirectional is only available in BW test",
        "read_bw   | -c UC              | UC connection not possible in READ/ATOMIC verbs",
        "write_bw  | -c UD              | UD connection only possible in SEND verb",
        "write_bw  | -c XRC             | Invalid Connection type",
        "write_bw  | -A CMP_AND_SWAP    | You are not running the atomic_lat/bw test",
        "write_lat | -q 2               | Multiple QPs only available on bw tests",
        "send_bw   | -a -D 4            | Duration mode currently doesn't support running on all sizes",
        "send_bw   | -R -c UC           | UC is not supported in librdmacm",
        "fetch_bw  | -n 5               | unknown test 'fetch_bw'"})
    void refusesWhatPerftestRefuses(final String tool, final String options, final String reason)
    {
        final Cli.Result result = run(tool.trim(), options.trim());
        assertEquals(1, result.exitCode(), result.out() + result.err());
        assertTrue(result.err().contains(reason.trim()), result.err());
    }

    private static Cli.Result run(final String tool, final String options)
    {
        final List<String> args = new java.util.ArrayList<>(List.of("perf", tool, "--link", "memory",
            "--timeout", "20000"));
        args.addAll(List.of(options.trim().split("\\s+")));
        return Cli.run(args.toArray(new String[0]));
    }

    /** [client output, server output (the [server] lines without their prefix)]. */
    private static String[] splitSides(final String out)
    {
        final StringBuilder client = new StringBuilder();
        final StringBuilder server = new StringBuilder();
        for (final String line : out.split("\n"))
        {
            if (line.startsWith("[server] "))
            {
                server.append(line.substring("[server] ".length())).append('\n');
            }
            else
            {
                client.append(line).append('\n');
            }
        }
        return new String[] {client.toString(), server.toString()};
    }

    private static long iterations(final String options)
    {
        final Matcher n = Pattern.compile("-n (\\d+)").matcher(options);
        return n.find() ? Long.parseLong(n.group(1)) : 1000;
    }
}
