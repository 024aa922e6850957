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
#   JAVA_OPTS        extra JVM flags (e.g. -XX:StartFlightRecording=filename=links.jfr,settings=profile)
#   PRIORITY=-15     on a shared machine: run the JVM in its own session (scheduler autogroup) with that nice value
#                    for the group and the process, so other sessions' processes cannot take the CPUs in the middle
#                    of a measurement (plain `nice` only ranks processes within one autogroup). Raw and link runs
#                    get the same treatment. Needs root for negative values.
set -euo pipefail

cd "$(dirname "$0")/.."

if [ "${SKIP_BUILD:-0}" != "1" ]
then
    ./mvnw -o -q -pl bench -am package -DskipTests
fi

mkdir -p bench/results
out="${LINK_BENCH_OUT:-bench/results/links-$(date -u +%Y%m%dT%H%M%SZ).txt}"
echo "load before: $(cat /proc/loadavg)" | tee "$out"
java_command=(java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -Xms512m -Xmx512m)
# shellcheck disable=SC2206
java_command+=(${JAVA_OPTS:-})
java_command+=(-cp bench/target/benchmarks.jar org.roce4j.bench.link.LinkBench --summary="${out%.txt}.md" "$@")

if [ -n "${PRIORITY:-}" ]
then
    # setsid gives the JVM a session, and so a scheduler autogroup, of its own; the shell in it sets the group's and
    # its own nice value, then becomes the JVM.
    # shellcheck disable=SC2016
    setsid -w bash -c 'echo "$0" > /proc/self/autogroup && renice -n "$0" -p $$ > /dev/null && exec "$@"' \
        "${PRIORITY}" "${java_command[@]}" 2>&1 | tee -a "$out"
else
    "${java_command[@]}" 2>&1 | tee -a "$out"
fi
echo "load after: $(cat /proc/loadavg)" | tee -a "$out"
echo "log: $out  table: ${out%.txt}.md"
