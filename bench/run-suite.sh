#!/usr/bin/env bash
# Runs the roce4j bench suite and writes bench/RESULTS.md, bench/results/results.json and bench/results/*.png.
#
#   bench/run-suite.sh [--quick | --smoke | --full] [--links memory,udp,tunnel] [--shared-thread] [--out DIR]
#
# The default (--full) takes about 20-30 minutes on 2 idle cores; --quick a few minutes; --smoke seconds.
# Builds bench/target/benchmarks.jar first when it is missing (or when REBUILD=1), with
#   ./mvnw -o -q -pl bench -am package -DskipTests
# Run it on a quiet machine: the figures are wall-clock rates of busy-polling threads.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
jar="bench/target/benchmarks.jar"
if [[ ! -f "$jar" || "${REBUILD:-0}" == "1" ]]; then
    echo "building $jar ..." >&2
    ./mvnw -o -q -pl bench -am package -DskipTests
fi
exec java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -Xms1g -Xmx2g -XX:+UseParallelGC \
    -cp "$jar" org.roce4j.bench.suite.SuiteMain "$@"
