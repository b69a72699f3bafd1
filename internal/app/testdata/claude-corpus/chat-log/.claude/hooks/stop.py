#!/usr/bin/env python3
"""Stop: logs each stop, and with --chat keeps a copy of the whole
conversation, read from the transcript (JSONL), as logs/chat.json."""

import argparse
import json
import os
import sys
from pathlib import Path


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chat", action="store_true", help="copy the transcript to logs/chat.json")
    args = parser.parse_args()
    try:
        data = json.load(sys.stdin)
    except ValueError:
        sys.exit(0)
    logs = Path.cwd() / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    stops = logs / "stop.json"
    try:
        entries = json.loads(stops.read_text())
    except (OSError, ValueError):
        entries = []
    entries.append(data)
    stops.write_text(json.dumps(entries, indent=2))

    transcript = data.get("transcript_path", "")
    if args.chat and transcript and os.path.exists(transcript):
        chat = []
        with open(transcript) as f:
            for line in f:
                line = line.strip()
                if line:
                    try:
                        chat.append(json.loads(line))
                    except ValueError:
                        pass
        (logs / "chat.json").write_text(json.dumps(chat, indent=2))
    sys.exit(0)


if __name__ == "__main__":
    main()
