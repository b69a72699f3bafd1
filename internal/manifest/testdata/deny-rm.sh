#!/bin/sh
# A command handler: the HookPayload arrives on stdin.
input=$(cat)
case "$input" in
  *'rm -rf'*) echo "no rm -rf, please" >&2; exit 2 ;;
  *'"tool_name":"read"'*) exit 0 ;;  # abstain: no output
  *) echo '{"decision":"allow","message":"looks fine"}' ;;
esac
