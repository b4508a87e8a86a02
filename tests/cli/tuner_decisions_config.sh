#!/usr/bin/env bash
# `railtune tuner decisions --config FILE` with a FILE that is missing or does not parse: exit status 1,
# a last error saying that the rules cannot be used, and each warning once: in the table's header (table),
# in the document's `warnings` (json) or on standard error (csv), never in two places.
#   tuner_decisions_config.sh <railtune binary> <rules file that does not parse> <work folder>
set -uo pipefail
railtune=$1 bad=$2 work=$3
mkdir -p "$work"
status=0
fail() {
  echo "FAIL: $*"
  status=1
}
for file in "$bad" "$work/no-such-rules.csv"; do
  for format in table csv json; do
    "$railtune" tuner decisions --nodes 1 --ranks 4 --collectives AllReduce --config "$file" --format "$format" \
      >"$work/out" 2>"$work/err"
    rc=$?
    echo "== --config $file --format $format: exit status $rc"
    cat "$work/out" "$work/err"
    [ $rc -eq 1 ] || fail "$file, $format: exit status $rc, expected 1"
    grep -q "^railtune tuner decisions: the tuner's rules $file cannot be used" "$work/err" || fail "$file, $format: no error naming $file"
    case $format in
      table) grep '^warning: ' "$work/out" >"$work/warnings" ;;
      csv) sed -n 's/^railtune: warning: /warning: /p' "$work/err" >"$work/warnings" ;;
      json) python3 -c 'import json, sys; [print("warning: " + w) for w in json.load(open(sys.argv[1]))["warnings"]]' \
        "$work/out" >"$work/warnings" ;;
    esac
    [ -s "$work/warnings" ] || fail "$file, $format: no warning"
    grep -q "$(basename "$file")" "$work/warnings" || fail "$file, $format: no warning names the file"
    [ -z "$(sort "$work/warnings" | uniq -d)" ] || fail "$file, $format: a warning printed twice"
    # The same fact in two words (the plugin's WARN and the command's own reading) is a repeat too.
    told=$(grep -cE "No such file or directory|$(basename "$file"):[0-9]+:" "$work/warnings")
    [ "$told" -eq 1 ] || fail "$file, $format: the file's error told $told times, expected once"
    if [ "$format" != csv ] && grep -q 'warning: ' "$work/err"; then
      fail "$file, $format: warnings on standard error as well as in the output"
    fi
  done
done
[ $status -eq 0 ] && echo "ok: exit status 1 and each warning once, in every format"
exit $status
