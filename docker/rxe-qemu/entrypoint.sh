#!/bin/bash
# roce4j/rxe-qemu's entrypoint: the rxe peer as the QEMU guest of docker/rxe-vm (default: the arguments are
# run-vm.sh's), or, where the host kernel has rdma_rxe, Soft-RoCE directly on the container's NIC:
#   docker run ... roce4j/rxe-qemu --dgram 5001:5000 --hostfwd 18515      the QEMU guest (any host)
#   docker run ... roce4j/rxe-qemu native [sleep|serve|PROGRAM ARGS...]   rdma_rxe of the host kernel on the
#                                                                         container's NIC (docker/rxe-peer's
#                                                                         entrypoint: NET_ADMIN, memlock)
#   docker run ... roce4j/rxe-qemu auto ...                               native when the host kernel has rdma_rxe
#                                                                         loaded, else the QEMU guest
set -euo pipefail
mode=qemu
case "${1:-}" in
  native) mode=native; shift ;;
  auto) shift; if [[ -d /sys/module/rdma_rxe ]]; then mode=native; fi ;;
esac
if [[ $mode == native ]]; then
  exec /opt/rxe-vm/bin/rxe-native "$@"
fi
# run-vm.sh execs QEMU, so QEMU is PID 1 and `docker stop` (SIGTERM) ends it
exec bash /opt/rxe-vm/bin/run-vm.sh --no-build "$@"
