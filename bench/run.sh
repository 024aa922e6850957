#!/usr/bin/env bash
# The benchmarks' one entry point; bench/README.md says what each set measures and gives the current figures.
#
#   bench/run.sh wire   [JMH arguments...]     frame build and parse+ICRC (JMH RoceFrameBenchmark, GC and CPU-time
#                                              profilers) beside raw CRC32: JSON, then a table
#   bench/run.sh wire --table FILE.json        only print the table of an earlier wire run
#   bench/run.sh engine [--measure-ms N] [--warmup-ms N] [--repeat N] [--shared-thread]
#                       [--only bandwidth|rate|latency]
#                                              WRITE 64 KiB, WRITE 64 B, SEND/RECV 64 B over the memory fabric,
#                                              beside memcpy, CRC32 and the ring hand-off
#   bench/run.sh links  [--name=value ...]     udp and pcap links against raw UDP / raw pcap in network namespaces
#                                              (lo, veth over IPv4, veth6 over IPv6; needs root, iproute2,
#                                              libpcap); --help lists the options. Round trips are judged against
#                                              busy-polled raw UDP (the event-loop one is shown beside it)
#   bench/run.sh aeron  [--media ipc,udp] [--threading dedicated|shared-network|shared|invoker]
#                       [--measure-ms N] [--warmup-ms N] [--repeat N]
#                                              roce4j beside Aeron (embedded driver, default shared-network, data
#                                              path busy-spinning; invoker: no driver thread, the pinging or
#                                              publishing side runs it) in one run: 64 B round trip p50/p99 and
#                                              4 KiB stream, memory fabric vs Aeron IPC and udp link vs Aeron UDP
#                                              on loopback, each as a ratio roce4j/Aeron (no root needed)
#   bench/run.sh suite  [--quick | --smoke | --full] [--links memory,udp,tunnel] [--shared-thread] [--out DIR]
#                                              the whole matrix; writes RESULTS.md, results.json and plots under
#                                              bench/results/suite-<UTC time>/ (or DIR)
#
# Environment:
#   SKIP_BUILD=1     reuse bench/target/benchmarks.jar instead of building it first
#                    (./mvnw -o -q -pl bench -am package -DskipTests)
#   PRIORITY=-15     run the JVM in a session, and so a scheduler autogroup, of its own with that nice value for the
#                    group and the process: on a shared machine plain `nice` only ranks processes within one
#                    autogroup, so other sessions' builds and VMs would still take the cores in the middle of a
#                    measurement. Needs root for negative values.
#   JAVA_OPTS        extra JVM flags, e.g. -XX:StartFlightRecording=filename=engine.jfr,settings=profile
#   WIRE_BENCH_JSON  wire: where JMH writes its JSON (default bench/results/wire-<UTC time>.json)
#   LINK_BENCH_OUT   links: the log (default bench/results/links-<UTC time>.txt); the table goes next to it (.md)
#
# Every set prints /proc/loadavg before and after its figures: compare runs by their ratios to the same run's
# baselines, not by absolute figures.
set -euo pipefail
cd "$(dirname "$0")/.."

jar=bench/target/benchmarks.jar
exports=(--add-exports java.base/jdk.internal.misc=ALL-UNNAMED)

usage()
{
    sed -n '2,/^set -euo pipefail$/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
}

# Run a command, in a session of its own at nice $PRIORITY when PRIORITY is set.
run_prioritised()
{
    if [ -n "${PRIORITY:-}" ]
    then
        # setsid gives the JVM a session, and so an autogroup, of its own; the shell in it sets the group's and its
        # own nice value, then becomes the JVM.
        # shellcheck disable=SC2016
        setsid -w bash -c 'echo "$0" > /proc/self/autogroup && renice -n "$0" -p $$ > /dev/null && exec "$@"' \
            "${PRIORITY}" "$@"
    else
        "$@"
    fi
}

build()
{
    if [ "${SKIP_BUILD:-0}" != "1" ]
    then
        ./mvnw -o -q -pl bench -am package -DskipTests
    elif [ ! -f "$jar" ]
    then
        echo "SKIP_BUILD=1 but $jar is missing: build it first (./mvnw -o -q -pl bench -am package -DskipTests)" >&2
        exit 2
    fi
}

