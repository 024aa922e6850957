#!/usr/bin/env bash
# Builds the Soft-RoCE (rdma_rxe) peer VM image: a stock Debian kernel (vmlinuz) and a small
# initramfs (busybox, rdma-core tools, perftest, iproute2, the rxe module closure) whose /init is
# docker/rxe-vm/init.sh, from Debian bookworm (Linux 6.1, rdma-core 44, perftest 4.5) or, with
# --suite trixie, Debian 13 (Linux 6.12, rdma-core 56, perftest 25.01).
#
# Everything comes from Debian packages fetched with `apt-get download` and unpacked with
# `dpkg-deb -x`; nothing is installed on the host. Host needs: apt, dpkg-deb, depmod (kmod),
# cpio, gzip, and readelf (binutils) or perl for reading ELF DT_NEEDED entries.
#
# Output (outside git): ${ROCE4J_RXE_VM_CACHE:-$HOME/.cache/roce4j/rxe-vm}/ for bookworm,
# $HOME/.cache/roce4j/rxe-vm-<suite>/ for another suite:
#   vmlinuz  initrd.img  kernel-release  versions.txt  stamp
# A complete image whose stamp matches this script version is reused (exit fast).
#
# Usage: build-image.sh [--suite bookworm|trixie] [--force]
# Env:   ROCE4J_RXE_SUITE          the Debian suite (bookworm)
#        ROCE4J_RXE_VM_CACHE       output directory (see above)
#        ROCE4J_DEBIAN_MIRROR      the archive for a suite other than the host's (http://deb.debian.org)
#        ROCE4J_RXE_VM_TCPDUMP=1   also put tcpdump (and its ~4 MB library closure) in the guest;
#                                  the cache remembers the choice until ROCE4J_RXE_VM_TCPDUMP=0
#        ROCE4J_RXE_APT_SOURCES    an apt sources file to use instead of the host's apt sources
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SUITE=${ROCE4J_RXE_SUITE:-bookworm}
FORCE=0
while (($#)); do
  case "$1" in
    --force) FORCE=1; shift ;;
    --suite) [[ $# -ge 2 ]] || { echo "build-image.sh: --suite needs a value" >&2; exit 2; }; SUITE=$2; shift 2 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "build-image.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
done
case "$SUITE" in
  bookworm|trixie) ;;
  *) echo "build-image.sh: suite '$SUITE' is not one this image was made for (bookworm, trixie)" >&2; exit 2 ;;
esac
if [[ $SUITE == bookworm ]]; then
  CACHE=${ROCE4J_RXE_VM_CACHE:-$HOME/.cache/roce4j/rxe-vm}
else
  CACHE=${ROCE4J_RXE_VM_CACHE:-$HOME/.cache/roce4j/rxe-vm-$SUITE}
fi
# remembered by the cache, so that run-vm.sh's build check keeps an image built with tcpdump
WITH_TCPDUMP=${ROCE4J_RXE_VM_TCPDUMP:-$(cat "$CACHE/tcpdump" 2>/dev/null || echo 0)}

# Packages whose programs (or explicitly named files) go into the guest. Libraries they need are
# found by following DT_NEEDED through the unpacked packages; missing ones are fetched from the
# Depends of the package that needs them, until the closure is complete.
ROOT_PACKAGES=(busybox-static libc6 libgcc-s1 libibverbs1 ibverbs-providers ibverbs-utils
  librdmacm1 rdmacm-utils libibumad3 perftest iproute2 ethtool)
[[ $WITH_TCPDUMP == 1 ]] && ROOT_PACKAGES+=(tcpdump)
# trixie's guest also runs python3-pyverbs scripts (pyverbs/ beside this script, in /opt/roce4j), for the verbs no
# stock tool exercises: memory windows, FLUSH and ATOMIC_WRITE (rxe has the last two since Linux 6.2)
PYVERBS=0
if [[ $SUITE != bookworm ]]; then
  PYVERBS=1
  ROOT_PACKAGES+=(python3.13-minimal libpython3.13-minimal libpython3.13-stdlib python3-pyverbs)
fi
# Kernel modules loaded by init.sh (their dependency closure is added by modprobe --show-depends).
MODULES=(crc32_generic virtio_pci virtio_net e1000 rdma_rxe ib_uverbs ib_umad rdma_ucm)
MULTIARCH=x86_64-linux-gnu

