#!/usr/bin/env bash
# Writes one man page per railtune command (railtune.1, railtune-topo.1, railtune-topo-discover.1, ...)
# from the CLI's own --help, with Debian's help2man. The commands are found by walking each help's
# "Subcommands:" section, so a new subcommand gets its page without a change here.
#   scripts/make-man.sh <railtune program> <output folder>
# The program may be a wrapper (an aarch64 CLI run under qemu); the page's name comes from the
# program's --version line. The hidden `doctor probe` has no page (CLI11 lists no hidden commands).
set -euo pipefail

program=$1 out=$2
command -v help2man >/dev/null || { echo "make-man: help2man is not installed (apt-get install help2man)" >&2; exit 1; }
mkdir -p "$out"
# Reproducible pages: help2man dates them from SOURCE_DATE_EPOCH when set.
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$(dirname "$0")/.." log -1 --format=%ct 2>/dev/null || date +%s)}

subcommands() {  # <words...>: the subcommands listed by `railtune <words> --help`
  "$program" "$@" --help | awk '/^Subcommands:/ { listing = 1; next } listing && NF == 0 { listing = 0 }
                                listing && /^  [a-z]/ { print $1 }'
}

page() {  # <words...>: the page of `railtune <words>`
  local name description
  name=$(printf '%s' "railtune${*:+ $*}" | tr ' ' '-')
  description=$("$program" "$@" --help | awk 'NF { print; exit }')
  help2man --no-info --no-discard-stderr --version-option=--version --help-option="$* --help" \
    --name="$description" --output="$out/$name.1" "$program"
  # help2man names every page after the program: give each its command's name (roff's hyphen is \-).
  local title=${name^^} roff=${name//-/\\-}
  sed -i -e "s/^\.TH RAILTUNE /.TH ${title//-/\\-} /" -e "/^\.SH NAME/{n;s/^railtune /${roff} /}" "$out/$name.1"
  local sub
  for sub in $(subcommands "$@"); do page "$@" "$sub"; done
}

page
echo "make-man: $(ls "$out" | wc -l) pages in $out"
