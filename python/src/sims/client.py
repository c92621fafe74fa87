"""The control client both simulators share: ``/_sim`` health, reset, state, seed, faults, clock, journal,
namespaces, scenarios, memory, the live stream and the control plane's own OpenAPI document.

It mirrors the Node client (``@sims/sim-client``, packages/sim-client/src/client.ts) in Python's style:
the same routes, the same rule and filter shapes (plain dicts, as the JSON goes on the wire), the same
namespace header, and one exception type (:class:`~sims.errors.SimControlError`) carrying the control
envelope's reason. Every method names the route it calls with :func:`route`; a test compares those names
with the simulators' ``GET /_sim/openapi.json`` (python/tests/test_openapi_coverage.py).
"""

from __future__ import annotations

import json
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Tuple, TypeVar, Union
from urllib.parse import quote, unquote

import requests

from .duration import Duration, to_seconds
from .errors import SimControlError, SimWaitTimeoutError
from .format import describe_filter, format_entries

#: Header that selects a namespace (docs/decisions/0001-namespace-selection.md); the Node client's too.
NAMESPACE_HEADER = "X-Sim-Namespace"
#: Header that carries the admin token (the simulators also take ``Authorization: Bearer <token>``).
ADMIN_TOKEN_HEADER = "X-Sim-Admin-Token"

#: Default wait of the journal's ``wait_for``, as the Node client's.
DEFAULT_WAIT: Duration = "3s"
#: Wall time a long-poll is given beyond the simulator's own timeout before the client gives up.
LONG_POLL_GRACE_S = 5.0
#: Wall time any other control request may take.
REQUEST_TIMEOUT_S = 30.0

F = TypeVar("F", bound=Callable[..., Any])
Json = Any
Query = Mapping[str, Union[str, int, float, bool, None]]


def route(method: str, path: str) -> Callable[[F], F]:
    """Names a control route a method calls (``@route("GET", "/_sim/faults/{id}")``), so a test can
    compare the client with the control plane's OpenAPI document. Stackable."""

    def mark(fn: F) -> F:
        routes = list(getattr(fn, "__sim_routes__", []))
        routes.append((method.upper(), path))
        fn.__sim_routes__ = routes  # type: ignore[attr-defined]
        return fn

    return mark


def routes_of(*objects: object) -> List[Tuple[str, str]]:
    """Every ``(method, path)`` the methods of these objects' classes declare with :func:`route`."""
    found: List[Tuple[str, str]] = []
    for obj in objects:
        cls = obj if isinstance(obj, type) else type(obj)
        for klass in cls.__mro__:
            for member in vars(klass).values():
                found.extend(getattr(member, "__sim_routes__", []))
    return sorted(set(found))


def _seg(value: Union[str, int]) -> str:
    """A path segment, percent-encoded."""
    return quote(str(value), safe="")


