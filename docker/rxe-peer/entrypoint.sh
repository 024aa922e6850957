#!/bin/sh
# roce4j rxe peer container: binds a Soft-RoCE device to the container's NIC, prints the same
# ready line as the QEMU image (docker/rxe-vm/init.sh), then sleeps, serves commands, or runs
# the given program. POSIX sh (dash in the image; also runs under busybox sh).
#
# Usage: entrypoint.sh [sleep | serve | PROGRAM ARGS...]          (default: sleep)
#   sleep   print the ready line, then wait for SIGTERM/SIGINT (use `docker exec` for commands)
#   serve   command loop on stdin/stdout: one line = one `sh -c` command, followed by
#           "\n__ROCE4J_RC__ <exit code>\n" (LF only without a tty; CR LF with `docker run -t`)
#   other   exec PROGRAM ARGS after the setup (e.g. ib_send_bw -d rxe0 -x 1 -F)
# Env: ROCE4J_RXE_NETDEV (eth0)  ROCE4J_RXE_DEV (rxe0)  ROCE4J_RXE_MTU (unchanged)
#      ROCE4J_RXE_PEER_IP + ROCE4J_RXE_PEER_MAC (permanent neighbour entry)
#      ROCE4J_RXE_KEEP_LINK=1 (do not delete the rxe link on exit)
# Needs: a host kernel with rdma_rxe (loaded on the host, or --cap-add SYS_MODULE and the host's
# /lib/modules mounted), NET_ADMIN (`rdma link add`, ip), and memlock (--ulimit memlock=-1).

set -u
NETDEV=${ROCE4J_RXE_NETDEV:-eth0}
DEV=${ROCE4J_RXE_DEV:-rxe0}
MTU=${ROCE4J_RXE_MTU:-}
PEER_IP=${ROCE4J_RXE_PEER_IP:-}
PEER_MAC=${ROCE4J_RXE_PEER_MAC:-}
PORT=/sys/class/infiniband/$DEV/ports/1
read -r t0 _ </proc/uptime

failed() { echo "ROCE4J-RXE-FAILED step=$1 $2"; exit 1; }
wait_for() {  # wait_for TENTHS COMMAND...
  n=$1; shift
  while [ "$n" -gt 0 ]; do "$@" && return 0; sleep 0.1; n=$((n - 1)); done
  return 1
}

ulimit -l unlimited 2>/dev/null || echo "warning: cannot raise memlock (run with --ulimit memlock=-1)" >&2
[ -d /sys/module/rdma_rxe ] || modprobe rdma_rxe 2>/dev/null \
  || failed modprobe "rdma_rxe is not loaded (on the host: modprobe rdma_rxe)"
[ -e "/sys/class/net/$NETDEV" ] || failed netdev "no $NETDEV"
if [ -n "$MTU" ]; then ip link set "$NETDEV" mtu "$MTU" || failed mtu "mtu=$MTU"; fi
ip link set "$NETDEV" up
if [ -n "$PEER_IP" ] && [ -n "$PEER_MAC" ]; then
  ip neigh replace "$PEER_IP" lladdr "$PEER_MAC" dev "$NETDEV" nud permanent \
    || failed neigh "peer_ip=$PEER_IP peer_mac=$PEER_MAC"
fi

created=0
if [ -e "/sys/class/infiniband/$DEV" ]; then
  rdma link show "$DEV/1" 2>/dev/null | grep -q "netdev $NETDEV\( \|$\)" \
    || failed rdma_link "$DEV exists but is not bound to $NETDEV"
else
  rdma link add "$DEV" type rxe netdev "$NETDEV" || failed rdma_link "rdma link add $DEV failed (NET_ADMIN?)"
  created=1
fi
cleanup() {
  if [ "$created" = 1 ] && [ "${ROCE4J_RXE_KEEP_LINK:-0}" != 1 ]; then
    rdma link delete "$DEV" 2>/dev/null
    created=0
  fi
}
sleep_pid=
trap 'cleanup; [ -z "$sleep_pid" ] || kill "$sleep_pid" 2>/dev/null; exit 0' TERM INT
trap cleanup EXIT

addr=$(ip -4 -o addr show dev "$NETDEV" | awk '{ split($4, a, "/"); print a[1]; exit }')
[ -n "$addr" ] || failed ip "$NETDEV has no IPv4 address"
v4gid=$(IFS=.; set -- $addr; printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$1" "$2" "$3" "$4")
port_active() { [ -e "$PORT/state" ] && read -r s <"$PORT/state" && [ "$s" = "4: ACTIVE" ]; }
v4gid_present() { grep -qx "$v4gid" "$PORT"/gids/* 2>/dev/null; }
wait_for 200 port_active || failed port "$DEV port 1 not ACTIVE"
wait_for 100 v4gid_present || failed gid "no GID $v4gid"

gids= v4idx=
for e in $(cd "$PORT/gids" && grep -H -v -x '0000:0000:0000:0000:0000:0000:0000:0000' * | sort -t: -k1,1n); do
  i=${e%%:*}; g=${e#*:}
  gids="${gids:+$gids,}$i:$g"
  if [ -z "$v4idx" ] && [ "$g" = "$v4gid" ]; then
    t=$(cat "$PORT/gid_attrs/types/$i" 2>/dev/null)
    [ "$t" = "RoCE v2" ] && v4idx=$i
  fi
done
[ -n "$v4idx" ] || failed gid "no RoCE v2 GID for $addr"
active_mtu=$(ibv_devinfo -d "$DEV" 2>/dev/null | sed -n 's/.*active_mtu:[[:space:]]*\([0-9]*\).*/\1/p')
[ -n "$active_mtu" ] || failed ibv_devinfo "ibv_devinfo -d $DEV failed"
mac=$(cat "/sys/class/net/$NETDEV/address")
mtu=$(cat "/sys/class/net/$NETDEV/mtu")
read -r t1 _ </proc/uptime
setup_ms=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", (b - a) * 1000 }')
echo "ROCE4J-RXE-READY ip=$addr mac=$mac mtu=$mtu active_mtu=$active_mtu ipv4_gid_index=$v4idx gids=$gids kernel=$(uname -r) user_ip=none boot_ms=$setup_ms"

case "${1:-sleep}" in
  sleep)
    # a background sleep + wait, so that SIGTERM (docker stop) is handled at once
    while :; do sleep 3600 & sleep_pid=$!; wait "$sleep_pid"; done
    ;;
  serve)
    while IFS= read -r line; do
      case "$line" in *[![:space:]]*) ;; *) continue ;; esac
      sh -c "$line" </dev/null 2>&1
      printf '\n__ROCE4J_RC__ %d\n' "$?"
    done
    ;;
  *)
    "$@"
    exit $?
    ;;
esac
