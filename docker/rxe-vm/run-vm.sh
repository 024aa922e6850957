#!/usr/bin/env bash
# Starts one Soft-RoCE (rdma_rxe) peer guest under QEMU (TCG) from the image of build-image.sh
# (built on first use). The qemu command line is printed on stderr, then qemu is exec'd: the
# process id of this script is qemu's. The guest's serial console is on stdio by default.
#
# Usage: run-vm.sh [options] [-- extra qemu arguments]
#  RoCE NIC (guest eth0), exactly one of:
#   --dgram LOCAL:REMOTE   -netdev dgram on 127.0.0.1: the guest NIC is 127.0.0.1:LOCAL, every
#                          frame goes as one UDP datagram to the host program at 127.0.0.1:REMOTE
#                          [env ROCE4J_RXE_DGRAM]
#   --tap IFNAME           -netdev tap,ifname=IFNAME,script=no,downscript=no (root; the tap may
#                          exist already)                                      [env ROCE4J_RXE_TAP]
#                          To keep the segment off the host's network, make the tap in a network
#                          namespace and start this script there: ip netns exec NS run-vm.sh --tap ..
#                          (QEMU opens the tap in its own namespace; see interop-tests/README.md)
#   --netdev SPEC          any other -netdev backend, e.g. 'stream,addr.type=unix,addr.path=/x'
#                          (",id=n0" is appended)
#  Guest configuration:
#   --ip A.B.C.D/N         eth0 address                   [env ROCE4J_RXE_IP, 10.77.0.2/24]
#   --mtu N                eth0 MTU (up to 9000 tested)   [env ROCE4J_RXE_MTU, 1500]
#   --mac MAC              eth0 MAC [env ROCE4J_RXE_MAC, 52:54:00 + last 3 bytes of the IP]
#   --peer-ip IP --peer-mac MAC   permanent neighbour entry in the guest [env ROCE4J_RXE_PEER_IP/_MAC]
#   --nic-model MODEL      virtio-net-pci (default) or e1000  [env ROCE4J_RXE_NIC_MODEL]
#  Side channel (guest eth1 = QEMU user networking, restrict=on, guest 10.0.2.15/24):
#   --hostfwd P[:G]        forward host 127.0.0.1:P to guest 10.0.2.15:G (G default 18515);
#                          repeatable, or a comma list    [env ROCE4J_RXE_HOSTFWD="P[:G],..."]
#   --user-net             add eth1 even without --hostfwd
#   --host-access          user networking with restrict=off: the guest may open TCP connections to
#                          10.0.2.2, which QEMU maps to the host's 127.0.0.1 (for tools that connect
#                          out, e.g. ibv_rc_pingpong as a client of a server on the host). The guest has
#                          no default route, so nothing beyond 10.0.2.0/24 is reachable. Implies
#                          --user-net                                [env ROCE4J_RXE_HOST_ACCESS=1]
#  QEMU:
#   --serial SPEC          qemu -serial argument (default stdio; e.g. unix:/tmp/s,server=on,wait=off)
#   --dump FILE            pcap of every eth0 frame (qemu filter-dump on the netdev)
#   --diag-serial SPEC     a second serial port (ttyS1) with its own command loop, for health checks and
#                          diagnostics while the first console is busy (e.g. unix:/tmp/d,server=on,wait=off)
#   --qmp SPEC             QEMU's QMP monitor (e.g. unix:/tmp/q,server=on,wait=off): virtio queue states
#                          of a wedged guest (human-monitor-command 'info virtio-queue-status ...')
#   --suite S              the guest's Debian release: bookworm (default: Linux 6.1, rdma-core 44,
#                          perftest 4.5) or trixie (Linux 6.12, rdma-core 56, perftest 25.01); each
#                          has its own image cache                               [env ROCE4J_RXE_SUITE]
#   --mem MiB (256)  --smp N (1)  --cache DIR [env ROCE4J_RXE_VM_CACHE]
#   --append 'K=V ...'     more kernel command line tokens (no double quotes)
#   --shell                interactive: console on this terminal with echo (Ctrl-A X quits qemu)
#   --dry-run              print the qemu command line and exit
#   --no-build             do not run build-image.sh, fail if the image is missing
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SUITE=${ROCE4J_RXE_SUITE:-bookworm}
CACHE=${ROCE4J_RXE_VM_CACHE:-}
IP=${ROCE4J_RXE_IP:-10.77.0.2/24}
MTU=${ROCE4J_RXE_MTU:-1500}
MAC=${ROCE4J_RXE_MAC:-}
PEER_IP=${ROCE4J_RXE_PEER_IP:-}
PEER_MAC=${ROCE4J_RXE_PEER_MAC:-}
NIC_MODEL=${ROCE4J_RXE_NIC_MODEL:-virtio-net-pci}
DGRAM=${ROCE4J_RXE_DGRAM:-}
TAP=${ROCE4J_RXE_TAP:-}
NETDEV=
HOSTFWD=()
[[ -n ${ROCE4J_RXE_HOSTFWD:-} ]] && IFS=, read -ra HOSTFWD <<<"$ROCE4J_RXE_HOSTFWD"
USER_NET=0
HOST_ACCESS=${ROCE4J_RXE_HOST_ACCESS:-0}
SERIAL=stdio
DUMP=
DIAG_SERIAL=
QMP=
MEM=256
SMP=1
APPEND=
SHELL_MODE=0
DRY_RUN=0
BUILD=1
EXTRA=()

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; }
die() { echo "run-vm.sh: $*" >&2; exit 2; }
need() { [[ $# -ge 2 && -n $2 ]] || die "$1 needs a value"; }

while (($#)); do
  case "$1" in
    --dgram) need "$@"; DGRAM=$2; shift 2 ;;
    --tap) need "$@"; TAP=$2; shift 2 ;;
    --netdev) need "$@"; NETDEV=$2; shift 2 ;;
    --ip) need "$@"; IP=$2; shift 2 ;;
    --mtu) need "$@"; MTU=$2; shift 2 ;;
    --mac) need "$@"; MAC=$2; shift 2 ;;
    --peer-ip) need "$@"; PEER_IP=$2; shift 2 ;;
    --peer-mac) need "$@"; PEER_MAC=$2; shift 2 ;;
    --nic-model) need "$@"; NIC_MODEL=$2; shift 2 ;;
    --hostfwd) need "$@"; IFS=, read -ra f <<<"$2"; HOSTFWD+=("${f[@]}"); shift 2 ;;
    --user-net) USER_NET=1; shift ;;
    --host-access) HOST_ACCESS=1; shift ;;
    --serial) need "$@"; SERIAL=$2; shift 2 ;;
    --dump) need "$@"; DUMP=$2; shift 2 ;;
    --diag-serial) need "$@"; DIAG_SERIAL=$2; shift 2 ;;
    --qmp) need "$@"; QMP=$2; shift 2 ;;
    --mem) need "$@"; MEM=$2; shift 2 ;;
    --smp) need "$@"; SMP=$2; shift 2 ;;
    --cache) need "$@"; CACHE=$2; shift 2 ;;
    --suite) need "$@"; SUITE=$2; shift 2 ;;
    --append) need "$@"; APPEND=$2; shift 2 ;;
    --shell) SHELL_MODE=1; shift ;;
    --dry-run) DRY_RUN=1; shift ;;
    --no-build) BUILD=0; shift ;;
    -h|--help) usage; exit 0 ;;
    --) shift; EXTRA=("$@"); break ;;
    *) die "unknown argument: $1 (see --help)" ;;
  esac
