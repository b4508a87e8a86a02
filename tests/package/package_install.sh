#!/usr/bin/env bash
# package_install.sh <build dir> <work dir> <glibc floor> <portable CLI: 1 or 0>
# Builds this build's .deb and .tar.gz with cpack, unpacks each into a scratch root (dpkg-deb -x; tar),
# and checks: the layout under /opt/railtune, the .deb's fields, the CLI runs from the unpacked tree,
# and railtune doctor loads each plugin (a real dlopen in a child process) by the path users set in
# NCCL_{NET,TUNER,PROFILER}_PLUGIN.
set -euo pipefail
build=$1 work=$2 floor=$3 portable=$4
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }

cpack --config "$build/CPackConfig.cmake" -G "DEB;TGZ" -B "$work/out" >"$work/cpack.log" 2>&1 ||
  { cat "$work/cpack.log"; fail "cpack failed"; }
deb=$(ls "$work"/out/railtune_*.deb) || fail "no .deb in $work/out"
tgz=$(ls "$work"/out/railtune-*.tar.gz) || fail "no .tar.gz in $work/out"
echo "built: $(basename "$deb") $(basename "$tgz")"

# The .deb's control fields.
arch=$(dpkg --print-architecture)
[ "$(dpkg-deb -f "$deb" Package)" = railtune ] || fail "Package is not railtune"
[ "$(dpkg-deb -f "$deb" Architecture)" = "$arch" ] || fail "Architecture is $(dpkg-deb -f "$deb" Architecture), not $arch"
dpkg-deb -f "$deb" Depends | grep "libc6 (>= $floor)" >/dev/null || fail "Depends does not name libc6 (>= $floor)"

check_tree() {  # <prefix>: the installed layout
  local prefix=$1 kind
  [ -x "$prefix/bin/railtune" ] || fail "$prefix/bin/railtune missing"
  for kind in net tuner profiler env; do
    [ -f "$prefix/lib/libnccl-$kind-railtune.so" ] || fail "$prefix/lib/libnccl-$kind-railtune.so missing"
  done
  [ -f "$prefix/lib/railtune/verbs_sim/libibverbs.so.1" ] || fail "$prefix/lib/railtune/verbs_sim/libibverbs.so.1 missing"
  [ ! -e "$prefix/lib/libibverbs.so.1" ] || fail "the verbs simulator sits in $prefix/lib, where it passes for the system's"
  [ -f "$prefix/share/doc/railtune/README.md" ] || fail "README missing under $prefix/share/doc/railtune"
  [ -f "$prefix/share/doc/railtune/training-image.md" ] || fail "training-image.md missing"
  [ -f "$prefix/share/railtune/schemas/rail-map.schema.json" ] || fail "schemas missing under $prefix/share/railtune"
  # A portable CLI carries the one shared library it needs and finds it there, not in the system.
  if [ "$portable" = 1 ]; then
    readelf -d "$prefix/bin/railtune" | grep 'RUNPATH.*\$ORIGIN/\.\./lib' >/dev/null || fail "the CLI's RUNPATH is not \$ORIGIN/../lib"
    ls "$prefix"/lib/libsimdjson.so.* >/dev/null 2>&1 || fail "the CLI needs libsimdjson but $prefix/lib has none"
    local found
    found=$(ldd "$prefix/bin/railtune" | sed -n 's/.*libsimdjson[^ ]* => \([^ ]*\) .*/\1/p')
    [ -n "$found" ] && [ "$(dirname "$(realpath "$found")")" = "$(realpath "$prefix/lib")" ] ||
      fail "the CLI does not take libsimdjson from $prefix/lib but from '$found'"
  fi
}

run_from() {  # <prefix> <label>: the CLI runs there and loads the plugins by their documented paths
  local prefix=$1 label=$2 report
  "$prefix/bin/railtune" --version | grep '^railtune ' >/dev/null || fail "$label: railtune --version"
  report=$(NCCL_NET_PLUGIN=$prefix/lib/libnccl-net-railtune.so \
    NCCL_TUNER_PLUGIN=$prefix/lib/libnccl-tuner-railtune.so \
    NCCL_PROFILER_PLUGIN=$prefix/lib/libnccl-profiler-railtune.so \
    NCCL_ENV_PLUGIN=$prefix/lib/libnccl-env-railtune.so \
    "$prefix/bin/railtune" doctor --no-nccl --no-nvml) || true
  for kind in net tuner profiler env; do
    echo "$report" | grep -E "^ok +plugin\.$kind\.load .*$prefix/lib/libnccl-$kind-railtune.so" >/dev/null ||
      { echo "$report"; fail "$label: doctor did not load the $kind plugin from $prefix/lib"; }
  done
  echo "ok: $label: the CLI runs and loads the four plugins from $prefix/lib"
}

# .deb: unpacked into a scratch root; its files sit under opt/railtune.
dpkg-deb -x "$deb" "$work/root"
check_tree "$work/root/opt/railtune"
run_from "$work/root/opt/railtune" ".deb"
if [ -d "$build/man" ]; then
  [ -f "$work/root/opt/railtune/share/man/man1/railtune-doctor.1" ] || fail "man pages were built but not packaged"
fi

# .tar.gz: relocatable, the prefix's contents at its top; unpacked somewhere else entirely.
mkdir -p "$work/elsewhere/railtune"
tar -xzf "$tgz" -C "$work/elsewhere/railtune"
check_tree "$work/elsewhere/railtune"
run_from "$work/elsewhere/railtune" ".tar.gz"
echo "ok: package layout, fields and loading"
