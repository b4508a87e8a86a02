#!/usr/bin/env bash
# `railtune paths import` on logs that cannot be read, or that hold a cut Channel line (docs/paths.md, "Paths of
# any NCCL job"): each case's exit status and messages, one path per message.
#   paths_import_bad_files.sh RAILTUNE LOG_DIR OUT_DIR unreadable|loop|cut
# LOG_DIR holds node-a.7001.nccl.log and node-b.8001.nccl.log (tests/data/nccl_logs/v2_30_rails).
set -uo pipefail
railtune=$1 logs=$2 out=$3 mode=$4
rm -rf "$out" && mkdir -p "$out" || exit 1
fail() {
  printf '%s\n' "$output"
  echo "FAIL: $*"
  exit 1
}
# No message names a path twice ("b.log: b.log: cannot open").
oncePerMessage() {
  local name=${1//./\\.}
  if grep -E -- "$name.*$name" <<<"$output"; then fail "a message names $1 twice"; fi
}

case $mode in
  unreadable)
    # A log the user cannot read: not counted in "from N files", listed with its reason, exit status 2; the
    # readable one is still imported and written.
    chmod 755 "$out"
    cp "$logs/node-a.7001.nccl.log" "$out/a.log" && cp "$logs/node-b.8001.nccl.log" "$out/b.log" || exit 1
    chmod 644 "$out/a.log" && chmod 000 "$out/b.log"
    run=("$railtune")
    if [ -r "$out/b.log" ]; then  # root reads everything: the import runs as nobody instead
      command -v setpriv >/dev/null || { echo "skip: running as root without setpriv"; exit 77; }
      chmod 1777 "$out"
      run=(setpriv --reuid=65534 --regid=65534 --clear-groups "$railtune")
      setpriv --reuid=65534 --regid=65534 --clear-groups test -r "$out/b.log" &&
        { echo "skip: nobody can read a file of mode 000 here"; exit 77; }
      setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$railtune" ||
        { echo "skip: nobody cannot run $railtune"; exit 77; }
    fi
    output=$("${run[@]}" paths import "$out/a.log" "$out/b.log" -o "$out/paths" 2>&1)
    rc=$?
    [ $rc -eq 2 ] || fail "exit status $rc, expected 2"
    grep -Eq "from 1 files \(1 could not be read\)" <<<"$output" || fail "b.log counted among the files read"
    grep -qxF "  $out/b.log: cannot open: Permission denied" <<<"$output" || fail "b.log not listed with its reason"
    grep -Eq "wrote 1 path logs" <<<"$output" || fail "a.log not imported"
    oncePerMessage b.log
    ;;
  loop)
    # A symbolic link loop given by name: the system's reason (ELOOP), not "no such file".
    cp "$logs/node-a.7001.nccl.log" "$out/a.log" || exit 1
    ln -s loop2 "$out/loop1" && ln -s loop1 "$out/loop2" || exit 1
    output=$("$railtune" paths import "$out/a.log" "$out/loop1" -o "$out/paths" 2>&1)
    rc=$?
    [ $rc -eq 2 ] || fail "exit status $rc, expected 2"
    grep -qxF "  $out/loop1: cannot read: too many levels of symbolic links" <<<"$output" ||
      fail "the loop is not named as one"
    grep -qi "no such file" <<<"$output" && fail "a loop reported as a missing file"
    oncePerMessage loop1
    # Nothing readable at all: said so, exit status 2.
    output=$("$railtune" paths import "$out/loop1" -o "$out/none" 2>&1)
    rc=$?
    [ $rc -eq 2 ] || fail "exit status $rc with only a loop given, expected 2"
    grep -q "none of the logs given could be read" <<<"$output" || fail "not said that nothing could be read"
    ;;
  cut)
    # A Channel line cut right after "Channel 00/0 :" (a writer killed mid-line, a log copied while written) is a
    # counted bad line named FILE:LINE, in the import's summary and in `paths check --json`'s diagnostics.
    mkdir -p "$out/logs" || exit 1
    sed -E '6s/(Channel [0-9]+\/[0-9]+ :).*/\1/' "$logs/node-a.7001.nccl.log" >"$out/logs/cut.log" || exit 1
    grep -Eq 'NCCL INFO Channel 00/0 :$' "$out/logs/cut.log" || fail "the test log was not cut as meant"
    output=$("$railtune" paths import "$out/logs/cut.log" -o "$out/paths" 2>&1)
    rc=$?
    [ $rc -eq 0 ] || fail "exit status $rc, expected 0"
    grep -Eq "cut.log:6: unreadable Channel line: nothing after the ' : '" <<<"$output" || fail "the cut line is not named"
    grep -Eq "skipped: 1 unreadable lines" <<<"$output" || fail "the cut line is not counted in the summary"
    grep -Eq "network connections: 2 " <<<"$output" || fail "the other Channel lines are not imported"
    oncePerMessage cut.log
    output=$("$railtune" paths check "$out/logs" --json 2>/dev/null)
    python3 -c '
import json, sys
d = json.loads(sys.argv[1])
cut = [x for x in d["diagnostics"] if x["where"].endswith("cut.log:6") and "nothing after" in x["message"]]
sys.exit(0 if cut else 1)' "$output" || fail "paths check --json does not name cut.log:6"
    ;;
  *)
    echo "unknown mode $mode"
    exit 2
    ;;
esac
printf '%s\n' "$output"
echo "ok: $mode"
