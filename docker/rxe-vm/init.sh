#!/bin/sh
# roce4j rxe peer: /init of the rxe-vm initramfs (busybox sh, PID 1).
# Source: docker/rxe-vm/init.sh; build-image.sh copies it to /init.
#
# Configuration: key=value tokens on the kernel command line (no quotes, no spaces in values):
#   roce4j.ip=10.77.0.2/24      eth0 (the RoCE NIC) address/prefix           [10.77.0.2/24]
#   roce4j.mtu=1500             eth0 MTU                                      [1500]
#   roce4j.peer_ip=10.77.0.1    with roce4j.peer_mac=02:..: permanent neighbour on eth0
#   roce4j.user_ip=10.0.2.15/24 eth1 (QEMU user networking) address, if eth1 exists
#   roce4j.echo=1               console echo on and a "rxe-peer# " prompt (run-vm.sh --shell)
#   roce4j.printk=1             console log level after boot (1: emergencies only)
#   roce4j.diag_tty=ttyS1       a second command loop on this tty, for health checks and diagnostics
#                               while the first console is busy (run-vm.sh --diag-serial)
#
# Console protocol (ttyS0):
#   1. Exactly one line  ROCE4J-RXE-READY ip=.. mac=.. mtu=.. active_mtu=.. ipv4_gid_index=..
#      gids=<idx>:<gid>,... kernel=.. user_ip=..|none boot_ms=..   (or ROCE4J-RXE-FAILED step=..)
#   2. Then a command loop: each input line is run with `sh -c` (stdin /dev/null, stdout+stderr
#      to the console); after it the loop writes "\n__ROCE4J_RC__ <exit code>\n". The tty turns
#      every LF into CR LF, so a command's output is exactly the bytes before
#      "\r\n__ROCE4J_RC__ <rc>\r\n". Echo is off; blank lines are ignored (no marker); lines
#      are limited to 4095 bytes (tty canonical mode). The loop shell owns the tty as its
#      controlling terminal: a 0x03 byte (^C) interrupts the running command (rc 130).
#      `ip` at the start of a command is iproute2 (/usr/bin/ip = /sbin/ip); after nohup,
#      timeout, xargs... busybox's own ip applet runs, so use /sbin/ip there.
#   `poweroff -f` ends the VM.
#   3. With roce4j.diag_tty, the same command loop (echo off, no prompt) also runs on that tty, from
#      before the ready line: a fixture can read dmesg, counters and queue states there while a
#      command on the first console hangs. SysRq is enabled, so `echo l >/proc/sysrq-trigger` (CPU
#      backtraces) and `echo t` (every task's stack) land in dmesg.

PATH=/usr/sbin:/usr/bin
HOME=/root
export PATH HOME
IP=/sbin/ip
SYS_PORT=/sys/class/infiniband/rxe0/ports/1
RC_MARKER=__ROCE4J_RC__

# ---- command loop (runs as "/init serve" in its own session, ttyS0 as controlling tty) --------
if [ "${1:-}" = serve ]; then
  prompt=
  if [ "${2:-0}" = 1 ]; then prompt='rxe-peer# '; else stty -echo; fi
  stty -ixon susp undef quit undef 2>/dev/null   # no XON/XOFF, no ^Z/^\ signals
  trap ':' INT
  cd /
  printf '%s' "$prompt"
  while :; do
    IFS= read -r line || { usleep 100000; continue; }   # ^D or an interrupted read: go on
    case "$line" in *[![:space:]]*) ;; *) continue ;; esac
    # iproute2's ip instead of busybox's applet (busybox prefers its applets to $PATH)
    sh -c "ip() { $IP \"\$@\"; }
$line" </dev/null 2>&1
    rc=$?
    printf '\n%s %d\n%s' "$RC_MARKER" "$rc" "$prompt"
  done
fi

# ---- boot ----------------------------------------------------------------------------------------
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev     # also provides /dev/infiniband/* once the modules load
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm

cfg_ip=10.77.0.2/24 cfg_mtu=1500 cfg_peer_ip= cfg_peer_mac= cfg_user_ip=10.0.2.15/24
cfg_echo=0 cfg_printk=1 cfg_diag_tty=
for tok in $(cat /proc/cmdline); do
  case "$tok" in
    roce4j.*=*)
      key=${tok%%=*}; key=${key#roce4j.}
      case "$key" in *[!a-z0-9_]*) continue ;; esac
      eval "cfg_$key=\${tok#*=}"
      ;;
  esac
done

