#!/bin/sh
# A PostToolUse hook (matcher "Edit|Write"): the file is already written; exit
# 2 shows stderr to the model.
input=$(cat)
file=$(printf '%s\n' "$input" | sed -n 's/.*"file_path":"\([^"]*\)".*/\1/p')
case "$file" in
  *.go) echo "$file: run gofmt before going on" >&2; exit 2 ;;
esac
