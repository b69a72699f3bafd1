#!/usr/bin/env bash
# SessionStart: gives the model the project's standing instructions, kept in
# .claude/project-context.md, as additionalContext (JSON built with jq, so
# that any character in the file survives).
file="${CLAUDE_PROJECT_DIR:-.}/.claude/project-context.md"
[ -f "$file" ] || exit 0
if ! command -v jq >/dev/null 2>&1; then
  echo "jq is needed to load $file" >&2
  exit 1
fi
jq -n --arg ctx "$(cat "$file")" '{
  hookSpecificOutput: {hookEventName: "SessionStart", additionalContext: $ctx}
}'
