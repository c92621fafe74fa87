"""The client covers every control route of both simulators: the routes its methods declare (@route)
are exactly those of the simulator's GET /_sim/openapi.json, the deprecated spellings aside (the client
calls their replacements) and the dashboard's page (a page for browsers: dashboard_url() gives it)."""

from typing import Any, List, Set, Tuple

from sims.client import FaultRule, routes_of

NOT_A_CLIENT_CALL = {("GET", "/_sim/ui/")}


def parts_of(obj: Any, seen: Set[int]) -> List[Any]:
    """The client and every part object under it (faults, clock, events.exports, …)."""
    if id(obj) in seen:
        return []
    seen.add(id(obj))
    found = [obj]
    for value in vars(obj).values():
        if type(value).__module__.startswith("sims.") and hasattr(value, "__dict__") and not isinstance(value, type):
            found += parts_of(value, seen)
    return found


def documented(control: Any) -> Tuple[Set[Tuple[str, str]], Set[Tuple[str, str]]]:
    current, deprecated = set(), set()
    for path, operations in control.open_api()["paths"].items():
        for method, operation in operations.items():
            (deprecated if operation.get("deprecated") else current).add((method.upper(), path))
    return current, deprecated


def check(control: Any) -> None:
    client = set(routes_of(*parts_of(control, set()), FaultRule))
    current, deprecated = documented(control)
    assert sorted(current - NOT_A_CLIENT_CALL - client) == [], "control routes the client does not call"
    assert sorted(client - current) == [], "client routes the simulator does not document"
    for method, path in deprecated:
        # The replacement: the same path with another method (PUT -> PATCH), or the target in the path.
        assert any(
            p == path and m != method or p.replace("/{id}", "") == path for m, p in client
        ), f"{method} {path} is deprecated but the client calls no replacement"


def test_the_cluster_sim_client_covers_its_control_plane(cluster_sim):
    check(cluster_sim.control)


def test_the_annotation_sim_client_covers_its_control_plane(annotation_sim):
    check(annotation_sim.control)
