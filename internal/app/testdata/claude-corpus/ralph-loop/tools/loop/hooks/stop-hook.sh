#!/bin/bash
# Stop: while a loop is active (.claude/loop.local.md), the model may not
# stop: the state file's prompt goes back to it, until the last assistant
# message of the transcript holds <promise>TEXT</promise> or the loop ran
# max_iterations times (0: no limit). The state file's front matter keeps
# the count.
set -euo pipefail

input=$(cat)
state=".claude/loop.local.md"
[[ -f "$state" ]] || exit 0

front=$(sed -n '/^---$/,/^---$/{ /^---$/d; p; }' "$state")
iteration=$(grep '^iteration:' <<<"$front" | sed 's/iteration: *//')
max=$(grep '^max_iterations:' <<<"$front" | sed 's/max_iterations: *//')
promise=$(grep '^completion_promise:' <<<"$front" | sed 's/completion_promise: *//; s/^"\(.*\)"$/\1/')

if [[ ! "$iteration" =~ ^[0-9]+$ || ! "$max" =~ ^[0-9]+$ ]]; then
  echo "loop: $state is corrupt; stopping" >&2
  rm "$state"
  exit 0
fi
if (( max > 0 && iteration >= max )); then
  echo "loop: $max iterations done"
  rm "$state"
  exit 0
fi

transcript=$(python3 -c 'import json,sys; print(json.load(sys.stdin).get("transcript_path", ""))' <<<"$input")
if [[ ! -f "$transcript" ]] || ! grep -q '"role":"assistant"' "$transcript"; then
  echo "loop: no transcript to read at '$transcript'; stopping" >&2
  rm "$state"
  exit 0
fi
last=$(grep '"role":"assistant"' "$transcript" | tail -n 1 | python3 -c '
import json, sys
line = json.loads(sys.stdin.read())
print("\n".join(b["text"] for b in line.get("message", {}).get("content", []) if b.get("type") == "text"))
')

if [[ -n "$promise" && "$promise" != "null" ]]; then
  said=$(python3 -c '
import re, sys
m = re.search(r"<promise>(.*?)</promise>", sys.stdin.read(), re.S)
print(" ".join(m.group(1).split()) if m else "")
' <<<"$last")
  if [[ -n "$said" && "$said" = "$promise" ]]; then
    echo "loop: done, the model said <promise>$promise</promise>"
    rm "$state"
    exit 0
  fi
fi

next=$((iteration + 1))
prompt=$(awk '/^---$/{i++; next} i>=2' "$state")
sed "s/^iteration: .*/iteration: $next/" "$state" > "$state.tmp.$$"
mv "$state.tmp.$$" "$state"

python3 -c '
import json, sys
print(json.dumps({"decision": "block", "reason": sys.argv[1], "systemMessage": sys.argv[2]}))
' "$prompt" "loop iteration $next"
exit 0
