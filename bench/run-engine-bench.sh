#!/usr/bin/env bash
# The engine's headline benchmarks (bench/ENGINE.md): RC WRITE 64 KiB throughput, 64 B WRITE message rate and
# SEND/RECV ping-pong latency over the memory fabric at MTU 4096, each beside its same-run baseline.
#
#   bench/run-engine-bench.sh [--measure-ms N] [--warmup-ms N] [--repeat N] [--shared-thread]
#                             [--only bandwidth|rate|latency]
# Environment:
#   SKIP_BUILD=1   reuse bench/target/benchmarks.jar
#   PRIORITY=-15   run the JVM in a scheduler autogroup of its own with that nice value (as bench/run-link-bench.sh;
#                  needs root for negative values)
#   JAVA_OPTS      extra JVM flags, e.g. -XX:StartFlightRecording=filename=engine.jfr,settings=profile
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${SKIP_BUILD:-0}" != "1" ]
then
    ./mvnw -o -q -pl bench -am package -DskipTests
fi
java_command=(java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -Xms1g -Xmx1g -XX:+UseParallelGC)
# shellcheck disable=SC2206
java_command+=(${JAVA_OPTS:-})
java_command+=(-cp bench/target/benchmarks.jar org.roce4j.bench.engine.EngineBench "$@")
echo "load before: $(cat /proc/loadavg)"
if [ -n "${PRIORITY:-}" ]
then
    # shellcheck disable=SC2016
    setsid -w bash -c 'echo "$0" > /proc/self/autogroup && renice -n "$0" -p $$ > /dev/null && exec "$@"' \
        "${PRIORITY}" "${java_command[@]}"
else
    "${java_command[@]}"
fi
echo "load after: $(cat /proc/loadavg)"