# Files taken from a root package, as globs relative to the package root ("?" in front: optional,
# e.g. iproute2's tables, in /etc on bookworm and /usr/share on trixie). Libraries are added
# by the closure, so library packages list only what is dlopen()ed or otherwise not NEEDED.
package_files() {
  case "$1" in
    busybox-static)    echo 'bin/busybox' ;;
    libc6)             echo 'lib64/ld-linux-x86-64.so.2' ;;
    libgcc-s1)         echo "lib/$MULTIARCH/libgcc_s.so.1" ;;  # dlopen()ed by glibc (pthread_exit)
    ibverbs-providers) echo "usr/lib/$MULTIARCH/libibverbs/librxe-rdmav*.so etc/libibverbs.d/rxe.driver" ;;
    ibverbs-utils|rdmacm-utils|perftest) echo 'usr/bin/*' ;;
    iproute2)          echo 'bin/ip sbin/tc usr/bin/rdma ?etc/iproute2/* ?usr/share/iproute2/*' ;;
    ethtool)           echo 'sbin/ethtool' ;;   # diagnostics of a wedged NIC: ethtool -S eth0
    tcpdump)           echo 'usr/bin/tcpdump' ;;
    # the interpreter, and the extension modules (ELF: their libraries join the closure); package_trees adds the rest:
    python3.13-minimal) echo 'usr/bin/python3.13' ;;
    # of the modules pyverbs and rxe_agent.py import that are not built into the interpreter
    libpython3.13-stdlib) d=usr/lib/python3.13/lib-dynload
                          echo "$d/_ctypes.*.so $d/resource.*.so $d/mmap.*.so" ;;
    python3-pyverbs)   echo 'usr/lib/python3/dist-packages/pyverbs/*.so' ;;
    *)                 echo '' ;;
  esac
}

# Whole directories taken from a root package (Python modules), after the files above; pruned of what no script
# here imports (tests, GUI, installers) to keep the initramfs small.
package_trees() {
  case "$1" in
    libpython3.13-minimal|libpython3.13-stdlib) echo 'usr/lib/python3.13' ;;
    python3-pyverbs)   echo 'usr/lib/python3/dist-packages/pyverbs' ;;
    *)                 echo '' ;;
  esac
}
PRUNE=(lib-dynload 'config-*' providers test idlelib tkinter turtledemo ensurepip pydoc_data lib2to3 unittest asyncio
  email xml multiprocessing _pyrepl http urllib html sqlite3 dbm curses venv wsgiref xmlrpc zoneinfo tomllib)

