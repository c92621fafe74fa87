"""Starting a simulator from Python: the CLI (with an admin token) and an address already running."""

import os
from pathlib import Path

import pytest

from sims import SimControlError, connect, start_cli
from sims.launch import random_token


def test_the_cli_with_an_admin_token_and_its_stop():
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


def test_npx_runs_the_cli_of_the_project_that_installed_the_package(tmp_path):
    # A Node project of a team, with @sims/annotation-sim installed as npm installs it (the package in
    # node_modules, its bin linked in node_modules/.bin): `npx --no-install annotation-sim` finds it there.
    # Made here from this repository's built package: the workspace's own link of the bin is made by
    # `pnpm install`, before a fresh clone has built anything to link.
    package = Path(__file__).resolve().parents[2] / "apps" / "annotation-sim"
    (tmp_path / "package.json").write_text('{"name": "a-team-project", "private": true}')
    (tmp_path / "node_modules" / "@sims").mkdir(parents=True)
    (tmp_path / "node_modules" / "@sims" / "annotation-sim").symlink_to(package, target_is_directory=True)
    (tmp_path / "node_modules" / ".bin").mkdir()
    (tmp_path / "node_modules" / ".bin" / "annotation-sim").symlink_to("../@sims/annotation-sim/dist/main.js")
    with start_cli("annotation-sim", cwd=str(tmp_path)) as sim:
        assert sim.control.health()["simulator"] == "annotation-sim"
        assert sim.control.clock.get()["mode"] == "manual"
