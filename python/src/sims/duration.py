"""Durations with the simulators' grammar: ``500ms``, ``1.5s``, ``2m30s``; a number is milliseconds."""

from __future__ import annotations

import re
from typing import Union

Duration = Union[int, float, str]

_UNIT_MS = {"ms": 1, "s": 1_000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}
_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h|d)")


def to_milliseconds(value: Duration) -> float:
    """Milliseconds of a duration (``to_milliseconds("1.5s") == 1500``), as the Node client reads it."""
    if isinstance(value, bool):
        raise ValueError(f"invalid duration {value!r}")
    if isinstance(value, (int, float)):
        if value < 0 or value != value or value in (float("inf"),):
            raise ValueError(f"invalid duration {value}: must be >= 0")
        return float(value)
    rest = value.strip()
    if rest == "":
        raise ValueError(f'invalid duration "{value}": expected e.g. "500ms", "1.5s", "2m"')
    total = 0.0
    while rest:
        m = _PART.match(rest)
        if not m:
            raise ValueError(f'invalid duration "{value}": expected e.g. "500ms", "1.5s", "2m"')
        total += float(m.group(1)) * _UNIT_MS[m.group(2)]
        rest = rest[m.end():]
    return total


def to_seconds(value: Duration) -> float:
    """Seconds of a duration, for socket and process timeouts."""
    return to_milliseconds(value) / 1000.0
