#!/usr/bin/env bash
# The design-table check fails where it should: a small tree with a docs/design.md whose tables match it
# (the check passes), then one stale name at a time (the check fails and names it).
# Usage: breaks_design_tables.sh CHECK_DESIGN_TABLES_PY
set -euo pipefail
check=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

floors=(nccl:0 common:0 formats:1 fabric:2 topo_gen:2 tuner_plugin:2 net_plugin:2 profiler_plugin:2 env_plugin:2 emulator:3
  analysis:3 nccl-tests-integration:3 eval:3 doctor:3 cli:4)
make_tree() {  # the Layout rows, one per line
  rm -rf "$work/tree"
  mkdir -p "$work/tree/docs" "$work/tree/common/sub" "$work/tree/tests"
  touch "$work/tree/common/queue.h" "$work/tree/common/sub/deep.h" "$work/tree/tests/a.sh"
  {
    echo "# design"
    echo "## Layout"
    echo "| folder | what |"
    echo "|---|---|"
    echo "| \`common/\` | the queue (\`queue.h\`), \`sub/\`, a deep one (\`deep.h\`), \`railtune_common\` |"
    echo "| \`docs/\` | this page |"
    echo "| \`tests/\` | \`a.sh\` |"
    for f in "${floors[@]}"; do
      [ "${f%%:*}" = common ] || echo "| \`${f%%:*}/\` | x |"
    done
    echo "## Floors"
    echo "| floor | folders |"
    echo "|---|---|"
    for f in "${floors[@]}"; do echo "| ${f##*:} | \`${f%%:*}/\` |"; done
    echo "## Next"
  } >"$work/tree/docs/design.md"
  for f in "${floors[@]}"; do
    mkdir -p "$work/tree/${f%%:*}"
    touch "$work/tree/${f%%:*}/x.h"
  done
}

# expect_pass and expect_fail WHAT EXPECTED_TEXT on "$work/tree".
# shellcheck source=tests/layering/expect_check.sh
source "$(dirname "$0")/expect_check.sh"

make_tree
python3 "$check" "$work/tree" >/dev/null || { echo "FAIL: the matching tree was refused"; python3 "$check" "$work/tree"; exit 1; }
echo "ok: the matching tree passes"

make_tree
rm "$work/tree/common/queue.h"
expect_fail "a file the table names is gone" "Layout row \`common/\` names \`queue.h\`, which does not exist"

make_tree
rm -r "$work/tree/common/sub"
expect_fail "a folder the table names is gone" "names \`sub/\`, which does not exist"

make_tree
mkdir -p "$work/tree/newfolder" && touch "$work/tree/newfolder/a.h"
expect_fail "a top-level folder without a row" "Layout table lacks a row for \`newfolder/\`"

make_tree
sed -i 's/^| 4 | `cli\/` |$/| 3 | `cli\/` |/' "$work/tree/docs/design.md"
expect_fail "a folder on the wrong floor" "Floors table puts \`cli/\` on floor 3; the check says 4"
