#!/bin/sh
# A PreToolUse hook that answers with JSON on stdout and exits 0: deny network
# access, ask before deploys, allow everything else.
input=$(cat)
if printf '%s' "$input" | grep -q '"command":"curl'; then
  decision=deny reason="No network access from the agent"
elif printf '%s' "$input" | grep -q 'deploy'; then
  decision=ask reason="Deploys need a human"
else
  decision=allow reason="Looks safe"
fi
cat <<JSON
{
  "hookSpecificOutput": {
    "hookEventName": "PreToolUse",
    "permissionDecision": "$decision",
    "permissionDecisionReason": "$reason"
  }
}
JSON
