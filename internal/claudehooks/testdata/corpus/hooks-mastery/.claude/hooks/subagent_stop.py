#!/usr/bin/env python3
"""SubagentStop: logs each sub-agent that finished."""

import json
import sys

from _log_common import append_log

try:
    append_log("subagent_stop.json", json.load(sys.stdin))
except ValueError:
    pass
sys.exit(0)
