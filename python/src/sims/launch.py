"""Ways to have a simulator for a test: its CLI (a given path or ``npx``), an address already running, or
its Docker image. Each hands back a :class:`StartedSim`: the API URL, the control client and a stop."""

from __future__ import annotations

import functools
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import threading
import time
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Type, Union

import requests

from .annotation import AnnotationSimClient
from .client import SimClient
from .cluster import ClusterSimClient
from .errors import SimControlError

#: The simulators, by the name their CLI, package and image carry.
SIMULATORS: Dict[str, Type[SimClient]] = {
    "cluster-sim": ClusterSimClient,
    "annotation-sim": AnnotationSimClient,
}
#: The images ``scripts/docker-images.sh`` builds (the Node testcontainers module's defaults too).
DEFAULT_IMAGES = {"cluster-sim": "sims/cluster-sim:dev", "annotation-sim": "sims/annotation-sim:dev"}
#: The environment variables that override them (the same names the Node testcontainers module reads).
IMAGE_ENV = {"cluster-sim": "SIMS_CLUSTER_SIM_IMAGE", "annotation-sim": "SIMS_ANNOTATION_SIM_IMAGE"}

#: The line both CLIs print once they listen: ``cluster-sim 0.1.0 ready at http://127.0.0.1:8085 (…)``.
READY_LINE = re.compile(r"^(\S+) (\S+) ready at (https?://\S+)")
START_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 10.0


def _client_class(simulator: str) -> Type[SimClient]:
    try:
        return SIMULATORS[simulator]
    except KeyError:
        raise ValueError(f"unknown simulator {simulator!r}: expected one of {sorted(SIMULATORS)}") from None


class StartedSim:
    """A simulator to test against: ``url`` (its API, no trailing slash), ``control`` (its control client,
    namespace ``default``), ``admin_token`` (None for an open control plane) and ``stop()`` (idempotent;
    a no-op for an address someone else runs). A context manager."""

    def __init__(
        self,
        simulator: str,
        url: str,
        admin_token: Optional[str],
        stop: Callable[[], None],
        version: Optional[str] = None,
        output: Optional[Callable[[], str]] = None,
    ) -> None:
        self.simulator = simulator
        self.url = url.rstrip("/")
        self.admin_token = admin_token
        self.version = version
        self.control = _client_class(simulator)(self.url, admin_token=admin_token)
        self._stop = stop
        self._stopped = False
        self._output = output

    def client(self, namespace: Optional[str] = None) -> SimClient:
        """A control client of this simulator for a namespace (``default`` when None)."""
        return self.control if namespace is None else self.control.with_namespace(namespace)

    def output(self) -> str:
        """What the simulator printed so far (the CLI's or the container's output), for messages."""
        return self._output() if self._output else ""

    def stop(self) -> None:
        if not self._stopped:
            self._stopped = True
            self._stop()

    def __enter__(self) -> "StartedSim":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"StartedSim({self.simulator!r}, {self.url!r})"


def connect(simulator: str, url: str, admin_token: Optional[str] = None, check: bool = True) -> StartedSim:
    """A simulator already running at ``url`` (started by CI, docker compose, another process). ``stop()``
    leaves it running. With ``check`` its ``/_sim/health`` must say it is this simulator."""
    started = StartedSim(simulator, url, admin_token, lambda: None)
    if check:
        health = started.control.health()
        if health.get("simulator") != simulator:
            raise RuntimeError(f"{url} is {health.get('simulator')!r}, not {simulator}")
        started.version = health.get("version")
    return started


class _Tail:
    """The last lines a process printed, kept for error messages."""

    def __init__(self, limit: int = 200) -> None:
        self.lines: List[str] = []
        self.limit = limit
        self.lock = threading.Lock()

    def add(self, line: str) -> None:
        with self.lock:
            self.lines.append(line.rstrip("\n"))
            del self.lines[: -self.limit]

    def text(self) -> str:
        with self.lock:
            return "\n".join(self.lines)


