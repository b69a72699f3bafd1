#!/usr/bin/env bash
# UserPromptSubmit: a prompt that carries a private key or a credential is
# refused (exit 2) before the model reads it; stderr says why.
prompt=$(jq -r '.prompt // empty')

if grep -Eq -e '-----BEGIN ([A-Z]+ )?PRIVATE KEY-----' <<<"$prompt"; then
  echo "Refused: the prompt holds a PEM private key. Paste a redacted one." >&2
  exit 2
fi
if grep -Eiq -e '(api[_-]?key|access[_-]?token|secret[_-]?key)[[:space:]]*[:=][[:space:]]*[^[:space:]]{16,}' <<<"$prompt"; then
  echo "Refused: the prompt seems to hold a credential. Redact it and try again." >&2
  exit 2
fi
exit 0
