#!/usr/bin/env python3
"""PreToolUse for every tool: refuses .env files and recursive forced
deletes (exit 2, reason on stderr), and logs every call it lets through."""

import json
import re
import sys

from _log_common import append_log

RM_FORCED = [
    r"\brm\s+.*-[a-z]*r[a-z]*f",
    r"\brm\s+.*-[a-z]*f[a-z]*r",
    r"\brm\s+--recursive\s+--force",
    r"\brm\s+--force\s+--recursive",
]
FILE_TOOLS = ("Read", "Edit", "MultiEdit", "Write")


def touches_env(tool, args):
    if tool in FILE_TOOLS:
        path = args.get("file_path", "")
        return ".env" in path and not path.endswith(".env.sample")
    if tool == "Bash":
        return re.search(r"\.env\b(?!\.sample)", args.get("command", "")) is not None
    return False


def main():
    try:
        data = json.load(sys.stdin)
    except ValueError:
        sys.exit(0)  # never get in the way on input it cannot read
    tool, args = data.get("tool_name", ""), data.get("tool_input", {})
    if touches_env(tool, args):
        print("BLOCKED: .env files hold secrets and are off limits", file=sys.stderr)
        print("Use .env.sample as the template instead", file=sys.stderr)
        sys.exit(2)
    if tool == "Bash":
        command = " ".join(args.get("command", "").lower().split())
        if any(re.search(p, command) for p in RM_FORCED):
            print("BLOCKED: recursive forced rm refused", file=sys.stderr)
            sys.exit(2)
    append_log("pre_tool_use.json", data)
    sys.exit(0)


if __name__ == "__main__":
    main()
