#!/bin/sh
# A Stop hook: keep the agent working until the tests have passed.
input=$(cat)
if [ -f "$CLAUDE_PROJECT_DIR/tests-passed" ]; then
  exit 0
fi
case "$input" in
  *'"stop_hook_active":true'*) exit 0 ;;  # already continuing: let it stop
esac
echo '{"decision": "block", "reason": "Run the tests before you stop"}'
