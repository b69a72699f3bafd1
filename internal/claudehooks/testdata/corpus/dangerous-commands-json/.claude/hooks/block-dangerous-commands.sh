#!/bin/bash
# PreToolUse for Bash: commands that skip safety checks are denied, every
# other command is approved, both as JSON. The input is read as one line.
read -r input
command=$(echo "$input" | jq -r '.tool_input.command // ""')

if echo "$command" | grep -qE -e '(--no-verify|--force|--hard)'; then
  jq -n '{
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: "deny",
      permissionDecisionReason: "Refused: the command skips safety checks (--no-verify, --force, --hard)"
    }
  }'
  exit 0
fi

jq -n '{
  hookSpecificOutput: {
    hookEventName: "PreToolUse",
    permissionDecision: "allow",
    permissionDecisionReason: "command passed the safety check"
  }
}'