[ "$cfg_echo" = 1 ] || stty -echo     # as early as possible: nothing typed is echoed back
echo "$cfg_printk 4 1 7" >/proc/sys/kernel/printk
echo 1 >/proc/sys/kernel/sysrq        # diagnostics of a wedged guest: echo l|t >/proc/sysrq-trigger
case "$cfg_diag_tty" in
  ttyS[1-3])
    # the diagnostic command loop: its own session, the tty opened as its controlling terminal
    ( while :; do setsid sh -c "exec /init serve 0 <>/dev/$cfg_diag_tty >&0 2>&1"; usleep 200000; done ) &
    ;;
esac
hostname rxe-peer
ulimit -l unlimited                   # memlock for ibv_reg_mr; inherited by the command loop
ulimit -c 0

ready=1
fail() {  # fail STEP MESSAGE: report once, keep going to the command loop for diagnosis
  [ "$ready" = 1 ] && echo "ROCE4J-RXE-FAILED step=$1 $2"
  ready=0
}
wait_for() {  # wait_for TENTHS COMMAND...: poll every 0.1 s
  n=$1; shift
  while [ "$n" -gt 0 ]; do
    "$@" && return 0
    usleep 100000; n=$((n - 1))
  done
  return 1
}

for m in crc32_generic virtio_pci virtio_net e1000 rdma_rxe ib_uverbs ib_umad rdma_ucm; do
  modprobe "$m" 2>/dev/null || fail modprobe "module=$m"
done

$IP link set lo up
if wait_for 100 test -e /sys/class/net/eth0; then
  $IP link set eth0 mtu "$cfg_mtu" || fail mtu "mtu=$cfg_mtu"
  $IP addr add "$cfg_ip" dev eth0 || fail ip "ip=$cfg_ip"
  $IP link set eth0 up
  if [ -n "$cfg_peer_ip" ] && [ -n "$cfg_peer_mac" ]; then
    $IP neigh replace "$cfg_peer_ip" lladdr "$cfg_peer_mac" dev eth0 nud permanent \
      || fail neigh "peer_ip=$cfg_peer_ip peer_mac=$cfg_peer_mac"
  fi
else
  fail eth0 "no eth0"
fi
user_ip=none
if [ -e /sys/class/net/eth1 ]; then
  $IP addr add "$cfg_user_ip" dev eth1 && $IP link set eth1 up && user_ip=${cfg_user_ip%/*}
fi

rdma link add rxe0 type rxe netdev eth0 || fail rdma_link "rdma link add failed"

# the port goes ACTIVE with the carrier; the IPv4 GID appears asynchronously after that
addr=${cfg_ip%/*}
v4gid=$(IFS=.; set -- $addr; printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$1" "$2" "$3" "$4")
port_active() { [ -e "$SYS_PORT/state" ] && read -r s <"$SYS_PORT/state" && [ "$s" = "4: ACTIVE" ]; }
v4gid_present() { grep -qx "$v4gid" "$SYS_PORT"/gids/* 2>/dev/null; }
wait_for 200 port_active || fail port "rxe0 port 1 not ACTIVE"
wait_for 100 v4gid_present || fail gid "no GID $v4gid"

# GID table: every non-zero entry as index:gid, ordered by index
gids= v4idx=
for e in $(cd "$SYS_PORT/gids" 2>/dev/null && grep -H -v -x '0000:0000:0000:0000:0000:0000:0000:0000' * \
           | sort -t: -k1,1n); do
  i=${e%%:*}; g=${e#*:}
  gids="${gids:+$gids,}$i:$g"
  if [ -z "$v4idx" ] && [ "$g" = "$v4gid" ]; then
    t=$(cat "$SYS_PORT/gid_attrs/types/$i" 2>/dev/null)
    [ "$t" = "RoCE v2" ] && v4idx=$i
  fi
done
[ -n "$v4idx" ] || fail gid "no RoCE v2 GID for $addr"

active_mtu=$(ibv_devinfo -d rxe0 2>/dev/null | sed -n 's/.*active_mtu:[[:space:]]*\([0-9]*\).*/\1/p')
[ -n "$active_mtu" ] || fail ibv_devinfo "ibv_devinfo -d rxe0 failed"
mac=$(cat /sys/class/net/eth0/address 2>/dev/null)
mtu=$(cat /sys/class/net/eth0/mtu 2>/dev/null)
read -r up _ </proc/uptime
boot_ms=$(echo "$up" | sed 's/\.\(..\).*/\10/')

if [ "$ready" = 1 ]; then
  echo "ROCE4J-RXE-READY ip=$addr mac=$mac mtu=$mtu active_mtu=$active_mtu ipv4_gid_index=$v4idx gids=$gids kernel=$(uname -r) user_ip=$user_ip boot_ms=$boot_ms"
fi

# PID 1 must never exit: (re)start the command loop with ttyS0 as its controlling terminal
while :; do
  setsid cttyhack /init serve "$cfg_echo"
  usleep 200000
done
