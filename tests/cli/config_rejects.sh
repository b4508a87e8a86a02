#!/usr/bin/env bash
# `railtune config` applies the parameter table's rules, the same the plugins apply: each value below is
# one the plugins reject, so config must exit non-zero and name it in exactly one error line.
#   config_rejects.sh <railtune binary>
set -uo pipefail
railtune=$1
status=0
for setting in RAILTUNE_NET_STREAMS=1000 RAILTUNE_NET_STREAMS=-1 RAILTUNE_NET_STREAMS=0 RAILTUNE_NET_TIMEOUT=-5 \
  RAILTUNE_HANG_TIMEOUT=-1 RAILTUNE_PROFILE_OPERATIONS=1 RAILTUNE_PROFILE_EVENTS=2000000 \
  RAILTUNE_PROFILE_MASK=garbage RAILTUNE_STRICT=garbage; do
  name=${setting%%=*}
  output=$(env -i PATH="$PATH" "$setting" "$railtune" config 2>&1)
  rc=$?
  errors=$(grep -c "error: " <<<"$output")
  named=$(grep -c "error: $name='${setting#*=}'" <<<"$output")
  if [ $rc -eq 0 ] || [ "$errors" -ne 1 ] || [ "$named" -ne 1 ]; then
    printf '%s\n' "$output"
    echo "FAIL: $setting: exit status $rc, $errors error line(s), $named naming it; expected non-zero, 1, 1"
    status=1
  else
    echo "ok: $setting: $(grep "error: " <<<"$output" | sed 's/^ *//')"
  fi
done
# The ends of a range are accepted.
for setting in RAILTUNE_NET_STREAMS=16 RAILTUNE_NET_STREAMS=1 RAILTUNE_HANG_TIMEOUT=0 RAILTUNE_PROFILE_MASK=Coll,P2P; do
  output=$(env -i PATH="$PATH" "$setting" "$railtune" config 2>&1) || {
    printf '%s\n' "$output"
    echo "FAIL: $setting rejected"
    status=1
  }
done
exit $status
