#!/bin/sh
# A UserPromptSubmit hook: refuse prompts that carry a password; add context
# to every other prompt by printing plain text.
input=$(cat)
if printf '%s' "$input" | grep -qi '"prompt":"[^"]*password'; then
  echo '{"decision": "block", "reason": "The prompt contains a password; rephrase it without the secret"}'
  exit 0
fi
echo "The deployment target is staging."
