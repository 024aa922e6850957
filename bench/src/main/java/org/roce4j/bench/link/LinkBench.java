package org.roce4j.bench.link;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

import org.HdrHistogram.Histogram;
import org.roce4j.bench.Measurement;
import org.roce4j.bench.Window;
import org.roce4j.bench.baseline.RawPcap;
import org.roce4j.bench.baseline.RawUdpBusyPoll;
import org.roce4j.bench.baseline.RawUdpEventLoop;
import org.roce4j.bench.engine.LatencyRun;
import org.roce4j.bench.engine.Op;
import org.roce4j.bench.engine.RcPair;
import org.roce4j.bench.engine.ThroughputRun;
import org.roce4j.transport.link.Link;
import org.roce4j.transport.link.udp.UdpTransport;

/**
 * Link benchmarks: RC RDMA WRITE throughput and RC SEND/RECV round-trip latency between two roce4j devices over
 * the udp link (loopback inside a namespace, a veth pair between two namespaces over IPv4, and the same pair over
 * IPv6: {@code veth6}) and over the pcap link (the veth pairs), each beside the raw medium measured in the same run
 * with the same datagram or frame sizes: for udp WRITE, raw Netty datagram channels of the same native transport
 * ({@link RawUdpEventLoop}); for the udp round trip, JDK datagram channels busy-polled on a thread each
 * ({@link RawUdpBusyPoll}), which is how the link runs its socket (non-blocking, polled by the engine's busy
 * thread), with the event-loop round trip beside it for reference (it wakes a Netty event loop per datagram, so it
 * is no limit for a busy-polling link); raw Pcap4J
 * sendPacket/capture for pcap ({@link RawPcap}). Every raw/link pair runs back to back, alternating, so both see
 * the same machine load; the one-minute load average is printed with each figure.
 *
 * <p>The link side is the engine benchmarks' harness over the namespace's links: an {@link RcPair} with one QP,
 * {@link ThroughputRun} keeping {@code --depth} WRITEs in flight (one repost per completion, as perftest's
 * ib_write_bw), {@link LatencyRun}'s SEND ping-pong (ibv_rc_pingpong's flow).
 *
 * <p>Goals: WRITE throughput at least 0.95 of raw from 64 B to 4 KiB (issue 15; issue 6 asked 0.90 and 1 GB/s of
 * payload at 4 KiB, an absolute figure that moves with the machine); round-trip latency at most 1.2 times raw
 * (issue 6).
 *
 * <p>Run as root (namespaces, veth, raw capture): {@code bench/run.sh links [options]}; {@code --help} lists
 * the options.
 */
public final class LinkBench
{
    /** BTH + RETH + ICRC around an RDMA WRITE_ONLY payload. */
    private static final int WRITE_OVERHEAD = 12 + 16 + 4;
    /** BTH + ICRC around a SEND_ONLY payload. */
    private static final int SEND_OVERHEAD = 12 + 4;
    /** Throughput goal relative to raw (issue 15). */
    private static final double GOAL_THROUGHPUT_RATIO = 0.95;
    /** Latency goal relative to raw. */
    private static final double GOAL_LATENCY_RATIO = 1.2;
    /** Receives each side keeps posted for the SEND ping-pong. */
    private static final int LATENCY_RECEIVES = 64;
    /** Smallest registered buffer per side (the harness needs a page at least). */
    private static final int MIN_MEMORY_BYTES = 64 * 1024;
    /** Raw baseline: Netty datagram channels of the link's transport, event-loop reads ({@link RawUdpEventLoop}). */
    private static final String EVENT_LOOP = "netty event loop";
    /** Raw baseline: JDK datagram channels, each busy-polled on its own thread ({@link RawUdpBusyPoll}). */
    private static final String BUSY_POLL = "busy-polled jdk";
    /** Raw baseline: Pcap4J handles ({@link RawPcap}). */
    private static final String PCAP4J = "pcap4j";
    /** Ring size of memory fabric ports: none here, the links are udp and pcap. */
    private static final int NO_MEMORY_RING = 0;

    private final Map<String, String> options;
    private final Window window;
    private final int rounds;
    private final int depth;
    private final PrintStream out = System.out;
    private final List<String> rows = new ArrayList<>();

    private LinkBench(final Map<String, String> options)
    {
        this.options = options;
        this.window = new Window(Double.parseDouble(options.get("warmup")), Double.parseDouble(options.get("seconds")));
        this.rounds = Integer.parseInt(options.get("rounds"));
        this.depth = Integer.parseInt(options.get("depth"));
    }

