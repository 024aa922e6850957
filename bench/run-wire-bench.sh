#!/usr/bin/env bash
# Build bench/target/benchmarks.jar and run the roce-wire frame benchmarks (RoceFrameBenchmark) with the GC and
# CPU-time profilers, write JMH's JSON under bench/results/, then print a table of bytes/s, ratios to raw CRC32
# and B/op.
#
# Usage (from anywhere):
#   bench/run-wire-bench.sh [extra JMH arguments...]     e.g.  -p bufferKind=DIRECT -f 3
#   bench/run-wire-bench.sh --table FILE.json            only print the table of an earlier run
# Environment:
#   WIRE_BENCH_JSON  where to write the JSON (default bench/results/wire-<UTC timestamp>.json)
#   SKIP_BUILD=1     reuse an existing bench/target/benchmarks.jar
set -euo pipefail

cd "$(dirname "$0")/.."

print_table()
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

if [ "${1:-}" = "--table" ]
then
    print_table "$2"
    exit 0
fi

mkdir -p bench/results
json="${WIRE_BENCH_JSON:-bench/results/wire-$(date -u +%Y%m%dT%H%M%SZ).json}"

if [ "${SKIP_BUILD:-0}" != "1" ]
then
    ./mvnw -q -pl bench -am package -DskipTests
fi

echo "load before: $(uptime)"
java -jar bench/target/benchmarks.jar 'org\.roce4j\.bench\.wire\.RoceFrameBenchmark\.' \
    -prof gc -prof org.roce4j.bench.CpuTimeProfiler -rf json -rff "$json" "$@"
echo "load after: $(uptime)"
echo "JSON: $json"
print_table "$json"
