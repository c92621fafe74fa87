"""The two exceptions of the control client: a control-plane refusal, and a wait that ran out."""

from __future__ import annotations

import json
from typing import Any, Optional


class SimControlError(Exception):
    """A non-2xx answer from the control plane, carrying its envelope
    ``{"error": {"status", "reason", "message", "path"?}}``.

    An answer that is not the control envelope (a proxy's 502, the emulated API's 404 for an unknown
    ``/_sim`` route) becomes a SimControlError too, with reason ``UNEXPECTED_RESPONSE`` and the text in
    ``body``, so a test never mistakes a provider-shaped error for a control-plane one (as the Node
    client's SimControlError does).
    """

    def __init__(
        self,
        status: int,
        reason: str,
        message: str,
        method: str,
        url: str,
        path: Optional[str] = None,
        body: Optional[str] = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        #: ``INVALID_INPUT``, ``UNAUTHENTICATED``, ``NOT_FOUND``, ``CONFLICT``, ``TIMEOUT``, …
        self.reason = reason
        self.message = message
        self.method = method
        self.url = url
        #: Where in the input the problem is (``trigger.times``), when the simulator said.
        self.path = path
        self.body = body

    def __str__(self) -> str:
        where = f" at {self.path}" if self.path else ""
        return f"{self.method} {self.url} -> {self.status} {self.reason}{where}: {self.message}"

    @classmethod
    def from_response(cls, status: int, text: str, method: str, url: str) -> "SimControlError":
        """Reads the control envelope out of a response body when there is one."""
        parsed: Any = None
        try:
            parsed = json.loads(text) if text else None
        except ValueError:
            parsed = None
        envelope = parsed.get("error") if isinstance(parsed, dict) else None
        if (
            isinstance(envelope, dict)
            and isinstance(envelope.get("message"), str)
            and isinstance(envelope.get("reason"), str)
        ):
            return cls(
                status=envelope["status"] if isinstance(envelope.get("status"), int) else status,
                reason=envelope["reason"],
                message=envelope["message"],
                method=method,
                url=url,
                path=envelope["path"] if isinstance(envelope.get("path"), str) else None,
            )
        preview = text if len(text) <= 500 else text[:500] + "…"
        return cls(
            status=status,
            reason="UNEXPECTED_RESPONSE",
            message=(
                f"{method} {url} answered {status} without the control-plane error envelope: "
                f"{preview or '(empty body)'}"
            ),
            method=method,
            url=url,
            body=text,
        )


class SimWaitTimeoutError(AssertionError):
    """What a ``wait_for`` raises when what it waits for did not happen in time; its message lists what
    did happen. An AssertionError, so pytest reports it as a failed expectation, not an error."""