STAMP=$( { cat "${BASH_SOURCE[0]}" "$SCRIPT_DIR/init.sh"
           if [[ $PYVERBS == 1 ]]; then cat "$SCRIPT_DIR"/pyverbs/*.py; fi
           echo "suite=$SUITE packages=${ROOT_PACKAGES[*]} modules=${MODULES[*]} tcpdump=$WITH_TCPDUMP"; } \
         | sha256sum | cut -d' ' -f1)

image_complete() {
  [[ -s $CACHE/vmlinuz && -s $CACHE/initrd.img && -s $CACHE/versions.txt \
     && -s $CACHE/kernel-release && -f $CACHE/stamp && $(cat "$CACHE/stamp") == "$STAMP" ]]
}

log() { printf '[build-image] %s\n' "$*" >&2; }
die() { printf '[build-image] ERROR: %s\n' "$*" >&2; exit 1; }

mkdir -p "$CACHE"
if [[ $FORCE == 0 ]] && image_complete; then
  log "reusing cached image in $CACHE (kernel $(cat "$CACHE/kernel-release"))"
  exit 0
fi
exec 9>"$CACHE/.lock"
flock 9   # a concurrent build of the same cache finishes first
if [[ $FORCE == 0 ]] && image_complete; then
  log "reusing cached image in $CACHE (built concurrently)"
  exit 0
fi

START=$(date +%s)
rm -rf "$CACHE"/work.*   # left over by a killed build (we hold the lock)
WORK=$(mktemp -d "$CACHE/work.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/apt/lists/partial" "$WORK/apt/cache/archives/partial" "$WORK/x"
: >"$WORK/apt/status"

# apt with private state: the host's package lists, cache and dpkg status are not touched, and
# packages installed on the host do not hide anything from the resolution.
APT_OPTS=(-o "Dir::State::Lists=$WORK/apt/lists" -o "Dir::State::status=$WORK/apt/status"
  -o "Dir::Cache=$WORK/apt/cache" -o "APT::Architecture=amd64" -o "APT::Sandbox::User=root"
  -o "Debug::NoLocking=1")
if [[ -z ${ROCE4J_RXE_APT_SOURCES:-} && $SUITE != bookworm ]]; then
  # another Debian release than the host's: its main archive, updates and security suites
  mirror=${ROCE4J_DEBIAN_MIRROR:-http://deb.debian.org}
  printf 'deb %s/debian %s main\ndeb %s/debian %s-updates main\ndeb %s/debian-security %s-security main\n' \
    "$mirror" "$SUITE" "$mirror" "$SUITE" "$mirror" "$SUITE" >"$WORK/sources.list"
  ROCE4J_RXE_APT_SOURCES=$WORK/sources.list
fi
if [[ -n ${ROCE4J_RXE_APT_SOURCES:-} ]]; then
  APT_OPTS+=(-o "Dir::Etc::SourceList=$ROCE4J_RXE_APT_SOURCES" -o "Dir::Etc::SourceParts=/nonexistent")
fi
log "apt-get update (private lists in $WORK/apt)"
apt-get "${APT_OPTS[@]}" -qq update >&2 || die "apt-get update failed"

declare -A PKG_DIR=()   # package name -> unpacked tree
fetch() {  # fetch PKG...: download and unpack packages not fetched yet
  local p todo=()
  for p in "$@"; do [[ -n ${PKG_DIR[$p]:-} ]] || todo+=("$p"); done
  ((${#todo[@]})) || return 0
  local dl="$WORK/dl.$RANDOM"
  mkdir -p "$dl"
  (cd "$dl" && apt-get "${APT_OPTS[@]}" -qq download "${todo[@]}" >&2) \
    || die "apt-get download ${todo[*]} failed"
  local deb name
  for deb in "$dl"/*.deb; do
    name=$(dpkg-deb -f "$deb" Package)
    dpkg-deb -f "$deb" Package Version | paste -sd' ' | sed 's/^Package: //; s/ Version: / /' >>"$WORK/fetched"
    mkdir -p "$WORK/x/$name"
    dpkg-deb -x "$deb" "$WORK/x/$name"
    PKG_DIR[$name]="$WORK/x/$name"
    rm -f "$deb"
  done
  rmdir "$dl"
}

# The kernel: whatever linux-image-amd64 currently depends on (moves with security updates).
KPKG=$(apt-cache "${APT_OPTS[@]}" depends linux-image-amd64 \
       | sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*-amd64\)$/\1/p' | head -n1)
[[ -n $KPKG ]] || die "cannot resolve the kernel package from linux-image-amd64"
KREL=${KPKG#linux-image-}
log "kernel package $KPKG"
# Debian 13 renamed libraries whose ABI has a time_t (librdmacm1 -> librdmacm1t64): take the name the suite has.
has_candidate() { [[ $(apt-cache "${APT_OPTS[@]}" policy "$1" 2>/dev/null) == *"Candidate: "[0-9]* ]]; }
for i in "${!ROOT_PACKAGES[@]}"; do
  p=${ROOT_PACKAGES[$i]}
  if ! has_candidate "$p"; then
    has_candidate "${p}t64" || die "$SUITE has no package $p (nor ${p}t64)"
    log "$SUITE names $p ${p}t64"
    ROOT_PACKAGES[$i]=${p}t64
  fi
done
fetch "$KPKG" "${ROOT_PACKAGES[@]}"

# ---- ELF helpers -------------------------------------------------------------------------------
is_elf() { [[ -f $1 && ! -L $1 && $(head -c 4 "$1" | od -An -c | tr -d ' \n') == '177ELF' ]]; }
if command -v readelf >/dev/null; then
  elf_needed() { LC_ALL=C readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'; }
else
  elf_needed() {  # ELF64 little-endian: DT_NEEDED strings of the SHT_DYNAMIC section
    perl -e '
      open(F, "<:raw", $ARGV[0]) or die; local $/; my $d = <F>;
      my ($shoff) = unpack("Q<", substr($d, 0x28, 8));
      my ($shentsize, $shnum) = unpack("v v", substr($d, 0x3a, 4));
      for my $i (0 .. $shnum - 1) {
        my $sh = substr($d, $shoff + $i * $shentsize, $shentsize);
        my ($type) = unpack("V", substr($sh, 4, 4));
        next unless $type == 6;
        my ($off, $size) = unpack("Q< Q<", substr($sh, 0x18, 16));
        my ($link) = unpack("V", substr($sh, 0x28, 4));
        my ($stroff) = unpack("Q<", substr($d, $shoff + $link * $shentsize + 0x18, 8));
        for (my $o = $off; $o < $off + $size; $o += 16) {
          my ($tag, $val) = unpack("Q< Q<", substr($d, $o, 16));
          last if $tag == 0;
          if ($tag == 1) { my $s = substr($d, $stroff + $val); $s =~ s/\0.*//s; print "$s\n"; }
        }
      }' "$1"
  }
