#!/usr/bin/env bash
# Installs the Debian 12 packages railtune needs to build and test, and nothing else.
#   scripts/install-deps.sh         the native build (make demo, make test)
#   scripts/install-deps.sh arm64   also the aarch64 cross build (make build-arm64): the cross
#                                   compiler, qemu to run its tests, and the :arm64 libraries
# Idempotent: checks each package with dpkg-query first and prints nothing when all are present.
# Only root can install; a non-root user with everything present passes silently.
set -euo pipefail

packages=(
  build-essential g++ cmake ninja-build ccache
  clang-14 libclang-rt-14-dev clang-format
  libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev nlohmann-json3-dev
  libyaml-cpp-dev libpugixml-dev libhwloc-dev
  python3 python3-jsonschema binutils iptables
  libsimdjson-dev chromium time
  help2man dpkg-dev
  # For the tests only, never a plugin dependency (the .so opens libibverbs with dlopen and links nothing
  # of rdma-core): <infiniband/verbs.h> to check verbs_abi.h against, and a real libibverbs (with its
  # providers) that the IB tests must live beside, as in every training image. .ci/run's last stage
  # removes it again to run the IB suites without it.
  libibverbs-dev
)
if [ "${1:-}" = arm64 ]; then
  # Header-only libraries (CLI11, nlohmann-json) are shared by both architectures.
  packages+=(
    g++-aarch64-linux-gnu binutils-aarch64-linux-gnu qemu-user-static
    libgtest-dev:arm64 libgmock-dev:arm64 libpugixml-dev:arm64
  )
elif [ -n "${1:-}" ]; then
  echo "install-deps: unknown argument '$1' (expected nothing or arm64)" >&2
  exit 2
fi

# With arm64 added, a library is installed once per architecture and dpkg-query answers for each:
# a name without an architecture means the native one (or an Architecture: all package).
native=$(dpkg --print-architecture)
installed() {  # <package>
  dpkg-query -W -f='${binary:Package} ${db:Status-Status}\n' "$1" 2>/dev/null |
    awk -v name="$1" -v native="$1:$native" '($1 == name || $1 == native) && $2 == "installed" { found = 1 }
                                             END { exit !found }'
}
missing=()
for pkg in "${packages[@]}"; do
  installed "$pkg" || missing+=("$pkg")
done

# yaml-cpp's and simdjson's -dev packages are not Multi-Arch: same: installing the :arm64 one would
# remove the native one. Their aarch64 libraries (co-installable) are installed; their development
# files are unpacked beside them, where cmake/aarch64-linux-gnu.cmake looks (CMAKE_FIND_ROOT_PATH).
cross_root=/opt/railtune-cross/arm64
cross_devs=(libyaml-cpp-dev libsimdjson-dev)
cross_libs=(libyaml-cpp0.7 libsimdjson14)
unpack_cross_devs() {
  local work deb
  work=$(mktemp -d)
  chmod 755 "$work"  # apt-get download hands the file to its _apt user
  (cd "$work" && apt-get download -qq "${cross_devs[@]/%/:arm64}" "${cross_libs[@]/%/:arm64}")
  mkdir -p "$cross_root"
  for deb in "$work"/*.deb; do dpkg-deb -x "$deb" "$cross_root"; done
  rm -rf "$work"
}
need_cross_devs=0
if [ "${1:-}" = arm64 ]; then
  for lib in "${cross_libs[@]}"; do installed "$lib:arm64" || missing+=("$lib:arm64"); done
  [ -d "$cross_root/usr/lib/aarch64-linux-gnu/cmake/yaml-cpp" ] &&
    [ -d "$cross_root/usr/lib/aarch64-linux-gnu/cmake/simdjson" ] || need_cross_devs=1
fi

if [ ${#missing[@]} -eq 0 ] && [ $need_cross_devs -eq 0 ]; then exit 0; fi

if [ "$(id -u)" -ne 0 ]; then
  [ $need_cross_devs -eq 1 ] && echo "install-deps: missing the aarch64 development files in $cross_root" >&2
  echo "install-deps: missing Debian packages: ${missing[*]}" >&2
  echo "install-deps: run 'make deps' as root, or: apt-get install ${missing[*]}" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
if [ "${1:-}" = arm64 ] && ! dpkg --print-foreign-architectures | grep -x arm64 >/dev/null; then
  dpkg --add-architecture arm64
fi
apt-get update -qq
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
if [ $need_cross_devs -eq 1 ]; then
  echo "install-deps: unpacking the aarch64 development files of ${cross_devs[*]} into $cross_root"
  unpack_cross_devs
fi
