"""A webhook receiver for tests: it records every CVAT delivery and checks ``X-Signature-256`` the way
CVAT signs it (``"sha256=" + HMAC-SHA256(key=secret, msg=raw body bytes).hexdigest()``, compared in
constant time as CVAT's documented sample receiver does; the Node client's webhook-receiver.ts)."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
from dataclasses import dataclass, field
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, List, Optional, Union, overload

from .duration import Duration, to_seconds
from .errors import SimWaitTimeoutError

#: The header CVAT signs deliveries with when the webhook has a secret.
SIGNATURE_HEADER = "X-Signature-256"


def sign_webhook_body(secret: str, body: Union[str, bytes]) -> str:
    """The ``X-Signature-256`` value of a body, as CVAT computes it."""
    raw = body.encode("utf-8") if isinstance(body, str) else body
    return "sha256=" + hmac.new(secret.encode("utf-8"), raw, hashlib.sha256).hexdigest()


def verify_webhook_signature(secret: str, raw_body: bytes, header: Optional[str]) -> bool:
    """Checks a signature against the RAW body bytes (never a re-serialized body: CVAT signs Python's
    ``json.dumps`` output byte for byte)."""
    if header is None:
        return False
    return hmac.compare_digest(sign_webhook_body(secret, raw_body).encode(), header.encode())


@dataclass
class ReceivedDelivery:
    """One request the receiver got."""

    seq: int
    method: str
    #: Path and query, e.g. ``/hooks/a?x=1``.
    path: str
    #: Lower-case names.
    headers: Dict[str, str]
    #: The body bytes exactly as received (what the signature covers).
    raw_body: bytes
    #: The body parsed as JSON; None when empty or not JSON.
    body: Any
    #: The ``X-Signature-256`` header, when sent.
    signature: Optional[str]
    #: With a secret: whether ``signature`` is the HMAC of ``raw_body``; without one: None (not checked).
    signature_valid: Optional[bool]
    #: The status it was answered with (None: not answered, the receiver was told to hang).
    answered: Optional[int]
    received_at: datetime = field(default_factory=lambda: datetime.now(timezone.utc))

    @property
    def event(self) -> Optional[str]:
        """The CVAT event (``update:task``, ``ping``), when the body has one."""
        return self.body.get("event") if isinstance(self.body, dict) else None

    def describe(self) -> str:
        sig = "" if self.signature_valid is None else (" signature ok" if self.signature_valid else " signature BAD")
        event = f" event={self.event}" if self.event else ""
        answered = "hung" if self.answered is None else str(self.answered)
        return f"#{self.seq} {self.method} {self.path}{event}{sig} -> {answered}"


class WebhookReceiver:
    """An HTTP server on 127.0.0.1 that records deliveries and answers 200 with the body echoed (as
    CVAT's own test receiver does), or as told (:meth:`fail_next`, :meth:`hang`).

    >>> with WebhookReceiver(secret="s3cret") as receiver:
    ...     create_webhook(target_url=receiver.url + "/hook", secret=receiver.secret)
    ...     [delivery] = receiver.wait_for(1)
    ...     assert delivery.signature_valid
    """

    def __init__(self, secret: Optional[str] = None, port: int = 0) -> None:
        self.secret = secret
        self.deliveries: List[ReceivedDelivery] = []
        self._instructions: List[Optional[int]] = []  # a status to fail with, or None to hang
        self._cond = threading.Condition()
        self._hanging: List[threading.Event] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def _handle(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                status = receiver._record(self.command, self.path, self.headers.items(), raw)
                if status is None:
                    gate = threading.Event()
                    receiver._hanging.append(gate)
                    gate.wait()
                    self.close_connection = True
                    return
                text = raw if status == 200 else json.dumps({"error": f"test receiver told to answer {status}"}).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(text)))
                self.end_headers()
                self.wfile.write(text)

            do_POST = do_PUT = do_GET = do_PATCH = do_DELETE = _handle

        self._server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self._server.daemon_threads = True
        self.port = int(self._server.server_address[1])
        #: ``http://127.0.0.1:<port>``; any path under it is accepted.
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._server.serve_forever, name="webhook-receiver", daemon=True)
        self._thread.start()

    def _record(self, method: str, path: str, header_items: Any, raw: bytes) -> Optional[int]:
        headers = {k.lower(): v for k, v in header_items}
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        signature = headers.get(SIGNATURE_HEADER.lower())
        with self._cond:
            answer = self._instructions.pop(0) if self._instructions else 200
            self.deliveries.append(
                ReceivedDelivery(
                    seq=len(self.deliveries) + 1,
                    method=method,
                    path=path,
                    headers=headers,
                    raw_body=raw,
                    body=body,
                    signature=signature,
                    signature_valid=None if self.secret is None else verify_webhook_signature(self.secret, raw, signature),
                    answered=answer,
                )
            )
            self._cond.notify_all()
        return answer

    @overload
    def wait_for(self, target: int, timeout: Duration = "3s") -> List[ReceivedDelivery]: ...

    @overload
    def wait_for(self, target: Callable[[ReceivedDelivery], bool], timeout: Duration = "3s") -> ReceivedDelivery: ...

    def wait_for(self, target: Any, timeout: Duration = "3s") -> Any:
        """With a count: all deliveries once there are at least that many. With a predicate: the first
        delivery (already received or future) for which it holds. Raises SimWaitTimeoutError listing
        what was received after ``timeout`` (wall time)."""

        def done() -> Any:
            if isinstance(target, int):
                return list(self.deliveries) if len(self.deliveries) >= target else None
            return next((d for d in self.deliveries if target(d)), None)

        with self._cond:
            result = self._cond.wait_for(done, to_seconds(timeout))
            if result is None:
                what = f"{target} deliveries" if isinstance(target, int) else "a delivery matching the predicate"
                raise SimWaitTimeoutError(f"webhook receiver: {what} not received within {timeout}; {self.describe()}")
            return result

    def fail_next(self, status: int, times: int = 1) -> None:
        """Answers the next ``times`` deliveries with ``status`` (CVAT retries 5xx, 408 and 429)."""
        if not 100 <= status <= 599:
            raise ValueError(f"fail_next: {status} is not an HTTP status")
        with self._cond:
            self._instructions.extend([status] * times)

    def hang(self, times: int = 1) -> None:
        """Never answers the next ``times`` deliveries: the sender sees its own time-out."""
        with self._cond:
            self._instructions.extend([None] * times)

    def verify_all(self) -> None:
        """Raises AssertionError when any delivery's signature is missing or wrong (lists them)."""
        if self.secret is None:
            raise AssertionError("verify_all: the receiver has no secret, so nothing was verified")
        bad = [d for d in self.deliveries if not d.signature_valid]
        if bad:
            lines = "\n".join(f"  {d.describe()} (header: {d.signature or 'absent'})" for d in bad)
            raise AssertionError(
                f"webhook receiver: {len(bad)} of {len(self.deliveries)} deliveries have a missing or wrong "
                f"{SIGNATURE_HEADER}:\n{lines}"
            )

    def describe(self) -> str:
        """What was received, one line each, for messages."""
        if not self.deliveries:
            return "no deliveries received"
        return f"received {len(self.deliveries)}:\n" + "\n".join(f"  {d.describe()}" for d in self.deliveries)

    def clear(self) -> None:
        """Forgets deliveries and pending fail/hang instructions."""
        with self._cond:
            self.deliveries.clear()
            self._instructions.clear()

    def close(self) -> None:
        """Stops listening and lets hanging requests go."""
        for gate in self._hanging:
            gate.set()
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> "WebhookReceiver":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
