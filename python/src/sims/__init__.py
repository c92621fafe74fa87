"""Python control client, launchers, webhook receiver and pytest plugin for the contract simulators
cluster-sim (GKE node pools) and annotation-sim (CVAT webhooks and events)."""

from .annotation import AnnotationSimClient
from .assertions import assert_fault_fired, assert_received
from .client import ADMIN_TOKEN_HEADER, NAMESPACE_HEADER, FaultRule, SimClient
from .cluster import ClusterSimClient
from .duration import to_milliseconds
from .errors import SimControlError, SimWaitTimeoutError
from .launch import StartedSim, connect, start_cli, start_docker
from .webhooks import (
    SIGNATURE_HEADER,
    ReceivedDelivery,
    WebhookReceiver,
    sign_webhook_body,
    verify_webhook_signature,
)

__all__ = [
    "ADMIN_TOKEN_HEADER",
    "NAMESPACE_HEADER",
    "SIGNATURE_HEADER",
    "AnnotationSimClient",
    "ClusterSimClient",
    "FaultRule",
    "ReceivedDelivery",
    "SimClient",
    "SimControlError",
    "SimWaitTimeoutError",
    "StartedSim",
    "WebhookReceiver",
    "assert_fault_fired",
    "assert_received",
    "connect",
    "sign_webhook_body",
    "start_cli",
    "start_docker",
    "to_milliseconds",
    "verify_webhook_signature",
]
