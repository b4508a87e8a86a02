#!/usr/bin/env bash
# `railtune paths synth` as a user runs it: a small job (64 ranks on four small racks, 20 collectives,
# with network summaries) whose every line fits its format's schema and whose truth.json fits
# synth-truth.schema.json; the same seed writes the same bytes, another seed other bytes.
#   paths_synth_files.sh <railtune> <validate_jsonl.py> <validate_schema.py> <formats dir> <fabric> <scratch>
set -euo pipefail
railtune=$1 validate=$2 validate_schema=$3 formats=$4 fabric=$5 scratch=$6
fail() { echo "FAIL: $*"; exit 1; }

rm -rf "$scratch"
mkdir -p "$scratch"
synth() {  # synth <folder> <seed>
  "$railtune" paths synth --ranks 64 --collectives 20 --net --cross-rail 2 --fabric "$fabric" --seed "$2" \
    --out "$scratch/$1" --truth "$scratch/$1.truth.json"
}
synth a 7 | tee "$scratch/a.out"
grep -Eq '^wrote 192 files' "$scratch/a.out" || fail "expected 192 files (3 per rank)"
grep -Eq '^injected cross-rail: rank [0-9]+ .* sends through mlx5_[0-9]' "$scratch/a.out" || fail "no cross-rail line"

cd "$scratch/a"
path_logs=()
for f in ./*.jsonl; do
  case $f in *.collectives.jsonl | *.net.jsonl) ;; *) path_logs+=("$f") ;; esac
done
[ "${#path_logs[@]}" -eq 64 ] || fail "expected 64 path logs, found ${#path_logs[@]}"
"$validate" "$formats/path-log.schema.json" "${path_logs[@]}" --min-records 96 >/dev/null
"$validate" "$formats/profile-collectives.schema.json" ./*.collectives.jsonl --min-records 20 >/dev/null
"$validate" "$formats/profile-net.schema.json" ./*.net.jsonl --min-records 20 >/dev/null
"$validate_schema" "$formats/synth-truth.schema.json" "$scratch/a.truth.json"
cd - >/dev/null

synth b 7 >/dev/null
diff -r "$scratch/a" "$scratch/b" >/dev/null || fail "the same seed wrote different files"
cmp -s "$scratch/a.truth.json" "$scratch/b.truth.json" || fail "the same seed wrote a different truth.json"
synth c 8 >/dev/null
! diff -rq "$scratch/a" "$scratch/c" >/dev/null || fail "another seed wrote the same files"
echo "ok: every line fits its schema; seeds reproduce"