def _options_env(
    clock: Optional[str], seed: Optional[int], admin_token: Optional[str], scenarios: Sequence[str]
) -> Dict[str, str]:
    """The CLI's options as its ``SIM_*`` variables (the same for the CLI and the image)."""
    env: Dict[str, str] = {}
    if clock is not None:
        env["SIM_CLOCK"] = clock
    if seed is not None:
        env["SIM_SEED"] = str(seed)
    if admin_token is not None:
        env["SIM_ADMIN_TOKEN"] = admin_token
    if scenarios:
        env["SIM_SCENARIO"] = ",".join(scenarios)
    return env


def cli_command(simulator: str, cli: Optional[str] = None, node: Optional[str] = None) -> List[str]:
    """How to run a simulator's CLI: a ``.js``/``.cjs``/``.mjs`` file with node, another executable as
    is, or (no ``cli``) ``npx --no-install <simulator>`` from the project that installed the package."""
    _client_class(simulator)
    if cli is None:
        npx = shutil.which("npx")
        if npx is None:
            raise RuntimeError(
                f"npx is not on PATH: install Node 20.19+ and `npm install --save-dev @sims/{simulator}`, "
                f"or give the CLI's path (SIMS_{simulator.upper().replace('-', '_')}_CLI)"
            )
        return [npx, "--no-install", simulator]
    if cli.endswith((".js", ".cjs", ".mjs")):
        return [node or shutil.which("node") or "node", cli]
    return [cli]


