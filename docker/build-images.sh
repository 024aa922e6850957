#!/usr/bin/env bash
# Builds roce4j's Docker images on a host that reaches no image registry: everything comes from Debian packages.
#
#   roce4j/debian:bookworm   a minimal Debian bookworm (debootstrap --variant=minbase, then `docker import`);
#                            skipped when it exists, or when --base names another base (e.g. debian:bookworm
#                            where Docker Hub is reachable)
#   roce4j/rxe-qemu:latest   the QEMU rxe guest in a container (docker/rxe-qemu): any Docker host, no rdma_rxe;
#                            with `native` or `auto` first, the host kernel's rdma_rxe where it has one
#   roce4j/rxe-peer:latest   native rdma_rxe on the container's NIC (docker/rxe-peer), for hosts whose kernel has
#                            rdma_rxe; only with --native
#
# Usage: build-images.sh [--base IMAGE] [--native] [--force]
#   --force   rebuild the images even when they exist (the base too, unless --base is given)
# Needs: a running Docker engine, and debootstrap (apt-get install debootstrap) for the base. Builds use the host's
# network (docker build --network host), as the containers do.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BASE_IMAGE=roce4j/debian:bookworm
BASE=
NATIVE=0
FORCE=0
MIRROR=${ROCE4J_DEBIAN_MIRROR:-http://deb.debian.org/debian}

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; }
die() { echo "build-images.sh: $*" >&2; exit 1; }
log() { printf '[build-images] %s\n' "$*" >&2; }

while (($#)); do
  case "$1" in
    --base) [[ $# -ge 2 ]] || die "--base needs an image name"; BASE=$2; shift 2 ;;
    --native) NATIVE=1; shift ;;
    --force) FORCE=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown argument: $1 (see --help)" ;;
  esac
done

docker info >/dev/null 2>&1 || die "no Docker engine answers (start dockerd; see docker/README.md)"
exists() { docker image inspect "$1" >/dev/null 2>&1; }
# The legacy builder: it needs no buildx plugin, which the Debian docker.io client lacks.
build() { DOCKER_BUILDKIT=0 docker build --network host -q "$@" >/dev/null; }

if [[ -z $BASE ]]; then
  BASE=$BASE_IMAGE
  if [[ $FORCE == 1 ]] || ! exists "$BASE"; then
    command -v debootstrap >/dev/null || die "debootstrap is missing (apt-get install debootstrap), or give --base"
    start=$(date +%s)
    root=$(mktemp -d /tmp/roce4j-debootstrap.XXXXXX)
    trap 'rm -rf "$root"' EXIT
    log "debootstrap bookworm from $MIRROR into $root"
    debootstrap --variant=minbase bookworm "$root" "$MIRROR" >"$root.log" 2>&1 \
      || { tail -20 "$root.log" >&2; die "debootstrap failed (log: $root.log)"; }
    rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
    tar -C "$root" -c . | docker import --change 'CMD ["bash"]' - "$BASE" >/dev/null
    rm -rf "$root" "$root.log"
    trap - EXIT
    log "$BASE imported in $(( $(date +%s) - start )) s"
  fi
fi

# An image is current when its stamp label matches the hash of what it is built from.
stamp() { cat "$@" | sha256sum | cut -c1-16; }
current() { [[ $(docker image inspect -f '{{index .Config.Labels "org.roce4j.stamp"}}' "$1" 2>/dev/null) == "$2" ]]; }

QEMU_STAMP=$(stamp "$SCRIPT_DIR"/rxe-qemu/{Dockerfile,entrypoint.sh} "$SCRIPT_DIR"/rxe-vm/{build-image,init,run-vm}.sh \
  "$SCRIPT_DIR/rxe-peer/entrypoint.sh" <(echo "$BASE"))
if [[ $FORCE == 1 ]] || ! current roce4j/rxe-qemu:latest "$QEMU_STAMP"; then
  start=$(date +%s)
  log "building roce4j/rxe-qemu:latest from $BASE (the guest image is built inside, as by rxe-vm/build-image.sh)"
  build --build-arg "BASE=$BASE" --label "org.roce4j.stamp=$QEMU_STAMP" -t roce4j/rxe-qemu:latest \
    -f "$SCRIPT_DIR/rxe-qemu/Dockerfile" "$SCRIPT_DIR"
  log "roce4j/rxe-qemu:latest built in $(( $(date +%s) - start )) s"
else
  log "roce4j/rxe-qemu:latest is current (--force rebuilds it)"
fi

if [[ $NATIVE == 1 ]]; then
  PEER_STAMP=$(stamp "$SCRIPT_DIR"/rxe-peer/* <(echo "$BASE"))
  if [[ $FORCE == 1 ]] || ! current roce4j/rxe-peer:latest "$PEER_STAMP"; then
    start=$(date +%s)
    build --build-arg "BASE=$BASE" --label "org.roce4j.stamp=$PEER_STAMP" -t roce4j/rxe-peer:latest \
      "$SCRIPT_DIR/rxe-peer"
    log "roce4j/rxe-peer:latest built in $(( $(date +%s) - start )) s"
  fi
fi
docker image ls --format '{{.Repository}}:{{.Tag}} {{.Size}}' | grep '^roce4j/' >&2 || true
