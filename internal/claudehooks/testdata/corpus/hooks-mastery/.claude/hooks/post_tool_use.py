#!/usr/bin/env python3
"""PostToolUse for every tool: logs what ran and what it returned."""

import json
import sys

from _log_common import append_log

try:
    append_log("post_tool_use.json", json.load(sys.stdin))
except ValueError:
    pass
sys.exit(0)
