#!/usr/bin/env bash
# The size check fails where it should: a small tree, first within the limits (the check passes), then with one
# file or one function over its limit at a time (the check fails and names the file, the line and the size).
# Lambdas, local classes, braced initialisers, comments and string literals must not confuse the count.
# Usage: breaks_sizes.sh CHECK_SIZES_PY
set -euo pipefail
check=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# lines N: N lines of plain statements.
lines() { for _ in $(seq "$1"); do echo "  ++x;"; done; }

make_tree() {
  rm -rf "$work/tree"
  mkdir -p "$work/tree/common" "$work/tree/analysis" "$work/tree/tests/support" "$work/tree/tests/unit"
  {
    echo "namespace a {"
    echo "int withLambda(int x) {"  # 60 lines with its braces: at the limit
    echo "  auto f = [&](int y) {"
    lines 20
    echo "    return y;"
    echo "  };"
    echo "  struct Local { int v = 0; int get() const { return v; } };"
    echo "  const char* text = \"{ not a brace }\";  // { nor this"
    lines 32
    echo "  return f(x) + Local{}.get() + (text != nullptr);"
    echo "}"
    echo "const int kTable[] = {1, 2, 3};"
    echo "struct Options { int a = 0; int b{1}; };"
    echo "}  // namespace a"
  } >"$work/tree/common/a.cc"
  { echo "int small() {"; lines 5; echo "  return 0;"; echo "}"; } >"$work/tree/analysis/b.cc"
  # A test file is not held to the limits; test-support code is.
  { echo "int longTest() {"; lines 100; echo "  return 0;"; echo "}"; } >"$work/tree/tests/unit/x_test.cc"
  { echo "int helper() {"; lines 5; echo "  return 0;"; echo "}"; } >"$work/tree/tests/support/helper.cc"
}

# expect_pass and expect_fail WHAT EXPECTED_TEXT on "$work/tree".
# shellcheck source=tests/layering/expect_check.sh
source "$(dirname "$0")/expect_check.sh"

make_tree
expect_pass
echo "ok: the tree within the limits passes"

make_tree
sed -i 's/^  return f(x)/  ++x;\n  return f(x)/' "$work/tree/common/a.cc"
expect_fail "a function one line over" "common/a.cc:2: function withLambda of 61 lines (at most 60)"

make_tree
{ echo "struct S {"; echo "  int member(int x) const {"; lines 60; echo "    return x;"; echo "  }"; echo "};"; } \
  >>"$work/tree/analysis/b.cc"
expect_fail "a member function defined in its class" "analysis/b.cc:10: function member of 63 lines"

make_tree
{ echo "Foo::Foo(int x) : a_(x), b_{x} {"; lines 61; echo "}"; } >>"$work/tree/analysis/b.cc"
expect_fail "a constructor with initialisers" "analysis/b.cc:9: function Foo::Foo of 63 lines"

make_tree
{ echo "int a() {"; echo "  return 0;"; echo "}"; lines 450; } >"$work/tree/analysis/c.cc"
expect_fail "a file over 450 lines" "analysis/c.cc:1: file of 453 lines (at most 450)"

make_tree
{ echo "int helperLong() {"; lines 61; echo "}"; } >>"$work/tree/tests/support/helper.cc"
expect_fail "test-support code" "tests/support/helper.cc:9: function helperLong of 63 lines"
