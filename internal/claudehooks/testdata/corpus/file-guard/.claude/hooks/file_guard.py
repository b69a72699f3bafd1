#!/usr/bin/env python3
"""PreToolUse hook for Edit, Write and MultiEdit: keeps the model's hands off
secrets. A path that looks like one is blocked with exit 2, and stderr says
why to the model."""

import json
import re
import sys

GUARDED = [
    (r"\.env($|\.)", "environment file, may hold secrets"),
    (r"\.(pem|key)$", "key or certificate"),
    (r"(^|/)id_(rsa|ed25519)", "SSH private key"),
    (r"credentials\.", "credentials file"),
]


def main():
    try:
        data = json.load(sys.stdin)
    except json.JSONDecodeError as err:
        print(f"cannot read the hook input: {err}", file=sys.stderr)
        sys.exit(1)
    if data.get("tool_name") not in ("Edit", "Write", "MultiEdit"):
        sys.exit(0)
    path = data.get("tool_input", {}).get("file_path", "")
    for pattern, what in GUARDED:
        if path and re.search(pattern, path):
            print(f"Protected file ({what}): {path}", file=sys.stderr)
            print("Change it by hand if it really must change.", file=sys.stderr)
            sys.exit(2)


if __name__ == "__main__":
    main()
