#!/usr/bin/env bash
# kv-cache-netns.sh: the KV-cache hand-off example between two network namespaces joined by a veth pair, each side on
# roce4j's udp link (the kernel's UDP stack), as two hosts would run it. Needs root (ip netns) and a JDK 17+.
#
#   examples/kv-cache-netns.sh [--pages 64] [--page-size 65536] [--rounds 20]
#
# Builds examples/target/examples.jar when missing. The namespaces roce4j-kv-decode and roce4j-kv-prefill and the
# veth pair (10.81.0.1 and 10.81.0.2, MTU 9000) exist only while it runs.
set -euo pipefail

root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
jar="$root/examples/target/examples.jar"
decode_ns=roce4j-kv-decode
prefill_ns=roce4j-kv-prefill

if [[ $EUID -ne 0 ]]; then
    echo "kv-cache-netns.sh: creating network namespaces needs root" >&2
    exit 1
fi
if [[ ! -f "$jar" ]]; then
    echo "building examples.jar..." >&2
    (cd "$root" && ./mvnw -q -pl examples -am package -DskipTests -Dmaven.javadoc.skip -Dmaven.source.skip) >&2
fi

cleanup()
{
    [[ -n "${decode_pid:-}" ]] && kill "$decode_pid" 2>/dev/null || true
    ip netns del "$decode_ns" 2>/dev/null || true
    ip netns del "$prefill_ns" 2>/dev/null || true
}
trap cleanup EXIT

ip netns add "$decode_ns"
ip netns add "$prefill_ns"
ip link add kvd0 mtu 9000 netns "$decode_ns" type veth peer name kvp0 mtu 9000 netns "$prefill_ns"
ip -n "$decode_ns" addr add 10.81.0.1/24 dev kvd0
ip -n "$prefill_ns" addr add 10.81.0.2/24 dev kvp0
for ns in "$decode_ns" "$prefill_ns"; do
    ip -n "$ns" link set lo up
done
ip -n "$decode_ns" link set kvd0 up
ip -n "$prefill_ns" link set kvp0 up

java=("${JAVA_HOME:+$JAVA_HOME/bin/}java" -jar "$jar" kv-cache)
fifo="$(mktemp -u)"
mkfifo "$fifo"
ip netns exec "$decode_ns" "${java[@]}" decode --link udp:10.81.0.1 "$@" > "$fifo" &
decode_pid=$!
exec 3< "$fifo"
rm -f "$fifo"
# Wait for the decode side to listen, then start the prefill side.
while read -r line <&3; do
    echo "$line"
    [[ "$line" == "decode: listening"* ]] && break
done
ip netns exec "$prefill_ns" "${java[@]}" prefill --link udp:10.81.0.2 --server 10.81.0.1 "$@"
while read -r line <&3; do
    echo "$line"
done
wait "$decode_pid"
decode_pid=