    /**
     * @param args {@code --name=value} options; {@code --help} lists them.
     * @throws IOException when the summary cannot be written.
     */
    public static void main(final String[] args) throws IOException
    {
        final Map<String, String> options = new LinkedHashMap<>();
        options.put("media", "lo,veth,veth6");
        options.put("links", "udp,pcap");
        options.put("transports", "epoll");
        options.put("tests", "write,latency");
        options.put("write-sizes", "64,1024,4096");
        options.put("latency-sizes", "64,4096");
        options.put("warmup", "1");
        options.put("seconds", "3");
        options.put("rounds", "1");
        options.put("depth", "256");
        options.put("udp-options", "");
        options.put("summary", "");
        options.put("verbose", "false");
        options.put("raw", "true");
        for (final String arg : args)
        {
            if ("--help".equals(arg) || "-h".equals(arg))
            {
                System.out.println("options (defaults):");
                options.forEach((k, v) -> System.out.println("  --" + k + "=" + v));
                System.out.println("udp-options: extra udp link options, e.g. send=eventloop (';' separates several)");
                System.out.println("media: lo (a namespace's loopback), veth (a veth pair, IPv4), veth6 (the pair " +
                    "over IPv6, udp:[fd00:97::1] and pcap ip=fd00:97::11)");
                System.out.println("summary: file to write the markdown table to");
                return;
            }
            final int equals = arg.indexOf('=');
            if (!arg.startsWith("--") || equals < 0 || !options.containsKey(arg.substring(2, equals)))
            {
                throw new IllegalArgumentException("unknown argument '" + arg + "'; --help lists the options");
            }
            options.put(arg.substring(2, equals), arg.substring(equals + 1));
        }
        final LinkBench bench = new LinkBench(options);
        bench.run();
        final String summary = options.get("summary");
        if (!summary.isEmpty())
        {
            Files.write(Path.of(summary), bench.rows, StandardCharsets.UTF_8);
        }
        System.exit(0);
    }

    private void run()
    {
        out.printf(Locale.ROOT, "link bench: %s; java %s; %d cpus; load %s%n", options,
            Runtime.version(), Runtime.getRuntime().availableProcessors(), loadText());
        rows.add("| medium | link | transport | test | size B | link | raw baseline | raw | link/raw | " +
            "per-round link/raw | goal | met | load 1m |");
        rows.add("|---|---|---|---|---:|---:|---|---:|---:|---|---|---|---:|");
        final List<String> links = list("links");
        for (final String medium : list("media"))
        {
            try (Endpoints endpoints = Endpoints.create(medium))
            {
                if (links.contains("udp"))
                {
                    for (final String transportName : list("transports"))
                    {
                        final UdpTransport transport = UdpTransport.fromSpecName(transportName);
                        if (!transport.isAvailable())
                        {
                            out.println("skip " + transportName + ": " + transport.unavailabilityCause());
                            continue;
                        }
                        runUdp(endpoints, transport);
                    }
                }
                if (links.contains("pcap") && endpoints.hasEthernet())
                {
                    runPcap(endpoints);
                }
            }
        }
        out.println();
        rows.forEach(out::println);
    }

    private void runUdp(final Endpoints endpoints, final UdpTransport transport)
    {
        final String extra = options.get("udp-options").replace(';', ',');
        final String linkOptions = "transport=" + transport.specName() + (extra.isEmpty() ? "" : "," + extra);
        final String label = transport.specName() + (extra.isEmpty() ? "" : " " + extra);
        if (list("tests").contains("write"))
        {
            for (final int size : sizes("write-sizes"))
            {
                compare(endpoints.medium(), "udp", label, "write", size, List.of(new Baseline(EVENT_LOOP,
                    () -> RawUdpEventLoop.throughput(transport, endpoints::openChannel, endpoints.addressA(),
                        endpoints.addressB(), WRITE_OVERHEAD + pad4(size), depth, window))),
                    () -> pair(endpoints.udpLink(0, linkOptions), () -> endpoints.udpLink(1, linkOptions), size,
                        true));
            }
        }
        if (list("tests").contains("latency"))
        {
            for (final int size : sizes("latency-sizes"))
            {
                final int datagramBytes = SEND_OVERHEAD + pad4(size);
                compare(endpoints.medium(), "udp", label, "latency", size, List.of(
                    new Baseline(BUSY_POLL, () -> busyPollLatency(endpoints, datagramBytes)),
                    new Baseline(EVENT_LOOP, () -> RawUdpEventLoop.latency(transport, endpoints::openChannel,
                        endpoints.addressA(), endpoints.addressB(), datagramBytes, window))),
                    () -> pair(endpoints.udpLink(0, linkOptions), () -> endpoints.udpLink(1, linkOptions), size,
                        false));
            }
        }
    }

