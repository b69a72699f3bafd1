#!/usr/bin/env python3
"""PreToolUse for Bash: runs every command at low priority, by rewriting it
(updatedInput) and approving the rewritten call."""

import json
import sys

try:
    data = json.load(sys.stdin)
except json.JSONDecodeError:
    sys.exit(0)

command = data.get("tool_input", {}).get("command", "")
if not command or command.startswith("nice "):
    sys.exit(0)
print(json.dumps({
    "hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "allow",
        "permissionDecisionReason": "runs at low priority",
        "updatedInput": {"command": f"nice -n 10 {command}"},
    }
}))
