#!/usr/bin/env bash
# Installs the Debian 12 packages railtune needs to build and test, and nothing else.
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
)

missing=()
for pkg in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
  [ "$status" = "installed" ] || missing+=("$pkg")
done

[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing Debian packages: ${missing[*]}" >&2
  echo "install-deps: run 'make deps' as root, or: apt-get install ${missing[*]}" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