# The wire set's table: bytes/s, ratios to raw CRC32 and B/op from JMH's JSON.
print_wire_table()
{
    python3 - "$1" <<'PY'
import json, statistics, sys

# Frame length, Ethernet header to end of ICRC, as RoceFrameBenchmark.expectedFrameLength computes it:
# Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 (+ RETH 16 for RDMA WRITE) + payload padded to 4 + ICRC 4.
def frame_bytes(opcode, payload):
    return 14 + 20 + 8 + 12 + (16 if "RDMA_WRITE" in opcode else 0) + ((payload + 3) & ~3) + 4

rows = {}
for r in json.load(open(sys.argv[1])):
    p = r["params"]
    m = r["primaryMetric"]
    iterations = [x for fork in m["rawData"] for x in fork]
    secondary = r.get("secondaryMetrics", {})
    rows.setdefault((p["bufferKind"], p["opcode"], int(p["payloadBytes"])), {})[r["benchmark"].rsplit(".", 1)[1]] = {
        "ops": m["score"], "cv": statistics.pstdev(iterations) / statistics.mean(iterations),
        "bop": secondary.get("gc.alloc.rate.norm", {}).get("score", float("nan")),
        "cpu": secondary.get("cpu.time.norm", {}).get("score", float("nan"))}

nan = float("nan")
print("Mops/s and GB/s are wall-clock JMH scores; GB/s = ops/s x frame bytes (Ethernet..ICRC), for crc32 too;")
print("crc32 IP..pad counts its own bytes (frame - 18). ratio = parse+verify / crc32 over the same frame bytes:")
print("'wall' from ops/s, 'cpu' from CPU ns/op (CpuTimeProfiler; steadier on a shared machine).")
print("cv = stdev/mean of the 1 s iterations of parse+verify. B/op = gc.alloc.rate.norm of build / parse+verify.")
fmt = "%-7s %-18s %5s %5s | %6s %6s | %6s %6s %7s | %7s | %6s %6s | %5s %5s | %4s | %5s %5s"
print(fmt % ("buffer", "opcode", "pay", "frame", "build", "build", "p+v", "p+v", "p+v cpu", "parse", "crc32",
             "crc IP", "ratio", "ratio", "cv", "B/op", "B/op"))
print(fmt % ("", "", "B", "B", "Mops/s", "GB/s", "Mops/s", "GB/s", "ns/op", "Mops/s", "GB/s", "GB/s", "wall",
             "cpu", "p+v", "build", "p+v"))
for key in sorted(rows):
    row = rows[key]
    get = lambda name, field: row.get(name, {}).get(field, nan)
    frame = frame_bytes(key[1], key[2])
    print(fmt % (key[0], key[1], key[2], frame,
                 "%.2f" % (get("build", "ops") / 1e6), "%.2f" % (get("build", "ops") * frame / 1e9),
                 "%.2f" % (get("parseVerify", "ops") / 1e6), "%.2f" % (get("parseVerify", "ops") * frame / 1e9),
                 "%.0f" % get("parseVerify", "cpu"),
                 "%.2f" % (get("parseNoVerify", "ops") / 1e6),
                 "%.2f" % (get("crc32Frame", "ops") * frame / 1e9),
                 "%.2f" % (get("crc32IpToPad", "ops") * (frame - 18) / 1e9),
                 "%.2f" % (get("parseVerify", "ops") / get("crc32Frame", "ops")),
                 "%.2f" % (get("crc32Frame", "cpu") / get("parseVerify", "cpu")),
                 "%.0f%%" % (100 * get("parseVerify", "cv")),
                 "%.2f" % get("build", "bop"), "%.2f" % get("parseVerify", "bop")))
PY
}

set_name="${1:-}"
[ $# -gt 0 ] && shift
case "$set_name" in
    wire|engine|links|aeron|suite)
        ;;
    -h|--help)
        usage
        exit 0
        ;;
    *)
        usage >&2
        exit 2
        ;;
esac

if [ "wire" = "$set_name" ] && [ "${1:-}" = "--table" ]
then
    print_wire_table "$2"
    exit 0
fi

build
mkdir -p bench/results
stamp="$(date -u +%Y%m%dT%H%M%SZ)"
# shellcheck disable=SC2206
java_opts=(${JAVA_OPTS:-})

case "$set_name" in
    wire)
        json="${WIRE_BENCH_JSON:-bench/results/wire-$stamp.json}"
        echo "load before: $(cat /proc/loadavg)"
        run_prioritised java "${java_opts[@]}" -jar "$jar" 'org\.roce4j\.bench\.wire\.RoceFrameBenchmark\.' \
            -prof gc -prof org.roce4j.bench.CpuTimeProfiler -rf json -rff "$json" "$@"
        echo "load after: $(cat /proc/loadavg)"
        echo "JSON: $json"
        print_wire_table "$json"
        ;;
    engine)
        echo "load before: $(cat /proc/loadavg)"
        run_prioritised java "${exports[@]}" -Xms1g -Xmx1g -XX:+UseParallelGC "${java_opts[@]}" -cp "$jar" \
            org.roce4j.bench.engine.EngineBench "$@"
        echo "load after: $(cat /proc/loadavg)"
        ;;
    aeron)
        echo "load before: $(cat /proc/loadavg)"
        run_prioritised java "${exports[@]}" -Xms1g -Xmx1g -XX:+UseParallelGC "${java_opts[@]}" -cp "$jar" \
            org.roce4j.bench.engine.AeronBench "$@"
        echo "load after: $(cat /proc/loadavg)"
        ;;
    links)
        out="${LINK_BENCH_OUT:-bench/results/links-$stamp.txt}"
        echo "load before: $(cat /proc/loadavg)" | tee "$out"
        run_prioritised java "${exports[@]}" -Xms512m -Xmx512m "${java_opts[@]}" -cp "$jar" \
            org.roce4j.bench.link.LinkBench --summary="${out%.txt}.md" "$@" 2>&1 | tee -a "$out"
        echo "load after: $(cat /proc/loadavg)" | tee -a "$out"
        echo "log: $out  table: ${out%.txt}.md"
        ;;
    suite)
        echo "load before: $(cat /proc/loadavg)" >&2
        run_prioritised java "${exports[@]}" -Xms1g -Xmx2g -XX:+UseParallelGC "${java_opts[@]}" \
            "-Droce4j.bench.priority=${PRIORITY:-}" -cp "$jar" org.roce4j.bench.suite.SuiteMain "$@"
        echo "load after: $(cat /proc/loadavg)" >&2
        ;;
esac
