#!/usr/bin/env python3
"""PreToolUse hook for Bash: steers the model to faster search commands.

Each rule is a regular expression on the command and the advice to give.
A command that breaks a rule is blocked (exit 2); the advice goes to the
model on stderr, one bullet a rule.
"""

import json
import re
import sys

RULES = [
    (r"^grep\b(?!.*\|)", "Use 'rg' (ripgrep) rather than 'grep': faster, and it skips ignored files"),
    (r"^find\s+\S+\s+-name\b", "Use 'rg --files -g PATTERN' rather than 'find DIR -name PATTERN'"),
]


def main():
    try:
        data = json.load(sys.stdin)
    except json.JSONDecodeError as err:
        # Exit 1: a hook error the user sees, which blocks nothing.
        print(f"cannot read the hook input: {err}", file=sys.stderr)
        sys.exit(1)
    if data.get("tool_name") != "Bash":
        sys.exit(0)
    command = data.get("tool_input", {}).get("command", "")
    advice = [text for pattern, text in RULES if re.search(pattern, command)]
    if not advice:
        sys.exit(0)
    for text in advice:
        print(f"• {text}", file=sys.stderr)
    sys.exit(2)


if __name__ == "__main__":
    main()