fi

# ---- shared-library closure --------------------------------------------------------------------
declare -A SELECT=()    # "pkg|relpath" -> 1: files (and symlinks) that go into the guest
declare -A SONAME=()    # soname -> "pkg|relpath"
declare -A SCANNED=()

index_libs() {
  SONAME=()
  local p d f
  for p in "${!PKG_DIR[@]}"; do
    [[ $p == "$KPKG" ]] && continue
    for d in "lib/$MULTIARCH" "usr/lib/$MULTIARCH"; do
      [[ -d ${PKG_DIR[$p]}/$d ]] || continue
      for f in "${PKG_DIR[$p]}/$d"/*.so*; do
        [[ -e $f || -L $f ]] || continue
        [[ -n ${SONAME[${f##*/}]:-} ]] || SONAME[${f##*/}]="$p|${f#"${PKG_DIR[$p]}"/}"
      done
    done
  done
}

# select PKG RELPATH: add a file; follow a symlink to its target in the same package. A regular
# ELF file is also appended to QUEUE for the NEEDED scan. (Runs in this shell: no subshells.)
QUEUE=()
select_path() {
  local p=$1 rel=$2 n=0 abs t
  while :; do
    abs="${PKG_DIR[$p]}/$rel"
    [[ -e $abs || -L $abs ]] || die "$p has no $rel"
    SELECT["$p|$rel"]=1
    if [[ -L $abs ]]; then
      t=$(readlink "$abs")
      if [[ $t == /* ]]; then rel=${t#/}; else rel=$(realpath -m -s --relative-to="${PKG_DIR[$p]}" "$(dirname "$abs")/$t"); fi
      ((++n < 10)) || die "symlink loop at $p/$rel"
      if [[ ! -e ${PKG_DIR[$p]}/$rel && ! -L ${PKG_DIR[$p]}/$rel ]]; then
        # absolute link into the merged /usr (e.g. lib64/ld-linux -> /lib/...): try the other half
        case $rel in usr/*) rel=${rel#usr/} ;; *) rel=usr/$rel ;; esac
      fi
      continue
    fi
    if is_elf "$abs"; then QUEUE+=("$p|$rel"); fi
    return 0
  done
}

ROUND=0
while :; do
  ROUND=$((ROUND + 1))
  index_libs
  SELECT=(); SCANNED=()
  QUEUE=()
  for p in "${ROOT_PACKAGES[@]}"; do
    read -ra globs <<<"$(package_files "$p")"
    for g in "${globs[@]}"; do
      optional=0
      [[ $g == '?'* ]] && { optional=1; g=${g#?}; }
      matched=0
      # a package of a merged-/usr release (trixie) has under usr/ what bookworm's has at the root
      for abs in "${PKG_DIR[$p]}"/$g "${PKG_DIR[$p]}"/usr/$g; do
        [[ -e $abs || -L $abs ]] || continue
        matched=1
        select_path "$p" "${abs#"${PKG_DIR[$p]}"/}"
      done
      [[ $matched == 1 || $optional == 1 ]] || die "package $p has no file matching $g (nor usr/$g)"
    done
  done
  declare -A missing=()   # soname -> packages that need it
  while ((${#QUEUE[@]})); do
    k=${QUEUE[0]}; QUEUE=("${QUEUE[@]:1}")
    [[ -n ${SCANNED[$k]:-} ]] && continue
    SCANNED[$k]=1
    p=${k%%|*}; rel=${k#*|}
    for so in $(elf_needed "${PKG_DIR[$p]}/$rel"); do
      if [[ -n ${SONAME[$so]:-} ]]; then
        lp=${SONAME[$so]%%|*}; lrel=${SONAME[$so]#*|}
        select_path "$lp" "$lrel"
      else
        missing[$so]="${missing[$so]:-} $p"
      fi
    done
  done
  ((${#missing[@]})) || break
  # Fetch the library dependencies of the packages whose files have unresolved sonames.
  owners=$(printf '%s\n' "${missing[@]}" | tr ' ' '\n' | sed '/^$/d' | sort -u)
  deps=()
  for o in $owners; do
    while read -r d; do
      [[ -n ${PKG_DIR[$d]:-} ]] || deps+=("$d")
    done < <(apt-cache "${APT_OPTS[@]}" depends "$o" \
             | sed -n 's/^ *|\{0,1\}\(Pre\)\{0,1\}Depends: \([a-z0-9][a-z0-9.+-]*\)$/\2/p' \
             | grep -E '^(lib|zlib)' | sort -u)
  done
  if ((${#deps[@]} == 0)) || ((ROUND > 12)); then
    for so in "${!missing[@]}"; do log "unresolved: $so (needed by${missing[$so]})"; done
    die "shared-library closure is not complete"
  fi
  mapfile -t deps < <(printf '%s\n' "${deps[@]}" | sort -u)
  log "closure round $ROUND: ${#missing[@]} sonames missing, fetching ${deps[*]}"
  fetch "${deps[@]}"
  unset missing
done
log "closure complete after $ROUND round(s): ${#SELECT[@]} files"

# ---- root filesystem -----------------------------------------------------------------------------
ROOT="$WORK/root"
mkdir -p "$ROOT"/{usr/bin,usr/sbin,usr/lib/$MULTIARCH,usr/lib64,etc,proc,sys,dev,tmp,run,root,var/tmp}
ln -s usr/bin "$ROOT/bin"; ln -s usr/sbin "$ROOT/sbin"; ln -s usr/lib "$ROOT/lib"; ln -s usr/lib64 "$ROOT/lib64"
chmod 1777 "$ROOT/tmp" "$ROOT/var/tmp"

merged() {  # map a package path onto the merged-/usr layout of the guest
  case $1 in bin/*|sbin/*|lib/*|lib64/*) echo "usr/$1" ;; *) echo "$1" ;; esac
}
for k in "${!SELECT[@]}"; do
  p=${k%%|*}; rel=${k#*|}
  dst="$ROOT/$(merged "$rel")"
  mkdir -p "$(dirname "$dst")"
  [[ -e $dst || -L $dst ]] && continue
  cp -a "${PKG_DIR[$p]}/$rel" "$dst"
done

for p in "${ROOT_PACKAGES[@]}"; do
  for t in $(package_trees "$p"); do
    [[ -d ${PKG_DIR[$p]}/$t ]] || continue
    mkdir -p "$ROOT/$t"
    # without the pruned directories (the extension modules named in package_files are in place already)
    (cd "${PKG_DIR[$p]}/$t" && tar -cf - "${PRUNE[@]/#/--exclude=./}" .) | tar -xf - -C "$ROOT/$t" --skip-old-files
  done
done
if [[ $PYVERBS == 1 ]]; then
  ln -sf python3.13 "$ROOT/usr/bin/python3"
  mkdir -p "$ROOT/opt/roce4j"
  install -m 644 "$SCRIPT_DIR"/pyverbs/*.py "$ROOT/opt/roce4j/"
fi

# iproute2's ip also as /sbin/ip (busybox would otherwise put its own applet there)
ln -s /usr/bin/ip "$ROOT/usr/sbin/ip"
# busybox applets as symlinks, where no real program of the same name is installed
BB="${PKG_DIR[busybox-static]}/bin/busybox"
[[ -x $BB ]] || BB="${PKG_DIR[busybox-static]}/usr/bin/busybox"   # merged /usr (trixie)
for a in $("$BB" --list-full); do
  dst="$ROOT/$(merged "$a")"
  [[ -e $dst || -L $dst ]] && continue
  mkdir -p "$(dirname "$dst")"
  ln -s /usr/bin/busybox "$dst"
done
# busybox has no nohup applet: an ignored SIGHUP survives exec
printf '#!/bin/sh\ntrap "" HUP\nexec "$@"\n' >"$ROOT/usr/bin/nohup"
chmod 755 "$ROOT/usr/bin/nohup"

cat >"$ROOT/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/sh
tcpdump:x:100:100:tcpdump:/nonexistent:/bin/false
EOF
printf 'root:x:0:\ntcpdump:x:100:\n' >"$ROOT/etc/group"
printf '127.0.0.1 localhost\n::1 localhost\n' >"$ROOT/etc/hosts"
echo 'hosts: files' >"$ROOT/etc/nsswitch.conf"
echo 'rxe-peer' >"$ROOT/etc/hostname"
install -m 755 "$SCRIPT_DIR/init.sh" "$ROOT/init"

# kernel modules: the dependency closure of MODULES only
KTREE=${PKG_DIR[$KPKG]}
# merged /usr (trixie): the modules are in usr/lib/modules; depmod and modprobe -d look in lib/modules
if [[ ! -e $KTREE/lib && -d $KTREE/usr/lib/modules ]]; then
  ln -s usr/lib "$KTREE/lib"
fi
[[ -d $KTREE/lib/modules/$KREL ]] || die "$KPKG has no lib/modules/$KREL"
depmod -b "$KTREE" "$KREL"
mkdir -p "$ROOT/usr/lib/modules/$KREL"
for m in "${MODULES[@]}"; do
  modprobe -d "$KTREE" -S "$KREL" --show-depends "$m" \
    || die "kernel $KREL has no module $m"
done | awk '$1 == "insmod" { print $2 }' | sort -u | while read -r ko; do
  rel=${ko#"$KTREE"/lib/modules/"$KREL"/}
  mkdir -p "$ROOT/usr/lib/modules/$KREL/$(dirname "$rel")"
  cp "$ko" "$ROOT/usr/lib/modules/$KREL/$rel"
done
cp "$KTREE/lib/modules/$KREL"/modules.{order,builtin,builtin.modinfo} "$ROOT/usr/lib/modules/$KREL/"
depmod -b "$ROOT" "$KREL"
NMOD=$(find "$ROOT/usr/lib/modules/$KREL" -name '*.ko*' | wc -l)

# ---- pack ----------------------------------------------------------------------------------------
(cd "$ROOT" && find . -mindepth 1 | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0 --reproducible) \
  | gzip -9n >"$WORK/initrd.img"
cp "$KTREE/boot/vmlinuz-$KREL" "$WORK/vmlinuz"
{
  echo "# roce4j rxe-vm image, built $(date -u +%Y-%m-%dT%H:%M:%SZ) by build-image.sh ($STAMP)"
  echo "# kernel-release $KREL"
  echo "# packages with files in the image:"
  for k in "${!SELECT[@]}"; do echo "${k%%|*}"; done | sort -u \
    | awk -v k="$KPKG" 'NR == FNR { used[$1] = 1; next } ($1 in used) || $1 == k' - <(sort -u "$WORK/fetched")
  echo "# fetched for the closure but not needed in the image:"
  for k in "${!SELECT[@]}"; do echo "${k%%|*}"; done | sort -u \
    | awk -v k="$KPKG" 'NR == FNR { used[$1] = 1; next } !($1 in used) && $1 != k { print "#   " $0 }' - <(sort -u "$WORK/fetched")
} >"$WORK/versions.txt"

rm -f "$CACHE/stamp"
mv -f "$WORK/vmlinuz" "$WORK/initrd.img" "$WORK/versions.txt" "$CACHE/"
echo "$KREL" >"$CACHE/kernel-release"
echo "$WITH_TCPDUMP" >"$CACHE/tcpdump"
echo "$STAMP" >"$CACHE/stamp"

ROOT_KB=$(du -sk "$ROOT" | cut -f1)
log "image: $CACHE/vmlinuz ($(du -k "$CACHE/vmlinuz" | cut -f1) KiB)" \
    "+ initrd.img ($(du -k "$CACHE/initrd.img" | cut -f1) KiB, ${ROOT_KB} KiB unpacked, $NMOD modules)"
log "kernel $KREL; package versions in $CACHE/versions.txt"
log "build time: $(( $(date +%s) - START )) s"
