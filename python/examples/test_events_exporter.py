import pytest
from events_exporter import ExportFailed, export_events


@pytest.fixture
def alice(annotation_sim):
    seeded = annotation_sim.seed(users=[{"username": "alice", "password": "pw", "token": "alice-token"}])
    user = {"user_id": seeded["seeded"]["users"]["alice"], "user_name": "alice"}
    annotation_sim.events.record([
        dict(user, scope="create:task", obj_name="task", obj_id=7, task_id=7),
        dict(user, scope="update:job", obj_name="state", obj_val="completed", job_id=3),
    ])
    return "alice-token"


def test_exports_the_event_log_as_csv(annotation_sim, alice):
    rows = export_events(annotation_sim.url, alice, wait=lambda: annotation_sim.clock.advance("1s"))
    assert [(r["scope"], r["obj_val"]) for r in rows] == [("create:task", ""), ("update:job", "completed")]


def test_reports_an_export_that_failed(annotation_sim, alice):
    annotation_sim.faults.add(match={"operation": "events.create_export"},
                              effect={"exportFails": {"message": "Export failed: ClickHouse query timed out"}})
    with pytest.raises(ExportFailed, match="ClickHouse query timed out"):
        export_events(annotation_sim.url, alice, wait=lambda: annotation_sim.clock.advance("1s"))
