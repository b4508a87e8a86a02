#!/usr/bin/env bash
# Rule 5 of the architecture, for one plugin .so:
#   symbols <so> <name>...   the defined dynamic symbols are exactly the given NCCL symbols (nm -D)
#   needed  <so> [sanitized] [+soname...]
#                            NEEDED lists glibc libraries and libgcc_s.so.1 only, and the +sonames
#                            given (readelf -d); sanitizer builds are exempt
#   floor   <so> <glibc> [sanitized]
#                            no version need above GLIBC_<glibc>, none on libstdc++ (GLIBCXX_, CXXABI_),
#                            none above GCC_7.0.0 on libgcc_s (readelf -V); sanitizer builds are exempt
set -euo pipefail

mode=$1 so=$2
shift 2
[ -f "$so" ] || { echo "FAIL: $so does not exist"; exit 1; }

case "$mode" in
  symbols)
    actual=$(nm -D --defined-only "$so" | awk '{print $NF}' | sort)
    expected=$(printf '%s\n' "$@" | sort)
    if [ "$actual" != "$expected" ]; then
      echo "FAIL: $(basename "$so") exports other symbols than its NCCL ones"
      diff <(echo "$expected") <(echo "$actual") | sed -n 's/^< /  missing: /p; s/^> /  unexpected: /p'
      exit 1
    fi
    echo "ok: $(basename "$so") exports exactly: $(echo $actual)"
    ;;
  needed)
    if [ "${1:-}" = sanitized ]; then
      echo "skipped: sanitizer builds link the C++ runtime and the sanitizer runtime dynamically"
      exit 0
    fi
    extra=""
    for name in "$@"; do
      case $name in +*) extra="$extra|$(printf '%s' "${name#+}" | sed 's/[.]/\\./g')" ;; esac
    done
    needed=$(readelf -d "$so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
    glibc="^(libc\.so\.6|libm\.so\.6|libdl\.so\.2|libpthread\.so\.0|librt\.so\.1|ld-linux-x86-64\.so\.2|ld-linux-aarch64\.so\.1|libgcc_s\.so\.1${extra})$"
    foreign=$(echo "$needed" | grep -Ev "$glibc" || true)
    if [ -n "$foreign" ]; then
      echo "FAIL: $(basename "$so") needs more than glibc and libgcc_s: $(echo $foreign)"
      exit 1
    fi
    echo "ok: $(basename "$so") needs only: $(echo $needed)"
    ;;
  floor)
    floor=$1
    if [ "${2:-}" = sanitized ]; then
      echo "skipped: sanitizer builds link the C++ runtime and the sanitizer runtime dynamically"
      exit 0
    fi
    # The version needs section lists, per library, each symbol version the .so binds to.
    needs=$(readelf -V --wide "$so" | sed -n 's/.*Name: \([A-Z_]*[0-9][0-9.]*\).*/\1/p' | sort -u)
    if ! echo "$needs" | grep '^GLIBC_' >/dev/null; then
      echo "FAIL: readelf -V shows no GLIBC_ version need in $(basename "$so"): nothing to check"
      exit 1
    fi
    above() {  # <version> <ceiling>: true when version > ceiling
      [ "$1" != "$2" ] && [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | tail -n1)" = "$1" ]
    }
    bad=()
    for need in $needs; do
      case $need in
        GLIBC_PRIVATE) bad+=("$need") ;;
        GLIBC_*) above "${need#GLIBC_}" "$floor" && bad+=("$need") ;;
        GCC_*) above "${need#GCC_}" 7.0.0 && bad+=("$need") ;;
        GLIBCXX_* | CXXABI_*) bad+=("$need") ;;
      esac
    done
    if [ ${#bad[@]} -gt 0 ]; then
      echo "FAIL: $(basename "$so") needs versions above the floor (GLIBC_$floor, GCC_7.0.0, no libstdc++): ${bad[*]}"
      readelf -V --wide "$so" | sed -n '/Version needs section/,$p' | grep -F -e "File:" -e "${bad[0]}"
      exit 1
    fi
    echo "ok: $(basename "$so") needs at most GLIBC_$floor: $(echo $needs)"
    ;;
  *) echo "usage: $0 symbols|needed|floor <so> ..." >&2; exit 2 ;;
esac
