"""One-line renderings of journal entries and filters, for failure messages (the Node client's format.ts)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence


def describe_filter(filter: Mapping[str, Any]) -> str:
    """``{ operation=nodePools.update status=200 }``, or ``(any request)``."""
    parts = [f"{k}={v}" for k, v in filter.items() if v is not None]
    return "{ " + " ".join(parts) + " }" if parts else "(any request)"


def format_entry(e: Mapping[str, Any]) -> str:
    """``#3 PUT /v1beta1/projects/p/… -> 409 nodePools.update [faults: rule-1]``."""
    op = f" {e['operation']}" if e.get("operation") else ""
    faults = f" [faults: {', '.join(e['faults'])}]" if e.get("faults") else ""
    status = "connection fault" if e.get("status") == 0 else str(e.get("status"))
    return f"#{e.get('seq')} {e.get('method')} {e.get('path')} -> {status}{op}{faults}"


def format_entries(entries: Sequence[Mapping[str, Any]], title: str, max: int = 20) -> str:
    """A titled, indented list of the newest ``max`` entries, or a line saying there were none."""
    if not entries:
        return f"{title}: none."
    shown = list(entries)[-max:]
    more = f"\n  … and {len(entries) - len(shown)} earlier" if len(entries) > len(shown) else ""
    return f"{title}:{more}\n" + "\n".join(f"  {format_entry(e)}" for e in shown)