    private void runPcap(final Endpoints endpoints)
    {
        final RawPcap.Ends ends = new RawPcap.Ends(endpoints.iface(0), endpoints.iface(1), endpoints.mac(0),
            endpoints.mac(1), endpoints.pcapAddress(0), endpoints.pcapAddress(1));
        if (list("tests").contains("write"))
        {
            for (final int size : sizes("write-sizes"))
            {
                compare(endpoints.medium(), "pcap", "pcap4j", "write", size, List.of(new Baseline(PCAP4J,
                    () -> RawPcap.throughput(endpoints::openHandle, ends, WRITE_OVERHEAD + pad4(size), depth,
                        window))),
                    () -> pair(endpoints.pcapLink(0), () -> endpoints.pcapLink(1), size, true));
            }
        }
        if (list("tests").contains("latency"))
        {
            for (final int size : sizes("latency-sizes"))
            {
                compare(endpoints.medium(), "pcap", "pcap4j", "latency", size, List.of(new Baseline(PCAP4J,
                    () -> RawPcap.latency(endpoints::openHandle, ends, SEND_OVERHEAD + pad4(size), window))),
                    () -> pair(endpoints.pcapLink(0), () -> endpoints.pcapLink(1), size, false));
            }
        }
    }

    private Measurement pair(final Link linkA, final Supplier<Link> linkB, final int size, final boolean write)
    {
        final Link b;
        try
        {
            b = linkB.get();
        }
        catch (final RuntimeException ex)
        {
            linkA.close();
            throw ex;
        }
        final RcPair.Options sizes = new RcPair.Options(1, depth, LATENCY_RECEIVES, depth + LATENCY_RECEIVES,
            Math.max(4 * size, MIN_MEMORY_BYTES), NO_MEMORY_RING, false);
        try (RcPair pair = RcPair.open(linkA, b, sizes))
        {
            final long warmupNs = (long)(window.warmupSeconds() * 1e9);
            final long measureNs = (long)(window.measureSeconds() * 1e9);
            final Measurement measurement;
            if (write)
            {
                final ThroughputRun.Result result = new ThroughputRun(pair).run(Op.WRITE, size, 1, depth, warmupNs,
                    measureNs);
                measurement = new Measurement(result.messagesPerSecond(), Window.load1(), null);
            }
            else
            {
                final LatencyRun.Result result = new LatencyRun(pair).run(Op.SEND, size, warmupNs, measureNs);
                measurement = new Measurement(result.samples() / window.measureSeconds(), Window.load1(),
                    result.histogram());
            }
            out.println("    link counters: " + pair.anomalies());
            if (Boolean.parseBoolean(options.get("verbose")))
            {
                out.println(pair.describeCounters());
            }
            return measurement;
        }
    }

    /**
     * A raw baseline of a comparison.
     *
     * @param name what the raw side is, as the table's baseline column shows it.
     * @param run  measures it once.
     */
    private record Baseline(String name, Supplier<Measurement> run)
    {
    }

    private Measurement busyPollLatency(final Endpoints endpoints, final int datagramBytes)
    {
        try (RawUdpBusyPoll raw = new RawUdpBusyPoll(endpoints::openDatagramChannel, endpoints.addressA(),
            endpoints.addressB(), datagramBytes))
        {
            final Histogram rtt = raw.roundTrips(datagramBytes, (long)(window.warmupSeconds() * 1e9),
                (long)(window.measureSeconds() * 1e9));
            return new Measurement(rtt.getTotalCount() / window.measureSeconds(), Window.load1(), rtt);
        }
    }

