# The harness the layering checks' self-tests share (breaks_floors.sh, breaks_design_tables.sh, breaks_sizes.sh):
# each builds a small tree in "$work/tree" and runs the check "$check" on it. Sourced, not run.

# expect_pass: the check accepts the tree as it is.
expect_pass() {
  local out
  if ! out=$(python3 "$check" "$work/tree" 2>&1); then
    echo "FAIL: the clean tree was refused:"
    echo "$out"
    exit 1
  fi
}

# expect_fail WHAT EXPECTED_TEXT: the check exits 1 and says EXPECTED_TEXT.
expect_fail() {
  local what=$1 expected=$2 out rc=0
  out=$(python3 "$check" "$work/tree" 2>&1) || rc=$?
  if [ "$rc" -ne 1 ] || ! grep -qF -- "$expected" <<<"$out"; then
    echo "FAIL: $what: expected exit 1 and '$expected', got exit $rc:"
    echo "$out"
    exit 1
  fi
  echo "ok: $what"
}
