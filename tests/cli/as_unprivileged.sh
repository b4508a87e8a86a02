#!/usr/bin/env bash
# Runs a command as a user to whom file permissions apply, for tests of a file that cannot be read or
# a folder that cannot be written (chmod means nothing to root):
#   as_unprivileged.sh <command> [args...]
# Not root: runs it as it is. Root: runs it as nobody (uid/gid 65534) through util-linux's setpriv,
# after checking that nobody can run the command at all (a build tree under a private home folder
# cannot be); when that is not possible the test is skipped (exit 77, ctest's SKIP_RETURN_CODE) with
# the reason.
set -uo pipefail
if [ "$(id -u)" -ne 0 ]; then exec "$@"; fi
if ! command -v setpriv >/dev/null; then
  echo "SKIP: running as root, where permissions deny nothing, and setpriv (util-linux) is not installed"
  exit 77
fi
drop=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
if ! "${drop[@]}" test -x "$1"; then
  echo "SKIP: running as root, and user 65534 cannot run $1 (a folder on its path is private)"
  exit 77
fi
exec "${drop[@]}" "$@"
