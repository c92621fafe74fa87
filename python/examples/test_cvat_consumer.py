import requests
from cvat_consumer import CvatConsumer

from sims import assert_fault_fired


def test_a_refused_delivery_reaches_the_consumer_on_cvats_retry(annotation_sim):
    consumer = CvatConsumer(secret="s3cret")
    annotation_sim.seed(
        users=[{"username": "alice", "password": "pw", "token": "alice-token"}],
        projects=[{"name": "cats", "owner": "alice"}],
        tasks=[{"name": "t1", "owner": "alice", "project": "cats", "size": 10, "segment_size": 10}],
        webhooks=[{"target_url": consumer.url, "type": "project", "project": "cats", "owner": "alice",
                   "secret": "s3cret", "events": ["update:task"]}],
    )
    # The first delivery attempt cannot connect: CVAT records a 502 and retries 5 s later.
    refused = annotation_sim.faults.add(match={"operation": "webhooks.deliver"}, trigger={"times": 1},
                                        effect={"deliveryRefused": True})

    requests.patch(annotation_sim.url + "/api/tasks/1", json={"name": "renamed"},
                   headers={"Authorization": "Token alice-token"}).raise_for_status()
    annotation_sim.deliveries.idle()
    assert consumer.renamed == []
    annotation_sim.clock.advance("5s")  # no sleeping: the retry is due on the world clock
    annotation_sim.deliveries.idle()

    assert consumer.renamed == [(1, "renamed")]
    assert_fault_fired(refused, 1)
    [webhook] = annotation_sim.webhooks.list()
    assert [(d["attempt"], d["status_code"]) for d in webhook["deliveries"]] == [(2, 200), (1, 502)]
    consumer.close()
