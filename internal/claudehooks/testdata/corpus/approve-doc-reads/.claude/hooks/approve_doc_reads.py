#!/usr/bin/env python3
"""PreToolUse for Read: documentation needs no permission prompt. Anything
else is left to the usual rules (no output)."""

import json
import sys

DOCS = (".md", ".mdx", ".txt", ".json")

try:
    data = json.load(sys.stdin)
except json.JSONDecodeError as err:
    print(f"cannot read the hook input: {err}", file=sys.stderr)
    sys.exit(1)

path = data.get("tool_input", {}).get("file_path", "")
if data.get("tool_name") == "Read" and path.endswith(DOCS):
    print(json.dumps({
        "suppressOutput": True,
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "permissionDecisionReason": "documentation read, approved by the hook",
        },
    }))
sys.exit(0)
