#!/usr/bin/env bash
# The floor check fails where it should: a small tree laid out as the repository is, first clean
# (the check passes), then with one bad include or one stale README row at a time (the check fails
# and names the file, the line and the rule). Usage: breaks_floors.sh CHECK_FLOORS_PY
set -euo pipefail
check=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

folders=(nccl common formats fabric topo_gen tuner_plugin net_plugin profiler_plugin emulator analysis cli tests)
make_tree() {
  rm -rf "$work/tree"
  mkdir -p "$work/tree"
  {
    echo "# railtune"
    echo "## Layout"
    echo "| folder | floor |"
    echo "|---|---|"
    for f in "${folders[@]}"; do echo "| \`$f/\` | x |"; done
    echo "## Next"
  } >"$work/tree/README.md"
  for f in "${folders[@]}"; do
    mkdir -p "$work/tree/$f"
    echo "// $f" >"$work/tree/$f/a.h"
  done
  # Allowed: each floor on the ones below, the same-floor uses the design names, tests on anything.
  printf '#include "common/a.h"\n#include "nccl/a.h"\n' >"$work/tree/formats/b.h"
  printf '#include "formats/a.h"\n' >"$work/tree/net_plugin/b.h"
  printf '#include "fabric/a.h"\n' >"$work/tree/topo_gen/b.h"
  printf '#include "fabric/a.h"\n#include "formats/a.h"\n' >"$work/tree/analysis/b.h"
  printf '#include "analysis/a.h"\n#include "formats/a.h"\n' >"$work/tree/cli/b.h"
  # The one kind of plugin code the CLI may use: what CLI_PLUGIN_USES names, here the tuner's in `tuner decisions`.
  mkdir -p "$work/tree/cli/tuner"
  printf '#include "tuner_plugin/model/advise.h"\n' >"$work/tree/cli/tuner/compute.cc"
  printf '#include "cli/a.h"\n#include "net_plugin/a.h"\n' >"$work/tree/tests/b.h"
}

# expect_pass and expect_fail WHAT EXPECTED_TEXT on "$work/tree".
# shellcheck source=tests/layering/expect_check.sh
source "$(dirname "$0")/expect_check.sh"

make_tree
expect_pass
echo "ok: the clean tree passes"

make_tree
printf '#include "net_plugin/a.h"\n' >>"$work/tree/formats/b.h"
expect_fail "a format that includes a plugin" "formats/b.h:3: formats -> net_plugin (floor 1 may not use floor 2)"

make_tree
printf '#include "profiler_plugin/a.h"\n' >"$work/tree/net_plugin/c.cc"
expect_fail "one plugin that includes another" "net_plugin/c.cc:1: net_plugin -> profiler_plugin (the plugins meet only through NCCL and files)"

make_tree
printf '#include "net_plugin/a.h"\n' >"$work/tree/analysis/c.cc"
expect_fail "an analysis that includes a plugin's code" "analysis -> net_plugin (analysis meets the plugins only through the NCCL ABI and their files)"

make_tree
mkdir -p "$work/tree/net_plugin/transports/ib"
printf '// abi\n' >"$work/tree/net_plugin/transports/ib/verbs_abi.h"
printf '#include "net_plugin/transports/ib/verbs_abi.h"\n' >"$work/tree/emulator/c.cc"
expect_pass
echo "ok: the emulator may include the libibverbs ABI the verbs transport declares"
printf '#include "net_plugin/transports/ib/verbs_table.h"\n' >>"$work/tree/emulator/c.cc"
expect_fail "the emulator that includes the verbs transport's code" "emulator/c.cc:2: emulator -> net_plugin (emulator meets the plugins only through the NCCL ABI and their files)"

make_tree
mkdir -p "$work/tree/net_plugin/transports/ib" "$work/tree/net_plugin/transports/socket" "$work/tree/net_plugin/transports/tcp_setup"
printf '#include "net_plugin/transports/tcp_setup/a.h"\n' >"$work/tree/net_plugin/transports/ib/c.cc"
printf '#include "net_plugin/transports/tcp_setup/a.h"\n' >"$work/tree/net_plugin/transports/socket/c.cc"
expect_pass
echo "ok: both transports may include the TCP setup beside them"
printf '#include "net_plugin/transports/socket/a.h"\n' >>"$work/tree/net_plugin/transports/ib/c.cc"
expect_fail "the verbs transport that includes the socket transport's files" "net_plugin/transports/ib/c.cc:2: net_plugin -> net_plugin (the transports stand side by side"

make_tree
printf '#include "net_plugin/transports/ib/verbs_abi.h"\n' >"$work/tree/analysis/c.cc"
expect_fail "an analysis that includes the verbs ABI" "analysis -> net_plugin (analysis meets the plugins only through the NCCL ABI and their files)"

make_tree
printf '#include "net_plugin/devices/if_filter.h"\n' >"$work/tree/cli/c.cc"
expect_fail "the CLI that includes a plugin's code" "cli/c.cc:1: cli -> net_plugin (cli meets the plugins through formats/"

make_tree
printf '#include "tuner_plugin/a.h"\n' >"$work/tree/cli/tuner/other.cc"
expect_fail "the CLI's use of the tuner from a file not named" "cli/tuner/other.cc:1: cli -> tuner_plugin"

make_tree
printf '#include "profiler_plugin/a.h"\n' >>"$work/tree/cli/tuner/compute.cc"
expect_fail "a named CLI file that includes another plugin" "cli/tuner/compute.cc:2: cli -> profiler_plugin"

make_tree
printf '#include "cli/tuner/compute.h"\n' >"$work/tree/cli/tuner/compute.cc"
expect_fail "a named CLI use that is gone" "cli/tuner/compute.cc: CLI_PLUGIN_USES allows it tuner_plugin/, which it no longer includes"

make_tree
printf '#include "emulator/a.h"\n' >"$work/tree/fabric/c.cc"
expect_fail "floor 2 that includes floor 3" "fabric/c.cc:1: fabric -> emulator (floor 2 may not use floor 3)"

make_tree
printf '#include "topo_gen/a.h"\n' >"$work/tree/fabric/c.cc"
expect_fail "a sideways use the design does not name" "fabric -> topo_gen (sideways on floor 2)"

make_tree
printf '#include "cli/a.h"\n' >"$work/tree/common/c.cc"
expect_fail "common that includes the CLI" "common -> cli (floor 0 may not use floor 4)"

make_tree
mkdir -p "$work/tree/newfolder"
printf '// new\n' >"$work/tree/newfolder/x.cc"
expect_fail "a source folder without a floor" "newfolder/x.cc: folder 'newfolder' has no floor"

make_tree
rm -rf "$work/tree/topo_gen"
expect_fail "a README row for a folder that is gone" "Layout table lists \`topo_gen/\`, which does not exist"

make_tree
mkdir -p "$work/tree/docs"
echo "x" >"$work/tree/docs/x.md"
expect_fail "a folder the README does not list" "Layout table lacks \`docs/\`"
echo "breaks_floors: every case refused as it should be"