done

if [[ -z $CACHE ]]; then   # as build-image.sh names it
  if [[ $SUITE == bookworm ]]; then CACHE=$HOME/.cache/roce4j/rxe-vm; else CACHE=$HOME/.cache/roce4j/rxe-vm-$SUITE; fi
fi
[[ $IP =~ ^([0-9]+)\.([0-9]+)\.([0-9]+)\.([0-9]+)/[0-9]+$ ]] || die "--ip wants A.B.C.D/N, got '$IP'"
if [[ -z $MAC ]]; then
  MAC=$(printf '52:54:00:%02x:%02x:%02x' "${BASH_REMATCH[2]}" "${BASH_REMATCH[3]}" "${BASH_REMATCH[4]}")
fi
USER_MAC=$(printf '52:54:01:%s' "${MAC#*:*:*:}")
[[ $MTU =~ ^[0-9]+$ ]] || die "--mtu wants a number"
[[ $APPEND != *'"'* ]] || die "--append must not contain double quotes"
(( (${#DGRAM} > 0) + (${#TAP} > 0) + (${#NETDEV} > 0) <= 1 )) || die "use only one of --dgram, --tap, --netdev"
[[ -n $DGRAM || -n $TAP || -n $NETDEV ]] || die "no RoCE NIC backend: give --dgram LOCAL:REMOTE, --tap IFNAME or --netdev SPEC"

if [[ -n $DGRAM ]]; then
  [[ $DGRAM =~ ^([0-9]+):([0-9]+)$ ]] || die "--dgram wants LOCALPORT:REMOTEPORT"
  NETDEV="dgram,local.type=inet,local.host=127.0.0.1,local.port=${BASH_REMATCH[1]},remote.type=inet,remote.host=127.0.0.1,remote.port=${BASH_REMATCH[2]}"
elif [[ -n $TAP ]]; then
  NETDEV="tap,ifname=$TAP,script=no,downscript=no"
fi

if [[ $BUILD == 1 && $DRY_RUN == 0 ]]; then
  ROCE4J_RXE_VM_CACHE=$CACHE "$SCRIPT_DIR/build-image.sh" --suite "$SUITE" >&2
fi
if [[ $DRY_RUN == 0 ]]; then
  [[ -s $CACHE/vmlinuz && -s $CACHE/initrd.img ]] || die "no image in $CACHE (run build-image.sh)"
fi

CMDLINE="console=ttyS0 quiet panic=-1 rdinit=/init roce4j.ip=$IP roce4j.mtu=$MTU"
[[ -n $PEER_IP ]] && CMDLINE+=" roce4j.peer_ip=$PEER_IP"
[[ -n $PEER_MAC ]] && CMDLINE+=" roce4j.peer_mac=$PEER_MAC"
[[ $SHELL_MODE == 1 ]] && CMDLINE+=" roce4j.echo=1"
[[ -n $DIAG_SERIAL ]] && CMDLINE+=" roce4j.diag_tty=ttyS1"
[[ -n $APPEND ]] && CMDLINE+=" $APPEND"

QEMU=(qemu-system-x86_64 -accel tcg -machine pc -smp "$SMP" -m "$MEM" -nodefaults -nographic -no-reboot
  -kernel "$CACHE/vmlinuz" -initrd "$CACHE/initrd.img" -append "$CMDLINE"
  -netdev "$NETDEV,id=n0" -device "$NIC_MODEL,netdev=n0,mac=$MAC,bus=pci.0,addr=0x3,romfile=")
[[ -n $DUMP ]] && QEMU+=(-object "filter-dump,id=dump0,netdev=n0,file=$DUMP,maxlen=65535")
if ((${#HOSTFWD[@]})) || [[ $USER_NET == 1 ]] || [[ $HOST_ACCESS == 1 ]]; then
  restrict=on
  [[ $HOST_ACCESS == 1 ]] && restrict=off
  user="user,id=n1,restrict=$restrict,ipv6=off,net=10.0.2.0/24,host=10.0.2.2"
  for f in "${HOSTFWD[@]}"; do
    [[ $f =~ ^([0-9]+)(:([0-9]+))?$ ]] || die "--hostfwd wants PORT[:GUESTPORT], got '$f'"
    user+=",hostfwd=tcp:127.0.0.1:${BASH_REMATCH[1]}-10.0.2.15:${BASH_REMATCH[3]:-18515}"
  done
  QEMU+=(-netdev "$user" -device "$NIC_MODEL,netdev=n1,mac=$USER_MAC,bus=pci.0,addr=0x4,romfile=")
fi
if [[ $SHELL_MODE == 1 ]]; then
  QEMU+=(-serial mon:stdio)
else
  QEMU+=(-serial "$SERIAL")
  # -nographic would put the monitor on stdio; with the console elsewhere nobody reads it there
  [[ $SERIAL == stdio ]] || QEMU+=(-monitor none)
fi
[[ -n $DIAG_SERIAL ]] && QEMU+=(-serial "$DIAG_SERIAL")   # after the first -serial: ttyS1
[[ -n $QMP ]] && QEMU+=(-qmp "$QMP")
QEMU+=("${EXTRA[@]}")

for a in "${QEMU[@]}"; do  # shell-quoted only where needed, so it can be pasted
  if [[ $a =~ ^[A-Za-z0-9_./:=,@+%-]+$ ]]; then printf '%s ' "$a"; else printf '%q ' "$a"; fi
done >&2
echo >&2
[[ $DRY_RUN == 1 ]] && exit 0
[[ $SHELL_MODE == 1 ]] && echo "run-vm.sh: guest command loop on this terminal; 'poweroff -f' or Ctrl-A X ends the VM" >&2
exec "${QEMU[@]}"
