#!/bin/sh
# A PreToolUse hook as written for Claude Code (matcher "Bash"): it reads the
# tool call on stdin and blocks recursive deletes by exiting 2, with the
# reason on stderr. Claude Code's own example uses jq; this one needs only sed.
input=$(cat)
command=$(printf '%s\n' "$input" | sed -n 's/.*"command":"\([^"]*\)".*/\1/p')
case "$command" in
  *"rm -rf"*)
    echo "Blocked: '$command' deletes recursively; remove files one by one" >&2
    exit 2
    ;;
esac
exit 0  # no decision: the normal permission flow applies
