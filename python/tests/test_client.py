"""The shared control client against a real cluster-sim (the CLI or the image, per the plugin's options)."""

import pytest
import requests

from sims import SimControlError, SimWaitTimeoutError, assert_fault_fired, assert_received

POOL = "/v1beta1/projects/demo/locations/us-central1-a/clusters/c1/nodePools/default-pool"
SEED = {"clusters": [{"projectId": "demo", "location": "us-central1-a", "name": "c1",
                      "nodePools": [{"name": "default-pool", "version": "1.29.8-gke.1211000"}]}]}


def api(sim, method, path, body=None):
    return requests.request(method, sim.url + path, json=body, headers={"authorization": "Bearer t"})


def test_seed_faults_and_journal(cluster_sim):
    assert cluster_sim.health()["simulator"] == "cluster-sim"
    assert cluster_sim.seed(SEED)["namespace"] == cluster_sim.namespace
    rule = cluster_sim.faults.add(match={"operation": "nodePools.get"}, trigger={"times": 1},
                                  effect={"error": {"status": "UNAVAILABLE"}})
    assert [r["id"] for r in cluster_sim.faults.unfired()] == [rule.id]
    assert api(cluster_sim, "GET", POOL).status_code == 503
    assert api(cluster_sim, "GET", POOL).status_code == 200
    assert_fault_fired(rule, 1)
    assert rule.fired() == 1
    entries = assert_received(cluster_sim.control, operation="nodePools.get", times=2)
    assert [e["status"] for e in entries] == [503, 200]
    assert cluster_sim.journal.get(entries[0]["seq"])["faults"] == [rule.id]
    assert cluster_sim.journal.wait_for(operation="nodePools.get", status=200)["seq"] == entries[1]["seq"]
    assert cluster_sim.journal.stats()["total"] == 2
    assert cluster_sim.faults.list(unfired=True) == []
    added = cluster_sim.faults.add_yaml("- id: a\n  effect: { delay: 1s }\n- id: b\n  effect: { delay: 2s }\n")
    assert [r.id for r in added] == ["a", "b"]
    assert [r.id for r in cluster_sim.faults.add_many([{"id": "c", "effect": {"delay": "1s"}}])] == ["c"]
    cluster_sim.faults.remove("a")
    assert [r["id"] for r in cluster_sim.faults.list()] == [rule.id, "b", "c"]
    cluster_sim.faults.clear()
    cluster_sim.journal.clear()
    assert cluster_sim.faults.list() == [] and cluster_sim.journal.list() == []


def test_errors_carry_the_control_envelope(cluster_sim):
    with pytest.raises(SimControlError) as bad:
        cluster_sim.faults.add(trigger={"times": 0}, effect={"error": {"status": "ABORTED"}})
    assert (bad.value.status, bad.value.reason, bad.value.path) == (400, "INVALID_INPUT", "trigger.times")
    with pytest.raises(SimControlError) as missing:
        cluster_sim.faults.get("nope")
    assert (missing.value.status, missing.value.reason) == (404, "NOT_FOUND")
    with pytest.raises(SimControlError) as unknown:
        cluster_sim.request("GET", "/_sim/no-such-route")
    assert (unknown.value.status, unknown.value.reason) == (404, "NOT_FOUND")
    # An answer without the envelope (a proxy's, the emulated API's) is never mistaken for one.
    proxy = SimControlError.from_response(502, "<html>Bad Gateway</html>", "GET", "http://x/_sim/clock")
    assert (proxy.reason, proxy.body) == ("UNEXPECTED_RESPONSE", "<html>Bad Gateway</html>")


def test_wait_for_says_what_arrived(cluster_sim):
    cluster_sim.seed(SEED)
    api(cluster_sim, "GET", POOL)
    assert cluster_sim.journal.wait(timeout="50ms", operation="nodePools.update") is None
    with pytest.raises(SimWaitTimeoutError, match=r"(?s)operation=nodePools.update.*GET .*nodePools.get"):
        cluster_sim.journal.wait_for(timeout="50ms", operation="nodePools.update")
    with pytest.raises(AssertionError, match=r"(?s)received 0.*Most recent requests.*nodePools.get"):
        assert_received(cluster_sim.control, operation="nodePools.update")


def test_clock_state_scenarios_and_namespaces(cluster_sim):
    start = cluster_sim.clock.get()
    assert start["mode"] == "manual"
    assert cluster_sim.clock.advance("1m")["now"] > start["now"]
    assert cluster_sim.clock.set("2030-01-01T00:00:00Z")["now"] == "2030-01-01T00:00:00.000Z"
    assert cluster_sim.clock.configure(speed=2)["speed"] == 2
    loaded = cluster_sim.scenarios.load("name: s\nseed:\n  clusters: []\nfaults:\n  - id: x\n    effect: { delay: 1s }\n")
    assert loaded["faults"] == ["x"]
    cluster_sim.seed(SEED)
    snapshot = cluster_sim.state.export()
    cluster_sim.reset()
    assert cluster_sim.node_pools.list() == []
    cluster_sim.state.load(snapshot)
    assert [c["name"] for c in cluster_sim.node_pools.list()] == ["c1"]
    other = cluster_sim.with_namespace(cluster_sim.namespace + "-b")
    assert other.namespaces.create(other.namespace) == {"namespace": other.namespace, "created": True}
    assert other.namespace in other.namespaces.list() and other.node_pools.list() == []
    other.namespaces.delete(other.namespace)
    assert other.namespace not in other.namespaces.list()
    assert "kinds" in cluster_sim.memory()
    assert cluster_sim.dashboard_url().endswith("/_sim/ui/?namespace=" + cluster_sim.namespace)


def test_the_stream_says_hello(cluster_sim):
    events = cluster_sim.stream()
    first = next(events)
    events.close()
    assert first["event"] == "hello" and first["data"]["namespace"] == cluster_sim.namespace


def test_cluster_routes(cluster_sim):
    cluster_sim.seed(SEED)
    assert cluster_sim.settings.update(operationDurationMs=60_000)["operationDurationMs"] == 60_000
    assert cluster_sim.settings.get()["operationDurationMs"] == 60_000
    assert "validMasterVersions" in cluster_sim.server_config.get()
    versions = cluster_sim.server_config.update(validNodeVersions=["1.30.1-gke.1", "1.29.8-gke.1211000"])
    assert versions["validNodeVersions"][0] == "1.30.1-gke.1"
    first = api(cluster_sim, "PUT", POOL, {"nodeVersion": "-"}).json()
    assert [o["id"] for o in cluster_sim.operations.list()] == [first["name"]]
    assert cluster_sim.operations.list(status="DONE") == []
    assert cluster_sim.node_pools.list()[0]["pools"][0]["operation"] == first["name"]
    assert cluster_sim.operations.complete(first["name"])["status"] == "DONE"
    with pytest.raises(SimControlError) as done:
        cluster_sim.operations.complete(first["name"])
    assert done.value.status == 409
    second = api(cluster_sim, "PUT", POOL, {"nodeVersion": "-"}).json()
    failed = cluster_sim.operations.fail(second["name"], status="INTERNAL", message="upgrade failed midway")
    assert failed["error"]["message"] == "upgrade failed midway"
