"""annotation-sim's control routes and the webhook receiver, against a real annotation-sim."""

import uuid

import pytest
import requests

from sims import SimControlError, SimWaitTimeoutError, sign_webhook_body, verify_webhook_signature

ALICE = {"username": "alice", "password": "pw", "token": "alice-token"}


def seed_webhook(sim, receiver):
    return sim.seed(
        users=[ALICE],
        projects=[{"name": "cats", "owner": "alice"}],
        tasks=[{"name": "t1", "owner": "alice", "project": "cats", "size": 10, "segment_size": 10}],
        webhooks=[{"target_url": receiver.url + "/hook", "type": "project", "project": "cats", "owner": "alice",
                   "secret": receiver.secret, "events": ["update:task"]}],
    )


def rename_task(sim, name):
    res = requests.patch(sim.url + "/api/tasks/1", json={"name": name}, headers={"Authorization": "Token alice-token"})
    res.raise_for_status()


def test_deliveries_are_signed_recorded_and_redelivered(annotation_sim, webhook_receiver):
    seed_webhook(annotation_sim, webhook_receiver)
    rename_task(annotation_sim, "renamed")
    [received] = webhook_receiver.wait_for(1)
    assert received.event == "update:task" and received.body["task"]["name"] == "renamed"
    assert received.signature_valid and received.path == "/hook"
    webhook_receiver.verify_all()
    sent = annotation_sim.deliveries.wait_for(event="update:task")
    assert sent["body"].encode() == received.raw_body and sent["statusCode"] == 200
    assert annotation_sim.deliveries.list(event="update:task")["entries"] == [sent]
    assert annotation_sim.deliveries.stats() == {"queued": 0, "inFlight": 0, "scheduledRetries": 0}
    [webhook] = annotation_sim.webhooks.list(limit=5)
    redo = annotation_sim.webhooks.redeliver(webhook["id"], webhook["deliveries"][0]["id"])
    assert redo["redelivered"] is True
    annotation_sim.deliveries.idle()
    assert len(webhook_receiver.deliveries) == 2
    annotation_sim.deliveries.clear()
    assert annotation_sim.deliveries.list()["entries"] == []
    assert annotation_sim.deliveries.wait(timeout="50ms") is None
    with pytest.raises(SimWaitTimeoutError, match="No deliveries were made"):
        annotation_sim.deliveries.wait_for(timeout="50ms", event="ping")


def test_the_receiver_flags_a_corrupted_signature_and_fails_when_told(annotation_sim, webhook_receiver):
    seed_webhook(annotation_sim, webhook_receiver)
    annotation_sim.faults.add(match={"operation": "webhooks.deliver"}, trigger={"times": 1},
                              effect={"corruptSignature": True})
    webhook_receiver.fail_next(503)
    rename_task(annotation_sim, "a")
    [received] = webhook_receiver.wait_for(1)
    assert received.signature_valid is False and received.answered == 503
    with pytest.raises(AssertionError, match="1 of 1 deliveries have a missing or wrong X-Signature-256"):
        webhook_receiver.verify_all()
    annotation_sim.deliveries.idle()  # the attempt has ended and its retry is scheduled
    annotation_sim.clock.advance("5s")  # CVAT retries a 503 after 5 s
    retried = webhook_receiver.wait_for(lambda d: d.seq == 2)
    assert retried.signature_valid is True


def test_signatures_as_cvat_computes_them():
    body = b'{"event": "ping"}'
    header = sign_webhook_body("mykey", body)
    assert header.startswith("sha256=") and len(header) == 71
    assert verify_webhook_signature("mykey", body, header)
    assert not verify_webhook_signature("other", body, header)
    assert not verify_webhook_signature("mykey", body, None)


def test_egress_settings(annotation_sim):
    assert annotation_sim.deliveries.settings()["egress"]["policy"] == "metadata-only"
    changed = annotation_sim.deliveries.configure({"policy": "cvat-proxy", "allow": ["127.0.0.1"]})
    assert changed == {"egress": {"policy": "cvat-proxy", "allow": ["127.0.0.1"]}}


def test_events_and_export_jobs(annotation_sim):
    annotation_sim.seed(users=[ALICE])
    assert annotation_sim.events.configure(exportDuration="10s")["exportDuration"] == 10_000
    assert annotation_sim.events.settings()["exportDuration"] == 10_000
    assert annotation_sim.events.record([{"scope": "create:task"}]) == {"stored": 1}
    assert annotation_sim.events.get()["stored"] == 1
    job = {"user_id": 1, "username": "alice", "status": "started"}
    first = annotation_sim.events.exports.create(job, query_id=str(uuid.uuid4()))
    assert annotation_sim.events.exports.complete(first["rq_id"])["status"] == "finished"
    assert annotation_sim.events.exports.expire_file(first["rq_id"])["rq_id"] == first["rq_id"]
    with pytest.raises(SimControlError) as ended:
        annotation_sim.events.exports.fail(first["rq_id"], "too late")
    assert ended.value.status == 409
    second = annotation_sim.events.exports.create(job, query_id=str(uuid.uuid4()))
    assert annotation_sim.events.exports.fail(second["rq_id"], "ClickHouse down")["status"] == "failed"


def test_requests_and_annotations(annotation_sim):
    assert annotation_sim.requests.list() == []
    assert annotation_sim.requests.configure(taskCreation="2s") == annotation_sim.requests.settings()
    for call in (lambda: annotation_sim.requests.complete("nope"), lambda: annotation_sim.requests.fail("nope", "x")):
        with pytest.raises(SimControlError) as missing:
            call()
        assert missing.value.status == 404
    assert annotation_sim.annotations.list(limit=5) == {"jobs": [], "job_count": 0, "events": [], "event_count": 0}
    with pytest.raises(SimControlError) as no_job:
        annotation_sim.annotations.list(job_id=99)
    assert no_job.value.status == 404
