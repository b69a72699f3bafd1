#!/bin/bash
# PreToolUse for Bash: recursive forced deletes are refused. The reason is
# given as JSON on stdout, with exit 2 to block; stderr stays empty.
command=$(jq -r '.tool_input.command // ""')
if [[ "$command" == *"rm -rf"* ]]; then
  echo '{"decision": "deny", "reason": "recursive forced deletes are refused here"}'
  exit 2
fi
exit 0
