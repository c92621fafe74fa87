"""The pytest plugin (entry point ``pytest11``: active once the package is installed).

Fixtures:

- ``cluster_sim_server`` / ``annotation_sim_server`` (session): the simulator, started once for the
  session (from an address, the Docker image or the CLI, by the options below) and stopped at its end.
- ``cluster_sim`` / ``annotation_sim`` (each test): that simulator seen from a namespace of the test's
  own (``url`` is the API under ``/_ns/<namespace>``, ``control`` the control client in it), deleted after
  the test; with ``--sims-shared-namespace`` the ``default`` namespace, reset after each test instead.
- ``webhook_receiver`` (each test): a :class:`~sims.webhooks.WebhookReceiver` with a random ``secret``.

Where the simulators come from, first that applies (every option also has its environment variable):

1. ``--sims-cluster-url`` / ``SIMS_CLUSTER_SIM_URL`` (and ``--sims-annotation-url`` /
   ``SIMS_ANNOTATION_SIM_URL``): an address already running; ``--sims-admin-token`` /
   ``SIMS_ADMIN_TOKEN`` is its admin token;
2. ``--sims-docker`` / ``SIMS_DOCKER=1``: the images (``--sims-cluster-image`` /
   ``SIMS_CLUSTER_SIM_IMAGE``, default ``sims/cluster-sim:dev``; the annotation-sim ones likewise), on
   the host's network with a random admin token;
3. the CLI: ``--sims-cluster-cli`` / ``SIMS_CLUSTER_SIM_CLI`` (a path; default ``npx --no-install
   cluster-sim``), run with ``--sims-node`` / ``SIMS_NODE`` when it is a ``.js`` file.

Started simulators run a manual clock: a test moves time with ``control.clock.advance(...)``.
"""

from __future__ import annotations

import itertools
import os
import re
import secrets
from typing import Any, Iterator, Optional

import pytest

from .errors import SimControlError
from .launch import StartedSim, connect, start_cli, start_docker
from .webhooks import WebhookReceiver

_SHORT = {"cluster-sim": "cluster", "annotation-sim": "annotation"}
_ENV_PREFIX = {"cluster-sim": "SIMS_CLUSTER_SIM", "annotation-sim": "SIMS_ANNOTATION_SIM"}
_counter = itertools.count(1)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("sims", "contract simulators (cluster-sim, annotation-sim)")
    for sim, short in _SHORT.items():
        env = _ENV_PREFIX[sim]
        group.addoption(f"--sims-{short}-url", default=None, help=f"a running {sim} to use (${env}_URL)")
        group.addoption(f"--sims-{short}-image", default=None, help=f"{sim}'s image (${env}_IMAGE)")
        group.addoption(f"--sims-{short}-cli", default=None, help=f"{sim}'s CLI path (${env}_CLI; default npx)")
    group.addoption("--sims-admin-token", default=None, help="admin token of the running simulators ($SIMS_ADMIN_TOKEN)")
    group.addoption("--sims-docker", action="store_true", default=None, help="start the Docker images ($SIMS_DOCKER=1)")
    group.addoption("--sims-node", default=None, help="node executable for a .js CLI ($SIMS_NODE)")
    group.addoption(
        "--sims-shared-namespace",
        action="store_true",
        default=None,
        help="tests share the default namespace, reset after each, instead of one each ($SIMS_SHARED_NAMESPACE=1)",
    )


def _option(config: pytest.Config, name: str, env: str) -> Optional[str]:
    value = config.getoption(name)
    if value is None or value is False or value == "":
        value = os.environ.get(env) or None
    return None if value is None else str(value)


def _flag(config: pytest.Config, name: str, env: str) -> bool:
    value = _option(config, name, env)
    return value is not None and value.lower() not in ("0", "false", "no", "")


def describe_source(config: pytest.Config, simulator: str) -> str:
    """Where the simulator comes from under these options, in words (the report header shows it)."""
    short, env = _SHORT[simulator], _ENV_PREFIX[simulator]
    url = _option(config, f"--sims-{short}-url", f"{env}_URL")
    if url:
        return f"{simulator}: running at {url}"
    if _flag(config, "--sims-docker", "SIMS_DOCKER"):
        image = _option(config, f"--sims-{short}-image", f"{env}_IMAGE") or f"sims/{simulator}:dev"
        return f"{simulator}: image {image}"
    cli = _option(config, f"--sims-{short}-cli", f"{env}_CLI")
    return f"{simulator}: CLI {cli or 'npx --no-install ' + simulator}"


