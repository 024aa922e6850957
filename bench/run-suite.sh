#!/usr/bin/env bash
# Runs the roce4j bench suite and writes bench/RESULTS.md, bench/results/results.json and bench/results/*.png.
#
#   bench/run-suite.sh [--quick | --smoke | --full] [--links memory,udp,tunnel] [--shared-thread] [--out DIR]
#
# The default (--full) takes about 20-30 minutes on 2 idle cores; --quick a few minutes; --smoke seconds.
# Builds bench/target/benchmarks.jar first when it is missing (or when REBUILD=1), with
#   ./mvnw -o -q -pl bench -am package -DskipTests
# Run it on a quiet machine: the figures are wall-clock rates of busy-polling threads.
# Environment:
#   PRIORITY=-15   on a shared machine: run the JVM in its own session (scheduler autogroup) with that nice value
#                  for the group and the process, as bench/run-link-bench.sh does (plain `nice` only ranks processes
#                  within one autogroup, so other sessions' builds and VMs would still take the cores in the middle
#                  of a measurement). Needs root for negative values. The report's command line shows it.
#   JAVA_OPTS      extra JVM flags (e.g. a JFR recording).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
jar="bench/target/benchmarks.jar"
if [[ ! -f "$jar" || "${REBUILD:-0}" == "1" ]]; then
    echo "building $jar ..." >&2
    ./mvnw -o -q -pl bench -am package -DskipTests
fi
java_command=(java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -Xms1g -Xmx2g -XX:+UseParallelGC)
# shellcheck disable=SC2206
java_command+=(${JAVA_OPTS:-})
java_command+=("-Droce4j.bench.priority=${PRIORITY:-}" -cp "$jar" org.roce4j.bench.suite.SuiteMain "$@")
echo "load before: $(cat /proc/loadavg)" >&2
if [[ -n "${PRIORITY:-}" ]]; then
    # setsid gives the JVM a session, and so a scheduler autogroup, of its own; the shell in it sets the group's and
    # its own nice value, then becomes the JVM.
    # shellcheck disable=SC2016
    setsid -w bash -c 'echo "$0" > /proc/self/autogroup && renice -n "$0" -p $$ > /dev/null && exec "$@"' \
        "${PRIORITY}" "${java_command[@]}"
else
    "${java_command[@]}"
fi
echo "load after: $(cat /proc/loadavg)" >&2
