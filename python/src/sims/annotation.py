"""annotation-sim's control client: the shared control plane plus the outbound delivery journal (with a
long-poll ``wait_for``), the webhooks with their delivery rows, the events API's settings and export jobs,
background requests and annotations (the Node client's annotation.ts, and the routes it lacks)."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Mapping, Optional, Union

from .client import LONG_POLL_GRACE_S, SimClient, _seg, _Transport, route
from .duration import Duration, to_milliseconds, to_seconds
from .errors import SimControlError, SimWaitTimeoutError

_DELIVERY_WAIT: Duration = "3s"


def describe_delivery(d: Mapping[str, Any]) -> str:
    """``#3 webhook 1 update:task attempt 2 -> 200 [faults: flaky]``."""
    answer = str(d.get("statusCode")) if d.get("outcome") == "response" else str(d.get("outcome"))
    faults = f" [faults: {', '.join(d['faults'])}]" if d.get("faults") else ""
    return f"#{d.get('seq')} webhook {d.get('webhookId')} {d.get('event')} attempt {d.get('attempt')} -> {answer}{faults}"


class Deliveries:
    """The outbound delivery journal: every webhook request with its body and headers as sent."""

    def __init__(self, transport: _Transport, namespace: str) -> None:
        self._t = transport
        self._ns = namespace

    @route("GET", "/_sim/deliveries")
    def list(self, webhook: Optional[int] = None, event: Optional[str] = None) -> Dict[str, Any]:
        """``{"entries", "dropped", "stats"}``, optionally of one webhook or event."""
        return self._t.request("GET", "/_sim/deliveries", query={"webhook": webhook, "event": event})

    @route("DELETE", "/_sim/deliveries")
    def clear(self) -> None:
        self._t.request("DELETE", "/_sim/deliveries")

    @route("GET", "/_sim/deliveries/stats")
    def stats(self) -> Dict[str, Any]:
        """``{"queued", "inFlight", "scheduledRetries"}``."""
        return self._t.request("GET", "/_sim/deliveries/stats")

    @route("POST", "/_sim/deliveries/wait")
    def wait(
        self,
        timeout: Duration = _DELIVERY_WAIT,
        webhook: Optional[int] = None,
        event: Optional[str] = None,
        delivery_id: Optional[int] = None,
    ) -> Optional[Dict[str, Any]]:
        """One long-poll: the first matching delivery (existing or future), or None after ``timeout``."""
        body: Dict[str, Any] = {"timeout": to_milliseconds(timeout)}
        for key, value in (("webhook", webhook), ("event", event), ("deliveryId", delivery_id)):
            if value is not None:
                body[key] = value
        try:
            res = self._t.request(
                "POST", "/_sim/deliveries/wait", body, timeout=to_seconds(timeout) + LONG_POLL_GRACE_S
            )
        except SimControlError as err:
            if err.status == 408:
                return None
            raise
        return res["entry"]

    def wait_for(
        self,
        timeout: Duration = _DELIVERY_WAIT,
        webhook: Optional[int] = None,
        event: Optional[str] = None,
        delivery_id: Optional[int] = None,
    ) -> Dict[str, Any]:
        """Like :meth:`wait`, but raises a SimWaitTimeoutError listing the deliveries made so far."""
        entry = self.wait(timeout, webhook=webhook, event=event, delivery_id=delivery_id)
        if entry is not None:
            return entry
        entries = self.list()["entries"]
        made = (
            "No deliveries were made."
            if not entries
            else "Deliveries made:\n" + "\n".join(f"  {describe_delivery(d)}" for d in entries[-20:])
        )
        wanted = {k: v for k, v in (("webhook", webhook), ("event", event), ("deliveryId", delivery_id)) if v is not None}
        raise SimWaitTimeoutError(
            f'no delivery matching {json.dumps(wanted)} within {timeout} (namespace "{self._ns}"). {made}'
        )

    @route("POST", "/_sim/deliveries/idle")
    def idle(self) -> Dict[str, Any]:
        """Returns when nothing is queued or in flight (retries scheduled on the clock do not count)."""
        return self._t.request("POST", "/_sim/deliveries/idle", timeout=60 + LONG_POLL_GRACE_S)

    @route("GET", "/_sim/deliveries/settings")
    def settings(self) -> Dict[str, Any]:
        """``{"egress": {"policy", "allow"}}``."""
        return self._t.request("GET", "/_sim/deliveries/settings")

    @route("PATCH", "/_sim/deliveries/settings")
    def configure(self, egress: Mapping[str, Any]) -> Dict[str, Any]:
        """Changes the egress policy (``{"policy": "cvat-proxy", "allow": [...]}``; allow replaces)."""
        return self._t.request("PATCH", "/_sim/deliveries/settings", {"egress": dict(egress)})


class Webhooks:
    def __init__(self, transport: _Transport) -> None:
        self._t = transport

    @route("GET", "/_sim/webhooks")
    def list(self, limit: Optional[int] = None) -> List[Dict[str, Any]]:
        """The world's webhooks, each with its newest ``limit`` (default 50) delivery rows."""
        return self._t.request("GET", "/_sim/webhooks", query={"limit": limit})["webhooks"]

    @route("POST", "/_sim/webhooks/{id}/deliveries/{deliveryId}/redeliver")
    def redeliver(self, webhook_id: int, delivery_id: int) -> Dict[str, Any]:
        """Sends a delivery row again, as CVAT's redelivery does: ``{"redelivered", "webhook", "delivery"}``."""
        return self._t.request("POST", f"/_sim/webhooks/{_seg(webhook_id)}/deliveries/{_seg(delivery_id)}/redeliver")


