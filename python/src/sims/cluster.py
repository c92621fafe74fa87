"""cluster-sim's control client: the shared control plane plus settings, the ServerConfig, the world's
operations (listed, finished or failed now) and its clusters with their node pools (the Node client's
cluster.ts)."""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional

from .client import SimClient, _seg, _Transport, route


class Settings:
    """The world's behaviour knobs (operation duration, quota, strictness, auth principals, …)."""

    def __init__(self, transport: _Transport) -> None:
        self._t = transport

    @route("GET", "/_sim/settings")
    def get(self) -> Dict[str, Any]:
        return self._t.request("GET", "/_sim/settings")

    @route("PATCH", "/_sim/settings")
    def update(self, patch: Optional[Mapping[str, Any]] = None, **fields: Any) -> Dict[str, Any]:
        """Changes some settings (top-level fields replace; ``auth`` and ``rollout`` merge one level
        deep) and answers with all of them."""
        return self._t.request("PATCH", "/_sim/settings", dict(patch or {}, **fields))


class ServerConfig:
    """The GKE ServerConfig that version resolution uses."""

    def __init__(self, transport: _Transport) -> None:
        self._t = transport

    @route("GET", "/_sim/server-config")
    def get(self) -> Dict[str, Any]:
        return self._t.request("GET", "/_sim/server-config")

    @route("PATCH", "/_sim/server-config")
    def update(self, patch: Optional[Mapping[str, Any]] = None, **fields: Any) -> Dict[str, Any]:
        """Replaces the given ServerConfig fields (versions sorted descending by the simulator)."""
        return self._t.request("PATCH", "/_sim/server-config", dict(patch or {}, **fields))


class Operations:
    """The world's long-running operations."""

    def __init__(self, transport: _Transport) -> None:
        self._t = transport

    @route("GET", "/_sim/operations")
    def list(self, status: Optional[str] = None) -> List[Dict[str, Any]]:
        """Newest first, optionally only one status (``PENDING``, ``RUNNING``, ``ABORTING``, ``DONE``).
        Reading them is not an ``operations.get`` poll: a poll-driven operation does not move."""
        return self._t.request("GET", "/_sim/operations", query={"status": status})["operations"]

    @route("POST", "/_sim/operations/{id}/complete")
    def complete(self, operation_id: str) -> Dict[str, Any]:
        """Finishes an operation now, applying its change; a SimControlError 409 when it is DONE."""
        return self._t.request("POST", f"/_sim/operations/{_seg(operation_id)}/complete", {})

    @route("POST", "/_sim/operations/{id}/fail")
    def fail(self, operation_id: str, status: Optional[str] = None, message: Optional[str] = None) -> Dict[str, Any]:
        """Fails an operation now (default ``INTERNAL``, "Internal error encountered.")."""
        body = {k: v for k, v in (("status", status), ("message", message)) if v is not None}
        return self._t.request("POST", f"/_sim/operations/{_seg(operation_id)}/fail", body)


class NodePools:
    def __init__(self, transport: _Transport) -> None:
        self._t = transport

    @route("GET", "/_sim/node-pools")
    def list(self) -> List[Dict[str, Any]]:
        """Every cluster with its node pools (node counts, etag, running operation, rollout)."""
        return self._t.request("GET", "/_sim/node-pools")["clusters"]


class ClusterSimClient(SimClient):
    """A control client for cluster-sim.

    >>> sim = ClusterSimClient("http://127.0.0.1:8085")
    >>> sim.settings.update(operationDurationMs=60_000)
    >>> sim.operations.fail(op_name, status="INTERNAL", message="upgrade failed midway")
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.settings = Settings(self._t)
        self.server_config = ServerConfig(self._t)
        self.operations = Operations(self._t)
        self.node_pools = NodePools(self._t)