    /**
     * Measure the raw baselines and the link {@code --rounds} times, alternating, and add a table row per baseline
     * with the medians: the first baseline is the one the goal is judged against, the others are shown for
     * reference.
     */
    private void compare(final String medium, final String link, final String transport, final String test,
        final int size, final List<Baseline> baselines, final Supplier<Measurement> linked)
    {
        final List<List<Measurement>> raws = new ArrayList<>();
        baselines.forEach((baseline) -> raws.add(new ArrayList<>()));
        final List<Measurement> links = new ArrayList<>();
        final boolean write = "write".equals(test);
        for (int round = 0; round < rounds; round++)
        {
            for (int i = 0; i < baselines.size(); i++)
            {
                final Measurement r = Boolean.parseBoolean(options.get("raw")) ? baselines.get(i).run().get() :
                    new Measurement(Double.NaN, Double.NaN, null);
                raws.get(i).add(r);
                print(medium, link + " raw", baselines.get(i).name(), test, size, r, write);
            }
            final Measurement l = linked.get();
            links.add(l);
            print(medium, link, transport, test, size, l, write);
        }
        final Measurement l = median(links, write);
        final double load = l.load1();
        for (int i = 0; i < baselines.size(); i++)
        {
            final Measurement r = median(raws.get(i), write);
            final boolean judged = 0 == i;
            final String baseline = baselines.get(i).name();
            final String spread = spread(raws.get(i), links, write);
            if (write)
            {
                final double ratio = l.opsPerSecond() / r.opsPerSecond();
                final boolean met = ratio >= GOAL_THROUGHPUT_RATIO;
                rows.add(String.format(Locale.ROOT,
                    "| %s | %s | %s | RC WRITE | %d | %s | %s | %s | %.2f | %s | %s | %s | %.1f |", medium, link,
                    transport, size, rate(l, size), baseline, rate(r, size), ratio, spread,
                    judged ? String.format(Locale.ROOT, ">= %.2f", GOAL_THROUGHPUT_RATIO) : "-",
                    judged ? (met ? "yes" : "**no**") : "-", load));
            }
            else
            {
                final double ratio = l.rttUs(50) / r.rttUs(50);
                final boolean met = ratio <= GOAL_LATENCY_RATIO;
                rows.add(String.format(Locale.ROOT,
                    "| %s | %s | %s | RC SEND/RECV RTT | %d | %s | %s | %s | %.2f | %s | %s | %s | %.1f |", medium,
                    link, transport, size, rtt(l), baseline, rtt(r), ratio, spread,
                    judged ? String.format(Locale.ROOT, "<= %.1f", GOAL_LATENCY_RATIO) : "-",
                    judged ? (met ? "yes" : "**no**") : "-", load));
            }
        }
    }

    /**
     * The link/raw ratio of each round (link and raw measured back to back), smallest to largest: the spread the
     * median hides.
     */
    private static String spread(final List<Measurement> raws, final List<Measurement> links, final boolean write)
    {
        final double[] ratios = new double[links.size()];
        for (int i = 0; i < ratios.length; i++)
        {
            ratios[i] = write ? links.get(i).opsPerSecond() / raws.get(i).opsPerSecond() :
                links.get(i).rttUs(50) / raws.get(i).rttUs(50);
        }
        Arrays.sort(ratios);
        final StringBuilder text = new StringBuilder();
        for (final double ratio : ratios)
        {
            text.append(0 == text.length() ? "" : " ").append(String.format(Locale.ROOT, "%.2f", ratio));
        }
        return text.toString();
    }

    private void print(final String medium, final String link, final String transport, final String test,
        final int size, final Measurement m, final boolean write)
    {
        if (write)
        {
            out.printf(Locale.ROOT, "%-5s %-8s %-12s %-7s %5d B: %,12.0f frames/s %8.3f GB/s   load %.2f%n",
                medium, link, transport, test, size, m.opsPerSecond(), m.opsPerSecond() * size / 1e9, m.load1());
        }
        else
        {
            out.printf(Locale.ROOT, "%-5s %-8s %-12s %-7s %5d B: rtt p50 %7.2f us  mean %7.2f us  p99 %7.2f us   " +
                "load %.2f%n", medium, link, transport, test, size, m.rttUs(50), m.meanRttUs(), m.rttUs(99), m.load1());
        }
        out.flush();
    }

    private static String rate(final Measurement m, final int size)
    {
        return String.format(Locale.ROOT, "%.3f GB/s (%.0f k/s)", m.opsPerSecond() * size / 1e9,
            m.opsPerSecond() / 1e3);
    }

    private static String rtt(final Measurement m)
    {
        return String.format(Locale.ROOT, "%.1f us (p99 %.1f)", m.rttUs(50), m.rttUs(99));
    }

    private static Measurement median(final List<Measurement> list, final boolean write)
    {
        final List<Measurement> sorted = new ArrayList<>(list);
        sorted.sort(Comparator.comparingDouble(m -> write ? m.opsPerSecond() : m.rttUs(50)));
        return sorted.get(sorted.size() / 2);
    }

    private static int pad4(final int size)
    {
        return (size + 3) & ~3;
    }

    private List<String> list(final String name)
    {
        final String value = options.get(name).trim();
        return value.isEmpty() ? List.of() : Arrays.asList(value.split(","));
    }

    private int[] sizes(final String name)
    {
        return list(name).stream().mapToInt(Integer::parseInt).toArray();
    }

    private static String loadText()
    {
        try
        {
            return Files.readString(Path.of("/proc/loadavg"), StandardCharsets.US_ASCII).trim();
        }
        catch (final IOException ex)
        {
            return "?";
        }
    }
}