def start_cli(
    simulator: str,
    cli: Optional[str] = None,
    *,
    node: Optional[str] = None,
    clock: Optional[str] = "manual",
    seed: Optional[int] = None,
    admin_token: Optional[str] = None,
    scenarios: Sequence[str] = (),
    args: Sequence[str] = (),
    env: Optional[Mapping[str, str]] = None,
    cwd: Optional[str] = None,
    timeout: float = START_TIMEOUT_S,
) -> StartedSim:
    """Starts a simulator's CLI on 127.0.0.1 and a free port and waits for its ready line.

    ``cli`` is the CLI's path (``node_modules/@sims/cluster-sim/dist/main.js``, or an executable), or
    None for ``npx --no-install <simulator>``. ``stop()`` sends SIGTERM (a ``--state-file`` is saved then)
    and kills the process if it has not exited within 10 s."""
    command = cli_command(simulator, cli, node) + ["--port", "0", "--host", "127.0.0.1", *args]
    full_env = dict(os.environ)
    full_env.update(_options_env(clock, seed, admin_token, scenarios))
    full_env.update(env or {})
    # npx and node print update and fund notices that are not the simulator's.
    full_env.setdefault("NPM_CONFIG_UPDATE_NOTIFIER", "false")
    proc = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=full_env,
        cwd=cwd,
        text=True,
        bufsize=1,
        # Its own process group: npx runs node as a child, and the stop must reach the simulator.
        start_new_session=True,
    )
    tail = _Tail()
    ready = threading.Event()
    found: Dict[str, str] = {}

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            tail.add(line)
            m = READY_LINE.match(line)
            if m and not ready.is_set():
                found.update(name=m.group(1), version=m.group(2), url=m.group(3))
                ready.set()
        ready.set()  # the process ended: stop waiting

    threading.Thread(target=read, name=f"{simulator}-output", daemon=True).start()

    def stop() -> None:
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                proc.wait(STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()

    if not ready.wait(timeout) or "url" not in found:
        stop()
        raise RuntimeError(
            f"{' '.join(command)} printed no ready line within {timeout} s"
            f" (exit {proc.poll()}); its output:\n{tail.text() or '(none)'}"
        )
    if found["name"] != simulator:
        stop()
        raise RuntimeError(f"{' '.join(command)} is {found['name']}, not {simulator}")
    return StartedSim(simulator, found["url"], admin_token, stop, version=found["version"], output=tail.text)


def free_port() -> int:
    """A port free on 127.0.0.1 now (another process may take it before it is used: callers retry)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def random_token() -> str:
    """A random admin token, as the Node testcontainers module makes one (so a port is never an open
    control plane)."""
    return secrets.token_hex(24)


def _docker(docker: str, *args: str, timeout: float = 60) -> str:
    res = subprocess.run([docker, *args], capture_output=True, text=True, timeout=timeout)
    if res.returncode != 0:
        raise RuntimeError(f"docker {' '.join(args)} failed ({res.returncode}): {res.stderr.strip()}")
    return res.stdout.strip()


def start_docker(
    simulator: str,
    image: Optional[str] = None,
    *,
    admin_token: Union[str, None, bool] = True,
    clock: Optional[str] = "manual",
    seed: Optional[int] = None,
    env: Optional[Mapping[str, str]] = None,
    docker: str = "docker",
    timeout: float = START_TIMEOUT_S,
) -> StartedSim:
    """Runs a simulator's image on the host's network (``--network host``, 127.0.0.1 and a free port) with
    the docker CLI, and waits for ``/_sim/health``. ``admin_token=True`` (the default) makes a random one,
    as the Node testcontainers module does; a string uses it; None or False leaves the control plane open.
    ``image`` defaults to ``$SIMS_<SIM>_IMAGE`` or ``sims/<simulator>:dev``. ``stop()`` is ``docker stop``
    (the container is started with ``--rm``)."""
    _client_class(simulator)
    image = image or os.environ.get(IMAGE_ENV[simulator]) or DEFAULT_IMAGES[simulator]
    token = random_token() if admin_token is True else (admin_token or None)
    last_error = ""
    for _attempt in range(3):
        port = free_port()
        variables = {"SIM_HOST": "127.0.0.1", "SIM_PORT": str(port)}
        variables.update(_options_env(clock, seed, token, ()))
        variables.update(env or {})
        flags: List[str] = []
        for key, value in variables.items():
            flags += ["-e", f"{key}={value}"]
        container = _docker(docker, "run", "-d", "--rm", "--network", "host", *flags, image)
        url = f"http://127.0.0.1:{port}"

        def stop(container: str = container) -> None:
            subprocess.run([docker, "stop", "-t", str(int(STOP_TIMEOUT_S)), container], capture_output=True)

        def output(container: str = container) -> str:
            res = subprocess.run([docker, "logs", container], capture_output=True, text=True)
            return res.stdout + res.stderr

        version = _wait_healthy(url, simulator, timeout, functools.partial(_running, docker, container))
        if version is not None:
            return StartedSim(simulator, url, token, stop, version=version, output=output)
        last_error = output()
        stop()
        if "EADDRINUSE" not in last_error:
            break
    raise RuntimeError(f"{image} did not answer /_sim/health within {timeout} s; its output:\n{last_error}")


def _running(docker: str, container: str) -> bool:
    res = subprocess.run([docker, "inspect", "-f", "{{.State.Running}}", container], capture_output=True, text=True)
    return res.stdout.strip() == "true"


def _wait_healthy(url: str, simulator: str, timeout: float, alive: Callable[[], bool]) -> Optional[str]:
    """Polls ``/_sim/health`` until it answers (the version), the process is gone or time is up (None).
    Polling is what a container offers before it listens; tests themselves never poll."""
    deadline = time.monotonic() + timeout
    session = requests.Session()
    session.trust_env = False
    while time.monotonic() < deadline:
        try:
            res = session.get(url + "/_sim/health", timeout=2)
            if res.ok and res.json().get("simulator") == simulator:
                return str(res.json().get("version"))
        except (requests.RequestException, ValueError, SimControlError):
            pass
        if not alive():
            return None
        time.sleep(0.1)
    return None
