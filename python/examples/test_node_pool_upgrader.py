from node_pool_upgrader import upgrade_node_pool

from sims import assert_fault_fired, assert_received

POOL = "projects/demo/locations/us-central1-a/clusters/c1/nodePools/default-pool"


def test_upgrades_through_an_aborted_update_and_a_busy_cluster(cluster_sim, gke):
    cluster_sim.seed(clusters=[{"projectId": "demo", "location": "us-central1-a", "name": "c1",
                                "nodePools": [{"name": "default-pool", "version": "1.29.8-gke.1211000"}]}])
    # Rules are tried in order and the first that fires answers: ABORTED, then a busy cluster, then through.
    aborted = cluster_sim.faults.add(match={"operation": "nodePools.update"}, trigger={"times": 1},
                                     effect={"error": {"status": "ABORTED"}})
    busy = cluster_sim.faults.add(match={"operation": "nodePools.update"}, trigger={"times": 1},
                                  effect={"clusterBusy": {}})

    op = upgrade_node_pool(gke, POOL, wait=lambda: cluster_sim.clock.advance("30s"))

    assert (op["operationType"], op["status"]) == ("UPGRADE_NODES", "DONE")
    assert_fault_fired(aborted, 1)
    assert_fault_fired(busy, 1)
    assert_received(cluster_sim.control, operation="nodePools.update", times=3)
