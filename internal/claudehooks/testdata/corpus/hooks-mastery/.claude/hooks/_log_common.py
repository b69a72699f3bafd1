"""Shared by the hooks: each event's inputs kept as one JSON array a file,
under logs/ in the directory the hook runs in."""

import json
from pathlib import Path


def append_log(name, entry):
    logs = Path.cwd() / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    path = logs / name
    try:
        entries = json.loads(path.read_text())
        if not isinstance(entries, list):
            entries = []
    except (OSError, ValueError):
        entries = []
    entries.append(entry)
    path.write_text(json.dumps(entries, indent=2))