def pytest_report_header(config: pytest.Config) -> str:
    return "sims: " + "; ".join(describe_source(config, s) for s in _SHORT)


def start_for(config: pytest.Config, simulator: str) -> StartedSim:
    """The simulator the options name, started (or connected to)."""
    short, env = _SHORT[simulator], _ENV_PREFIX[simulator]
    url = _option(config, f"--sims-{short}-url", f"{env}_URL")
    if url:
        return connect(simulator, url, admin_token=_option(config, "--sims-admin-token", "SIMS_ADMIN_TOKEN"))
    if _flag(config, "--sims-docker", "SIMS_DOCKER"):
        return start_docker(simulator, _option(config, f"--sims-{short}-image", f"{env}_IMAGE"))
    return start_cli(
        simulator,
        _option(config, f"--sims-{short}-cli", f"{env}_CLI"),
        node=_option(config, "--sims-node", "SIMS_NODE"),
    )


class SimUnderTest:
    """A simulator as one test sees it: ``url`` (the emulated API, in the test's namespace), ``control``
    (the control client in that namespace), ``namespace`` and ``server`` (the session's simulator).
    Attributes of the control client are reachable directly: ``cluster_sim.faults.add(...)``."""

    def __init__(self, server: StartedSim, namespace: str, prefixed: bool) -> None:
        self.server = server
        self.namespace = namespace
        self.url = f"{server.url}/_ns/{namespace}" if prefixed else server.url
        self.control: Any = server.client(namespace)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.control, name)

    def __repr__(self) -> str:
        return f"<{self.server.simulator} at {self.url}>"


def _namespace_for(node: pytest.Item) -> str:
    """``t<n>-<test name>``: valid (letters, digits, ``.``, ``_``, ``-``; 1-63) and unique in the session."""
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", node.name).strip("-._") or "test"
    return f"t{next(_counter)}-{name}"[:63].rstrip("-._")


def _per_test(request: pytest.FixtureRequest, server: StartedSim) -> Iterator[SimUnderTest]:
    shared = _flag(request.config, "--sims-shared-namespace", "SIMS_SHARED_NAMESPACE")
    if shared:
        sim = SimUnderTest(server, "default", prefixed=False)
        try:
            yield sim
        finally:
            sim.control.reset()
        return
    namespace = _namespace_for(request.node)
    server.control.namespaces.create(namespace)
    try:
        yield SimUnderTest(server, namespace, prefixed=True)
    finally:
        try:
            server.control.namespaces.delete(namespace)
        except SimControlError as err:
            if err.status != 404:  # the test deleted it itself
                raise


@pytest.fixture(scope="session")
def cluster_sim_server(pytestconfig: pytest.Config) -> Iterator[StartedSim]:
    """cluster-sim for the whole session (see the module's doc for where it comes from)."""
    with start_for(pytestconfig, "cluster-sim") as server:
        yield server


@pytest.fixture(scope="session")
def annotation_sim_server(pytestconfig: pytest.Config) -> Iterator[StartedSim]:
    """annotation-sim for the whole session."""
    with start_for(pytestconfig, "annotation-sim") as server:
        yield server


@pytest.fixture
def cluster_sim(request: pytest.FixtureRequest, cluster_sim_server: StartedSim) -> Iterator[SimUnderTest]:
    """cluster-sim in a namespace of this test's own (``.url``, ``.control``: a ClusterSimClient)."""
    yield from _per_test(request, cluster_sim_server)


@pytest.fixture
def annotation_sim(request: pytest.FixtureRequest, annotation_sim_server: StartedSim) -> Iterator[SimUnderTest]:
    """annotation-sim in a namespace of this test's own (``.url``, ``.control``: an AnnotationSimClient)."""
    yield from _per_test(request, annotation_sim_server)


@pytest.fixture
def webhook_receiver() -> Iterator[WebhookReceiver]:
    """A webhook receiver on 127.0.0.1 with a random ``secret``: give both to the webhook you create."""
    with WebhookReceiver(secret=secrets.token_hex(16)) as receiver:
        yield receiver


__all__ = ["SimUnderTest", "describe_source", "start_for"]
