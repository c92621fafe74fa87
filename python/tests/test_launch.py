"""Starting a simulator from Python: the CLI (with an admin token) and an address already running."""

import os

import pytest

from sims import SimControlError, connect, start_cli
from sims.launch import random_token


def test_the_cli_with_an_admin_token_and_its_stop(cluster_sim_server):
    cli = os.environ.get("SIMS_CLUSTER_SIM_CLI")
    token = random_token()
    with start_cli("cluster-sim", cli, admin_token=token, seed=42) as sim:
        assert sim.version and sim.url.startswith("http://127.0.0.1:")
        assert sim.control.faults.list() == []
        with pytest.raises(SimControlError) as refused:
            connect("cluster-sim", sim.url).control.faults.list()
        assert (refused.value.status, refused.value.reason) == (401, "UNAUTHENTICATED")
    with pytest.raises(Exception):
        sim.control.health()


def test_connect_checks_which_simulator_answers(cluster_sim_server):
    same = connect("cluster-sim", cluster_sim_server.url, admin_token=cluster_sim_server.admin_token)
    assert same.version == cluster_sim_server.version
    same.stop()  # leaves it running
    assert cluster_sim_server.control.health()["status"] == "ok"
    with pytest.raises(RuntimeError, match="is 'cluster-sim', not annotation-sim"):
        connect("annotation-sim", cluster_sim_server.url)
