#!/bin/bash
# PostToolUseFailure: the call failed already; this cannot block. It tells
# the model how to recover from the common failures, instead of retrying
# blindly, as additionalContext.
input=$(cat)
field() { python3 -c "import json,sys; print(json.load(sys.stdin).get('$1', ''))" <<<"$input" 2>/dev/null; }
tool=$(field tool_name)
error=$(field error)

hint=""
case "$tool" in
  Bash)
    if grep -qi "command not found" <<<"$error"; then
      hint="The command is not installed. Check for it, or do it another way."
    elif grep -qi "permission denied" <<<"$error"; then
      hint="Permission denied: check the file's mode rather than reaching for sudo."
    fi
    ;;
  Edit|Write)
    if grep -qi "not unique" <<<"$error"; then
      hint="old_string matches more than once: include more of the lines around it."
    elif grep -qi "not found" <<<"$error"; then
      hint="old_string is not in the file: read the file again before editing it."
    fi
    ;;
esac

[ -n "$hint" ] || exit 0
jq -n --arg ctx "$hint" '{hookSpecificOutput: {hookEventName: "PostToolUseFailure", additionalContext: $ctx}}'
