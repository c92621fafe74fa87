"""Assertions on what a simulator received, whose failure says what it did receive (the Node client's
``toHaveReceived`` / ``toHaveFired`` matchers, as plain functions for pytest)."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional

from .client import FaultRule, SimClient
from .format import describe_filter, format_entries


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _check_times(name: str, times: Optional[int]) -> None:
    if times is not None and (not isinstance(times, int) or isinstance(times, bool) or times < 0):
        raise TypeError(f"{name}(): times must be a non-negative integer, got {times!r}")


def assert_received(sim: SimClient, times: Optional[int] = None, **filter: Any) -> List[Dict[str, Any]]:
    """Passes when the simulator's journal (this client's namespace) holds requests matching the filter
    (``operation``, ``resource``, ``method``, ``path``, ``status``, ``fault``, ``since``): exactly
    ``times`` of them, or at least one. Answers the matching entries. On failure the message lists them
    and the newest 20 requests of any kind.

    >>> assert_received(sim, operation="nodePools.update", times=2)
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not this function's
    _check_times("assert_received", times)
    matching = sim.journal.list(**filter)
    count = len(matching)
    if (count > 0) if times is None else (count == times):
        return matching
    wanted = "at least 1 request" if times is None else _plural(times, "request")
    recent = sim.journal.list(limit=20)
    raise AssertionError(
        f'expected simulator at {sim.base_url} (namespace "{sim.namespace}") to have received {wanted} '
        f"matching {describe_filter(filter)}, but it received {count}.\n"
        f"{format_entries(matching, 'Matching requests')}\n{format_entries(recent, 'Most recent requests (any)')}"
    )


def assert_fault_fired(rule: FaultRule, times: Optional[int] = None) -> Dict[str, Any]:
    """Passes when the fault rule fired exactly ``times`` times, or at least once (it is re-read).
    Answers the rule. On failure the message says how often it matched and fired, and why it may not have.

    >>> assert_fault_fired(rule, 1)
    """
    __tracebackhide__ = True
    if not isinstance(rule, FaultRule):
        raise TypeError(f"assert_fault_fired() expects a rule from faults.add() or faults.handle(id), got {rule!r}")
    _check_times("assert_fault_fired", times)
    current = rule.get()
    fired, matched = int(current["fired"]), int(current["matched"])
    if (fired > 0) if times is None else (fired == times):
        return current
    wanted = "at least once" if times is None else _plural(times, "time")
    if matched == 0:
        hint = " No request matched it: check the operation name, resource glob and namespace."
    elif fired == 0:
        hint = " Requests matched it but its trigger never let it fire."
    else:
        hint = ""
    described = ", ".join(f"{k} {json.dumps(current.get(k))}" for k in ("match", "trigger", "phase", "effect"))
    raise AssertionError(
        f'expected fault rule "{rule.id}" (namespace "{rule.namespace}") to have fired {wanted}, but it fired '
        f"{_plural(fired, 'time')} and matched {_plural(matched, 'request')}"
        f"{' (exhausted)' if current.get('exhausted') else ''}.{hint}\n  Rule: {described}"
    )