class Exports:
    """Event-log export jobs, moved by hand."""

    def __init__(self, transport: _Transport) -> None:
        self._t = transport

    def _path(self, rq_id: str, action: str) -> str:
        return f"/_sim/events/exports/{_seg(rq_id)}/{action}"

    @route("POST", "/_sim/events/exports")
    def create(self, job: Optional[Mapping[str, Any]] = None, **fields: Any) -> Dict[str, Any]:
        """Creates an export job in a given state (``query_id``, ``user_id``, ``username``, ``status``, …)."""
        return self._t.request("POST", "/_sim/events/exports", dict(job or {}, **fields))

    @route("POST", "/_sim/events/exports/{id}/complete")
    def complete(self, rq_id: str) -> Dict[str, Any]:
        """Finishes an export now; a SimControlError 404 for no such job, 409 when it has ended."""
        return self._t.request("POST", self._path(rq_id, "complete"))

    @route("POST", "/_sim/events/exports/{id}/fail")
    def fail(self, rq_id: str, message: str) -> Dict[str, Any]:
        """Fails an export now with ``message`` as its error text."""
        return self._t.request("POST", self._path(rq_id, "fail"), {"message": message})

    @route("POST", "/_sim/events/exports/{id}/expire-file")
    def expire_file(self, rq_id: str) -> Dict[str, Any]:
        """Makes a finished export's file gone (the download then fails as CVAT's does)."""
        return self._t.request("POST", self._path(rq_id, "expire-file"))


class Events:
    """The events API: its settings, the event log, export jobs."""

    def __init__(self, transport: _Transport) -> None:
        self._t = transport
        self.exports = Exports(transport)

    @route("GET", "/_sim/events")
    def get(self) -> Dict[str, Any]:
        """``{"settings", "stored", "dropped", "evicted", "jobs"}``."""
        return self._t.request("GET", "/_sim/events")

    @route("GET", "/_sim/events/settings")
    def settings(self) -> Dict[str, Any]:
        return self._t.request("GET", "/_sim/events/settings")

    @route("PATCH", "/_sim/events/settings")
    def configure(self, settings: Optional[Mapping[str, Any]] = None, **fields: Any) -> Dict[str, Any]:
        """``exportDuration``, ``exportQueued``, ``storeConnected``, ``resultTtl``, ``maxEvents``."""
        return self._t.request("PATCH", "/_sim/events/settings", dict(settings or {}, **fields))

    @route("POST", "/_sim/events/records")
    def record(self, events: List[Mapping[str, Any]]) -> Dict[str, Any]:
        """Writes rows to the event log directly (CSV column names; ``timestamp`` ISO or epoch ms)."""
        return self._t.request("POST", "/_sim/events/records", {"events": [dict(e) for e in events]})


class Requests:
    """Background requests (task data, dataset and backup exports)."""

    def __init__(self, transport: _Transport) -> None:
        self._t = transport

    @route("GET", "/_sim/requests")
    def list(self) -> List[Dict[str, Any]]:
        """Every request with its status (``rq_id``, ``type``, ``status``, ``finishAt``, ``lost``, …)."""
        return self._t.request("GET", "/_sim/requests")["requests"]

    @route("GET", "/_sim/requests/settings")
    def settings(self) -> Dict[str, Any]:
        return self._t.request("GET", "/_sim/requests/settings")

    @route("PATCH", "/_sim/requests/settings")
    def configure(self, settings: Optional[Mapping[str, Any]] = None, **fields: Any) -> Dict[str, Any]:
        """How long requests take; answers with all the settings."""
        return self._t.request("PATCH", "/_sim/requests/settings", dict(settings or {}, **fields))

    @route("POST", "/_sim/requests/{id}/complete")
    def complete(self, rq_id: str) -> Dict[str, Any]:
        """Ends a request now, its work done (also ends a lost one); 404 / 409 as the exports'."""
        return self._t.request("POST", f"/_sim/requests/{_seg(rq_id)}/complete")

    @route("POST", "/_sim/requests/{id}/fail")
    def fail(self, rq_id: str, message: str) -> Dict[str, Any]:
        """Ends a request now, failed with ``message`` (what ``GET /api/requests/{id}`` shows)."""
        return self._t.request("POST", f"/_sim/requests/{_seg(rq_id)}/fail", {"message": message})


class Annotations:
    def __init__(self, transport: _Transport) -> None:
        self._t = transport

    @route("GET", "/_sim/annotations")
    def list(
        self, job_id: Optional[int] = None, limit: Optional[int] = None, events_limit: Optional[int] = None
    ) -> Dict[str, Any]:
        """``{"jobs", "job_count", "events", "event_count"}``: jobs with annotations counted by label and
        type, and the newest annotation events; ``job_id`` shows that job alone (404 when it does not exist)."""
        query: Dict[str, Union[int, None]] = {"job_id": job_id, "limit": limit, "events_limit": events_limit}
        return self._t.request("GET", "/_sim/annotations", query=query)


class AnnotationSimClient(SimClient):
    """A control client for annotation-sim.

    >>> sim = AnnotationSimClient("http://127.0.0.1:8086")
    >>> sim.events.configure(storeConnected=False)  # the analytics store is down
    >>> sim.deliveries.wait_for(event="create:task")["statusCode"]
    200
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.deliveries = Deliveries(self._t, self.namespace)
        self.webhooks = Webhooks(self._t)
        self.events = Events(self._t)
        self.requests = Requests(self._t)
        self.annotations = Annotations(self._t)
