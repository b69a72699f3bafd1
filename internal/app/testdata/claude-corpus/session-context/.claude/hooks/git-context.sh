#!/bin/bash
# SessionStart: where the work stands, as plain text the model reads.
echo "Branch: $(git rev-parse --abbrev-ref HEAD 2>/dev/null || echo unknown)"
echo "Changed files:"
git status --short 2>/dev/null | head -n 10
echo "Last commits:"
git log --oneline -3 2>/dev/null || echo "(none)"
exit 0
