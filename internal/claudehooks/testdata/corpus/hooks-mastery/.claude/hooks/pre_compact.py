#!/usr/bin/env python3
"""PreCompact: logs the compaction and, with --backup, keeps a copy of the
transcript as it was before; --verbose says so on stdout."""

import argparse
import json
import shutil
import sys
from pathlib import Path

from _log_common import append_log


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--backup", action="store_true")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    try:
        data = json.load(sys.stdin)
    except ValueError:
        sys.exit(0)
    append_log("pre_compact.json", data)
    transcript, trigger = data.get("transcript_path", ""), data.get("trigger", "unknown")
    saved = None
    if args.backup and transcript and Path(transcript).exists():
        backups = Path.cwd() / "logs" / "transcript_backups"
        backups.mkdir(parents=True, exist_ok=True)
        saved = backups / f"{Path(transcript).stem}_pre_compact_{trigger}.jsonl"
        shutil.copy2(transcript, saved)
    if args.verbose:
        print(f"{trigger} compaction of session {data.get('session_id', '?')[:8]}")
        if saved:
            print(f"transcript saved as {saved}")
    sys.exit(0)


if __name__ == "__main__":
    main()
