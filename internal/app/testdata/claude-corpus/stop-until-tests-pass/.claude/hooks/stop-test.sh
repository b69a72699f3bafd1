#!/usr/bin/env bash
# Stop: the model may not stop while the tests fail. Their last lines go
# back to it as the reason to go on; once it was sent back
# (stop_hook_active), it may stop, so the loop cannot run forever.
set -e
input=$(cat)
if [ "$(jq -r '.stop_hook_active' <<<"$input")" = "true" ]; then
  exit 0
fi
cd "$(jq -r '.cwd' <<<"$input")"
output=$(./run-tests.sh 2>&1) && exit 0

failures=$(tail -n 20 <<<"$output")
jq -n --arg out "$failures" '{
  decision: "block",
  reason: ($out + "\n\n[Stop hook] The tests fail. Fix what your change broke, then stop.")
}'
exit 2
