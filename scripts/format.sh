#!/usr/bin/env bash
# clang-format over every C/C++ source of the project (build folders and .git excluded), and one
# shell rule: a script under `set -o pipefail` never pipes into `grep -q`. grep -q exits at its first
# match; a producer still writing then dies of SIGPIPE and pipefail fails the line that matched.
#   scripts/format.sh check   exit 1 and list the files that differ from .clang-format
#   scripts/format.sh fix     rewrite them in place
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-check}
clang_format=${CLANG_FORMAT:-clang-format}

mapfile -d '' files < <(find . \( -path ./.git -o -path './build*' -o -path ./railtune-demo \) -prune -o \
  -type f \( -name '*.h' -o -name '*.hpp' -o -name '*.cc' -o -name '*.cpp' -o -name '*.c' \) -print0 | sort -z)

case "$mode" in
  fix) "$clang_format" -i "${files[@]}" ;;
  check)
    # 64 files to a clang-format, one per core: a process per file spent most of its time starting.
    rc=0
    report=$(printf '%s\0' "${files[@]}" | xargs -0 -n 64 -P "$(nproc)" "$clang_format" --dry-run --Werror 2>&1) || rc=$?
    mapfile -t bad < <(grep -oE '^[^:]+:[0-9]+:[0-9]+: error: code should be clang-formatted' <<<"$report" |
      cut -d: -f1 | sort -u)
    if [ "$rc" -ne 0 ] && [ ${#bad[@]} -eq 0 ]; then  # it failed for another reason: say which
      printf 'format-check: %s failed:\n%s\n' "$clang_format" "$report" >&2
      exit 1
    fi
    if [ ${#bad[@]} -gt 0 ]; then
      echo "format-check: ${#bad[@]} of ${#files[@]} files differ from .clang-format (fix: scripts/format.sh fix):"
      printf '  %s\n' "${bad[@]}"
      exit 1
    fi
    mapfile -t early < <(git ls-files -z '*.sh' .ci/run | xargs -0 grep -l pipefail |
      xargs -r grep -nE '\|[[:space:]]*grep[[:space:]]+-[A-Za-z]*q' || true)
    if [ ${#early[@]} -gt 0 ]; then
      echo "format-check: ${#early[@]} pipe(s) into grep -q under pipefail (grep ... >/dev/null reads to the end):"
      printf '  %s\n' "${early[@]}"
      exit 1
    fi
    echo "format-check: ${#files[@]} files clean"
    ;;
  *) echo "usage: $0 check|fix" >&2; exit 2 ;;
esac
