#!/usr/bin/env bash
# PostToolUse for Write|Edit|MultiEdit: compiles the Python file just changed.
# Errors block (exit 2): stderr goes to the model, which is to fix them
# before it goes on.
input=$(cat)
file=$(jq -r '.tool_input.file_path // empty' <<<"$input")
[[ -n "$file" && "$file" == *.py && -f "$file" ]] || exit 0

if ! errors=$(python3 -m py_compile "$file" 2>&1); then
  {
    echo "████ Compile Error ████"
    echo "$(basename "$file") does not compile:"
    echo "$errors" | tail -n 5
    echo "Fix these errors before you go on."
  } >&2
  exit 2
fi
exit 0