class _Transport:
    """One simulator's address, namespace and token, and the HTTP session the parts share."""

    def __init__(
        self,
        base_url: str,
        namespace: Optional[str],
        admin_token: Optional[str],
        session: Optional[requests.Session],
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.namespace_given = namespace
        self.admin_token = admin_token
        self.session = session or requests.Session()
        # The simulators are on this machine: never through a proxy from the environment.
        self.session.trust_env = False

    def request(
        self,
        method: str,
        path: str,
        body: Json = None,
        query: Optional[Query] = None,
        headers: Optional[Mapping[str, str]] = None,
        timeout: float = REQUEST_TIMEOUT_S,
        stream: bool = False,
    ) -> Json:
        url = self.base_url + (path if path.startswith("/") else "/" + path)
        sent: Dict[str, str] = {"accept": "application/json"}
        if self.namespace_given is not None:
            sent[NAMESPACE_HEADER] = self.namespace_given
        if self.admin_token is not None:
            sent[ADMIN_TOKEN_HEADER] = self.admin_token
        data: Optional[bytes] = None
        if body is not None:
            # Text goes as is (YAML scenarios and rules); everything else as JSON.
            if isinstance(body, str):
                data = body.encode("utf-8")
                sent["content-type"] = "text/plain; charset=utf-8"
            else:
                data = json.dumps(body).encode("utf-8")
                sent["content-type"] = "application/json"
        sent.update(headers or {})
        params = {k: _query_value(v) for k, v in (query or {}).items() if v is not None}
        res = self.session.request(
            method, url, data=data, params=params, headers=sent, timeout=timeout, stream=stream
        )
        if stream:
            if not res.ok:
                raise SimControlError.from_response(res.status_code, res.text, method, res.url)
            return res
        text = res.content.decode("utf-8", errors="replace")
        if not res.ok:
            raise SimControlError.from_response(res.status_code, text, method, res.url)
        if text == "":
            return None
        try:
            return json.loads(text)
        except ValueError:
            return text


def _query_value(value: Union[str, int, float, bool]) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class FaultRule:
    """A fault rule by id, in one namespace: what :func:`sims.assert_fault_fired` reads. ``rule`` is the
    rule as the simulator stored it when it was added (counters as of then); :meth:`get` re-reads it."""

    def __init__(self, transport: _Transport, namespace: str, rule_id: str, rule: Optional[Dict[str, Any]] = None):
        self._t = transport
        self.id = rule_id
        self.namespace = namespace
        self.rule: Dict[str, Any] = rule if rule is not None else {"id": rule_id}

    @route("GET", "/_sim/faults/{id}")
    def get(self) -> Dict[str, Any]:
        """The rule with its current ``matched`` / ``fired`` counters."""
        return self._t.request("GET", f"/_sim/faults/{_seg(self.id)}")

    @route("DELETE", "/_sim/faults/{id}")
    def remove(self) -> None:
        """Removes the rule; a SimControlError 404 when it is already gone."""
        self._t.request("DELETE", f"/_sim/faults/{_seg(self.id)}")

    def fired(self) -> int:
        """How many times the rule fired so far (re-read)."""
        return int(self.get()["fired"])

    def __repr__(self) -> str:
        return f"FaultRule(id={self.id!r}, namespace={self.namespace!r})"


class Faults:
    """Fault rules: ``{"match": …, "trigger": …, "phase": …, "effect": …}``, the shape of
    docs/decisions/0004-fault-rule-shape.md and of the Node client."""

    def __init__(self, transport: _Transport, namespace: str) -> None:
        self._t = transport
        self._ns = namespace

    def _added(self, rule: Dict[str, Any]) -> FaultRule:
        return FaultRule(self._t, self._ns, rule["id"], rule)

    @route("POST", "/_sim/faults")
    def add(self, rule: Optional[Mapping[str, Any]] = None, **fields: Any) -> FaultRule:
        """Adds one rule, given as a dict or as keywords (``add(match=…, trigger=…, effect=…)``)."""
        body = dict(rule or {}, **fields)
        return self._added(self._t.request("POST", "/_sim/faults", body))

    def add_many(self, rules: List[Mapping[str, Any]]) -> List[FaultRule]:
        """Adds all the rules or none (the simulator validates the whole batch first)."""
        return [self._added(r) for r in self._t.request("POST", "/_sim/faults", list(rules))["faults"]]

    def add_yaml(self, text: str) -> List[FaultRule]:
        """Adds the rules of a YAML text (one rule or a list, all or none), in order."""
        res = self._t.request("POST", "/_sim/faults", text, headers={"content-type": "application/yaml"})
        return [self._added(r) for r in (res["faults"] if "faults" in res else [res])]

    @route("GET", "/_sim/faults")
    def list(self, unfired: bool = False) -> List[Dict[str, Any]]:
        """Every rule with its ``matched`` / ``fired`` counts (``unfired=True``: only those never fired)."""
        return self._t.request("GET", "/_sim/faults", query={"unfired": True if unfired else None})["faults"]

    def get(self, rule_id: str) -> Dict[str, Any]:
        return self.handle(rule_id).get()

    def handle(self, rule_id: str) -> FaultRule:
        """A handle for a rule added elsewhere (a scenario, another client); makes no request."""
        return FaultRule(self._t, self._ns, rule_id)

    def remove(self, rule_id: str) -> None:
        self.handle(rule_id).remove()

    @route("DELETE", "/_sim/faults")
    def clear(self) -> None:
        self._t.request("DELETE", "/_sim/faults")

    @route("GET", "/_sim/faults/unfired")
    def unfired(self) -> List[Dict[str, Any]]:
        """Rules that never fired: a test whose fault silently stopped applying is caught by this."""
        return self._t.request("GET", "/_sim/faults/unfired")["faults"]


class Clock:
    """The world clock of this namespace (``real`` or ``manual``)."""

    def __init__(self, transport: _Transport) -> None:
        self._t = transport

    @route("GET", "/_sim/clock")
    def get(self) -> Dict[str, Any]:
        """``{"mode", "speed", "now", "pendingTimers"}``."""
        return self._t.request("GET", "/_sim/clock")

    @route("POST", "/_sim/clock/advance")
    def advance(self, by: Duration) -> Dict[str, Any]:
        """Moves world time forward, firing due timers in order (a manual clock moves only this way)."""
        return self._t.request("POST", "/_sim/clock/advance", {"by": by})

    @route("PATCH", "/_sim/clock")
    def set(self, time: Union[str, int]) -> Dict[str, Any]:
        """Jumps to a time (ISO-8601 text or epoch ms)."""
        return self._t.request("PATCH", "/_sim/clock", {"set": time})

    def configure(self, mode: Optional[str] = None, speed: Optional[float] = None) -> Dict[str, Any]:
        """Switches between ``real`` and ``manual``, or changes the speed; what is not given stays."""
        body = {k: v for k, v in (("mode", mode), ("speed", speed)) if v is not None}
        return self._t.request("PATCH", "/_sim/clock", body)


_FILTER_KEYS = ("operation", "resource", "method", "path", "status", "fault", "since")


def _journal_filter(filter: Mapping[str, Any]) -> Dict[str, Any]:
    unknown = set(filter) - set(_FILTER_KEYS)
    if unknown:
        raise TypeError(f"unknown journal filter {sorted(unknown)}: expected some of {list(_FILTER_KEYS)}")
    return {k: v for k, v in filter.items() if v is not None}


class Journal:
    """The requests the emulated API received, in this namespace (``/_sim/journal``)."""

    def __init__(self, transport: _Transport, namespace: str) -> None:
        self._t = transport
        self._ns = namespace

    @route("GET", "/_sim/journal")
    def list(self, limit: Optional[int] = None, **filter: Any) -> List[Dict[str, Any]]:
        """Entries matching the filter (``operation``, ``resource``, ``method``, ``path``, ``status``,
        ``fault``, ``since``; globs as the simulator takes them), oldest first; ``limit`` keeps the newest."""
        query = dict(_journal_filter(filter), limit=limit)
        return self._t.request("GET", "/_sim/journal", query=query)["entries"]

    @route("GET", "/_sim/journal/{seq}")
    def get(self, seq: int) -> Dict[str, Any]:
        """One entry by its ``seq``; a SimControlError 404 once it was dropped (or never recorded)."""
        return self._t.request("GET", f"/_sim/journal/{_seg(seq)}")["entry"]

    def stats(self) -> Dict[str, Any]:
        """``{"capacity", "size", "dropped", "total"}``."""
        return self._t.request("GET", "/_sim/journal", query={"limit": 1})["stats"]

    @route("DELETE", "/_sim/journal")
    def clear(self) -> None:
        self._t.request("DELETE", "/_sim/journal")

    @route("POST", "/_sim/journal/wait")
    def wait(self, timeout: Duration = DEFAULT_WAIT, **filter: Any) -> Optional[Dict[str, Any]]:
        """One long-poll: the first entry matching the filter, existing or future, or None when none
        arrived within ``timeout`` (wall time)."""
        body = dict(_journal_filter(filter), timeout=timeout)
        try:
            res = self._t.request(
                "POST", "/_sim/journal/wait", body, timeout=to_seconds(timeout) + LONG_POLL_GRACE_S
            )
        except SimControlError as err:
            if err.status == 408:
                return None
            raise
        return res["entry"]

    def wait_for(self, timeout: Duration = DEFAULT_WAIT, **filter: Any) -> Dict[str, Any]:
        """Like :meth:`wait`, but raises a SimWaitTimeoutError listing the journal's recent entries."""
        entry = self.wait(timeout=timeout, **filter)
        if entry is not None:
            return entry
        recent = self.list(limit=10)
        raise SimWaitTimeoutError(
            f"no journal entry matching {describe_filter(filter)} arrived within {timeout} "
            f'(namespace "{self._ns}"). {format_entries(recent, "Most recent entries")}'
        )


class Namespaces:
    """The simulator's namespaces (each an isolated world)."""

    def __init__(self, transport: _Transport) -> None:
        self._t = transport

    @route("GET", "/_sim/namespaces")
    def list(self) -> List[str]:
        return self._t.request("GET", "/_sim/namespaces")["namespaces"]

    @route("PUT", "/_sim/namespaces/{name}")
    def create(self, name: str) -> Dict[str, Any]:
        """Creates a namespace ahead of its first use: ``{"namespace", "created"}`` (False when it existed)."""
        return self._t.request("PUT", f"/_sim/namespaces/{_seg(name)}")

    @route("DELETE", "/_sim/namespaces/{name}")
    def delete(self, name: str) -> None:
        """Drops a namespace's world whole; a SimControlError 404 when it does not exist."""
        self._t.request("DELETE", f"/_sim/namespaces/{_seg(name)}")


class State:
    """World snapshots of this namespace."""

    def __init__(self, transport: _Transport) -> None:
        self._t = transport

    @route("GET", "/_sim/state")
    def export(self) -> Dict[str, Any]:
        """``{"simulator", "version", "namespace", "clock", "faults", "state"}``."""
        return self._t.request("GET", "/_sim/state")

    @route("PUT", "/_sim/state")
    def load(self, snapshot: Mapping[str, Any]) -> None:
        """Replaces the world from a snapshot (:meth:`export`'s), all or nothing."""
        self._t.request("PUT", "/_sim/state", dict(snapshot))

    import_ = load


class Scenarios:
    def __init__(self, transport: _Transport) -> None:
        self._t = transport

    @route("POST", "/_sim/scenarios")
    def load(self, scenario: Union[str, Mapping[str, Any]], source: Optional[str] = None) -> Dict[str, Any]:
        """Loads a scenario (seed + faults + clock): YAML or JSON text, or a dict (sent as JSON).
        ``source`` names it in error messages."""
        text = scenario if isinstance(scenario, str) else json.dumps(scenario)
        return self._t.request("POST", "/_sim/scenarios", text, query={"source": source})


class SimClient:
    """A simulator's control plane (``/_sim``), cluster-sim or annotation-sim alike.

    >>> sim = SimClient("http://127.0.0.1:8085", namespace="test-42")
    >>> rule = sim.faults.add(match={"operation": "nodePools.update"}, trigger={"times": 1},
    ...                       effect={"error": {"status": "ABORTED"}})
    >>> sim.journal.wait_for(operation="nodePools.update", status=200)
    """

    def __init__(
        self,
        base_url: str,
        namespace: Optional[str] = None,
        admin_token: Optional[str] = None,
        session: Optional[requests.Session] = None,
    ) -> None:
        base = base_url.rstrip("/")
        # A `/_ns/<name>` suffix of the base URL selects the namespace and wins over the header.
        prefix = base.rfind("/_ns/")
        header: Optional[str] = namespace
        if prefix != -1 and "/" not in base[prefix + 5:]:
            self.namespace = unquote(base[prefix + 5:])
            self._root = base[:prefix]
            header = None
        else:
            self.namespace = namespace or "default"
            self._root = base
        self.base_url = base
        self.admin_token = admin_token
        self._t = _Transport(base, header, admin_token, session)
        self.faults = Faults(self._t, self.namespace)
        self.clock = Clock(self._t)
        self.journal = Journal(self._t, self.namespace)
        self.namespaces = Namespaces(self._t)
        self.state = State(self._t)
        self.scenarios = Scenarios(self._t)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.base_url!r}, namespace={self.namespace!r})"

    @route("GET", "/_sim/health")
    def health(self) -> Dict[str, Any]:
        """``{"status": "ok", "simulator", "version", "namespaces"}``; needs no admin token."""
        return self._t.request("GET", "/_sim/health")

    @route("POST", "/_sim/reset")
    def reset(self) -> None:
        """Empties this namespace's world (state, faults, journal); clock mode and speed are kept."""
        self._t.request("POST", "/_sim/reset")

    @route("POST", "/_sim/seed")
    def seed(self, document: Optional[Mapping[str, Any]] = None, **fields: Any) -> Dict[str, Any]:
        """Creates resources directly, in the simulator's own seed shape: ``{"namespace", "seeded"}``."""
        return self._t.request("POST", "/_sim/seed", dict(document or {}, **fields))

    @route("GET", "/_sim/memory")
    def memory(self) -> Dict[str, Any]:
        """The process's memory budget per kind, and what this namespace holds of each."""
        return self._t.request("GET", "/_sim/memory")

    @route("GET", "/_sim/openapi.json")
    def open_api(self) -> Dict[str, Any]:
        """The control plane's own OpenAPI document."""
        return self._t.request("GET", "/_sim/openapi.json")

    @route("GET", "/_sim/stream")
    def stream(self, timeout: Optional[float] = None) -> Iterator[Dict[str, Any]]:
        """The live server-sent events of this namespace (``hello``, ``request``, ``gap``, ``changed``,
        ``reset``, ``tick``), each as ``{"event", "data"}`` with ``data`` parsed as JSON. Endless: break
        out of the loop (or close the generator) to hang up."""
        res = self._t.request(
            "GET", "/_sim/stream", headers={"accept": "text/event-stream"}, timeout=timeout or REQUEST_TIMEOUT_S,
            stream=True,
        )
        try:
            event: Dict[str, Any] = {}
            data: List[str] = []
            for line in res.iter_lines(decode_unicode=True):
                if line == "":
                    if data or event:
                        text = "\n".join(data)
                        try:
                            event["data"] = json.loads(text) if text else None
                        except ValueError:
                            event["data"] = text
                        event.setdefault("event", "message")
                        yield event
                    event, data = {}, []
                elif line.startswith(":"):
                    continue
                else:
                    name, _, value = line.partition(":")
                    value = value[1:] if value.startswith(" ") else value
                    if name == "data":
                        data.append(value)
                    elif name in ("event", "id"):
                        event[name] = value
        finally:
            res.close()

    def dashboard_url(self) -> str:
        """The dashboard page (``GET /_sim/ui/``) of this namespace, for a browser."""
        return f"{self._root}/_sim/ui/?namespace={quote(self.namespace, safe='')}"

    def with_namespace(self, name: str) -> "SimClient":
        """A client of the same kind for another namespace, sharing address, token and session."""
        return type(self)(self._root, namespace=name, admin_token=self.admin_token, session=self._t.session)

    def request(
        self,
        method: str,
        path: str,
        body: Json = None,
        query: Optional[Query] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Json:
        """Any control-plane route: the answer's JSON (None for an empty body); a non-2xx answer raises
        SimControlError. ``path`` is relative to the base URL (``/_sim/…``)."""
        return self._t.request(method, path, body, query=query, headers=headers)
