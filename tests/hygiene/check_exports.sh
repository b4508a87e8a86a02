#!/usr/bin/env bash
# Rule 5 of the architecture, for one plugin .so:
#   symbols <so> <name>...   the defined dynamic symbols are exactly the given NCCL symbols (nm -D)
#   needed  <so> [sanitized] NEEDED lists glibc libraries only (readelf -d); sanitizer builds are exempt
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
    needed=$(readelf -d "$so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
    glibc='^(libc\.so\.6|libm\.so\.6|libdl\.so\.2|libpthread\.so\.0|librt\.so\.1|ld-linux-x86-64\.so\.2|ld-linux-aarch64\.so\.1)$'
    foreign=$(echo "$needed" | grep -Ev "$glibc" || true)
    if [ -n "$foreign" ]; then
      echo "FAIL: $(basename "$so") needs more than glibc: $(echo $foreign)"
      exit 1
    fi
    echo "ok: $(basename "$so") needs only: $(echo $needed)"
    ;;
  *) echo "usage: $0 symbols|needed <so> ..." >&2; exit 2 ;;
esac
