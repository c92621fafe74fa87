"""Upgrades a GKE node pool with Google's discovery client (googleapiclient): reads the pool for its etag,
updates it, retries when the update is ABORTED (a stale etag, 409) or the cluster is busy with another
operation (400 FAILED_PRECONDITION), then polls the operation until it is DONE. The code under test of
test_node_pool_upgrader.py; ``wait`` is called between tries and polls (time.sleep in production)."""

import json

from googleapiclient.errors import HttpError

RETRIED = {"ABORTED", "FAILED_PRECONDITION"}


def upgrade_node_pool(gke, pool_name, wait, version="-", attempts=5):
    pools = gke.projects().locations().clusters().nodePools()
    for _ in range(attempts):
        pool = pools.get(name=pool_name).execute()
        try:
            op = pools.update(name=pool_name, body={"nodeVersion": version, "etag": pool["etag"]}).execute()
            break
        except HttpError as err:
            if json.loads(err.content)["error"]["status"] not in RETRIED:
                raise
            wait()
    else:
        raise RuntimeError("node pool %s: no update went through in %d attempts" % (pool_name, attempts))
    location = pool_name.split("/clusters/")[0]
    operations = gke.projects().locations().operations()
    while op["status"] != "DONE":
        wait()
        op = operations.get(name="%s/operations/%s" % (location, op["name"])).execute()
    return op
