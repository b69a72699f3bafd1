#!/bin/sh
# A hook that fails: exit 1 is a non-blocking error in Claude Code.
cat >/dev/null
echo "lint configuration not found" >&2
exit 1
