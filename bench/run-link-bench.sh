#!/usr/bin/env bash
# Link benchmarks (bench/LINKS.md): RC WRITE throughput and SEND/RECV latency over the udp link (loopback in a
# namespace, veth pair between two namespaces) and the pcap link (veth), each beside raw UDP / raw Pcap4J measured
# in the same run. Needs root (namespaces, veth, raw capture), iproute2 and libpcap.
#
# Usage (from anywhere):
#   bench/run-link-bench.sh [--name=value ...]     e.g.  --media=veth --links=udp --rounds=3
#   bench/run-link-bench.sh --help                 list the options and their defaults
# Environment:
#   SKIP_BUILD=1     reuse an existing bench/target/benchmarks.jar
#   LINK_BENCH_OUT   where to write the log (default bench/results/links-<UTC timestamp>.txt); the markdown
#                    table goes next to it (.md)
#   JAVA_OPTS        extra JVM flags (e.g. -XX:+FlightRecorder -XX:StartFlightRecording=filename=links.jfr)
set -euo pipefail

cd "$(dirname "$0")/.."

if [ "${SKIP_BUILD:-0}" != "1" ]
then
    ./mvnw -o -q -pl bench -am package -DskipTests
fi

mkdir -p bench/results
out="${LINK_BENCH_OUT:-bench/results/links-$(date -u +%Y%m%dT%H%M%SZ).txt}"
echo "load before: $(cat /proc/loadavg)" | tee "$out"
# shellcheck disable=SC2086
java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -Xms512m -Xmx512m ${JAVA_OPTS:-} \
    -cp bench/target/benchmarks.jar org.roce4j.bench.link.LinkBench --summary="${out%.txt}.md" "$@" 2>&1 | tee -a "$out"
echo "load after: $(cat /proc/loadavg)" | tee -a "$out"
echo "log: $out  table: ${out%.txt}.md"
