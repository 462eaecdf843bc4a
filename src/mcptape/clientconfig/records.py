"""The wrap records of one config file, as kept between `wrap` and `unwrap` (a small JSON file)."""

from __future__ import annotations

import json

from mcptape.clientconfig.transform import ConfigError, Wrapped

VERSION = 1


def load(text: str) -> dict[str, Wrapped]:
    """The records in `text` (a records file), by server name."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: nested deeper than json's recursion
        raise ConfigError("the wrap records file is not JSON") from None
    if (
        not isinstance(data, dict)
        or data.get("version") != VERSION
        or not isinstance(data.get("entries"), dict)
    ):
        raise ConfigError("the wrap records file is not one this version of mcptape wrote")
    return {name: Wrapped.from_json(record) for name, record in data["entries"].items()}


def dump(config: str, records: dict[str, Wrapped]) -> str:
    """A records file for the config at path `config`."""
    data = {
        "version": VERSION,
        "config": config,
        "entries": {name: record.to_json() for name, record in records.items()},
    }
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
