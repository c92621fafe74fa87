"""The pytest plugin as a project sees it: inner sessions (pytester) pointed at this session's simulator."""

INNER = '''
from sims import assert_received

def test_first(cluster_sim):
    cluster_sim.faults.add(id="mine", effect={"delay": "1s"})
    assert cluster_sim.namespace != "default" and cluster_sim.url.endswith("/_ns/" + cluster_sim.namespace)
    assert [r["id"] for r in cluster_sim.faults.list()] == ["mine"]

def test_second_starts_clean(cluster_sim):
    assert cluster_sim.faults.list() == []

def test_failing_assertion_lists_what_arrived(cluster_sim):
    cluster_sim.request("GET", "/_sim/health")
    assert_received(cluster_sim.control, operation="nodePools.update")
'''


def token(server):
    return ["--sims-admin-token", server.admin_token] if server.admin_token else []


def test_a_namespace_per_test_deleted_after_it(pytester, cluster_sim_server):
    before = set(cluster_sim_server.control.namespaces.list())
    pytester.makepyfile(INNER)
    result = pytester.runpytest_inprocess(
        "--sims-cluster-url", cluster_sim_server.url, *token(cluster_sim_server),
        "-p", "no:cacheprovider",
    )
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*sims: cluster-sim: running at http://127.0.0.1:*",
                                 "*to have received at least 1 request matching { operation=nodePools.update }*"])
    assert set(cluster_sim_server.control.namespaces.list()) == before


def test_a_shared_namespace_reset_after_each_test(pytester, cluster_sim_server):
    pytester.makepyfile(INNER.replace('cluster_sim.namespace != "default"', 'cluster_sim.namespace == "default"')
                        .replace('cluster_sim.url.endswith("/_ns/" + cluster_sim.namespace)',
                                 "cluster_sim.url == cluster_sim.server.url"))
    result = pytester.runpytest_inprocess(
        "--sims-cluster-url", cluster_sim_server.url, *token(cluster_sim_server),
        "--sims-shared-namespace", "-p", "no:cacheprovider",
    )
    result.assert_outcomes(passed=2, failed=1)
    assert cluster_sim_server.control.faults.list() == []
