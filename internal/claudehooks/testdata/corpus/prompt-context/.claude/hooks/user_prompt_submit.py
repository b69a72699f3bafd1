#!/usr/bin/env python3
"""UserPromptSubmit: refuses prompts that look like they carry a secret (a
JSON "block" decision), and gives every other prompt the current time as
context (plain stdout on exit 0)."""

import datetime
import json
import re
import sys

SECRETS = [
    (r"(?i)\b(password|secret|token)\s*[:=]", "the prompt seems to contain a secret"),
]

try:
    data = json.load(sys.stdin)
except json.JSONDecodeError as err:
    print(f"cannot read the hook input: {err}", file=sys.stderr)
    sys.exit(1)

prompt = data.get("prompt", "")
for pattern, why in SECRETS:
    if re.search(pattern, prompt):
        print(json.dumps({
            "decision": "block",
            "reason": f"Security policy: {why}. Ask again without it.",
        }))
        sys.exit(0)

print(f"Current time: {datetime.datetime.now().isoformat(timespec='seconds')}")
sys.exit(0)
