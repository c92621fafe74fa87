"""Drives cluster-sim with Python's discovery client (googleapiclient, Debian's python3-googleapi).

Usage: python3 discovery_clients.py <simulator URL>

Builds the container API's client (v1beta1 and v1) from the simulator's service-form discovery URL and
Compute Engine's from the directory form, with no other setting, and prints what it read as one JSON
object: the clusters listed, a node pool read, setSize and update polled to DONE (the simulator's manual
clock advanced through its control plane between polls), and each pool's node_count as Terraform computes
it from the managed instance groups (their targetSize summed over the pool's instanceGroupUrls, divided
by the number of URLs), with a group's instances. Only the simulator's own address is contacted.
"""
import json
import re
import sys

import httplib2
import googleapiclient.discovery
from googleapiclient.discovery import build

URL = sys.argv[1].rstrip("/")
DIRECTORY = URL + "/discovery/v1/apis/{api}/{apiVersion}/rest"
# After a 404, build() tries {api}.googleapis.com's own $discovery URL: point it at the simulator's
# directory too, so a document the simulator lacks fails here instead of reaching the internet.
googleapiclient.discovery.V2_DISCOVERY_URI = DIRECTORY
IGM_URL = re.compile(r"projects/([^/]+)/zones/([^/]+)/instanceGroupManagers/([^/]+)$")


class BearerHttp(httplib2.Http):
    """httplib2 with a static bearer token on every request (what credentials would add)."""

    def request(self, uri, method="GET", body=None, headers=None, *args, **kwargs):
        headers = dict(headers or {})
        headers["authorization"] = "Bearer python-token"
        return super().request(uri, method, body, headers, *args, **kwargs)


def http():
    # No proxy from the environment: the simulator is on 127.0.0.1.
    return BearerHttp(proxy_info=None, timeout=30)


def advance(by):
    resp, _ = http().request(URL + "/_sim/clock/advance", "POST", json.dumps({"by": by}),
                             {"content-type": "application/json"})
    if resp.status != 200:
        raise RuntimeError("clock advance answered %s" % resp.status)


def wait(gke, location, op):
    """Polls operations.get until the operation is DONE, advancing the world clock between polls."""
    name = "%s/operations/%s" % (location, op["name"])
    polls = 0
    while op["status"] != "DONE":
        polls += 1
        if polls > 50:
            raise RuntimeError("operation %s never finished" % name)
        advance("30s")
        op = gke.projects().locations().operations().get(name=name).execute()
    return {"operationType": op["operationType"], "status": op["status"], "polls": polls}


def container(version):
    gke = build("container", version, http=http(), cache_discovery=False,
                discoveryServiceUrl=URL + "/$discovery/rest?version={apiVersion}")
    location = "projects/p1/locations/us-central1-a"
    pool_name = location + "/clusters/c1/nodePools/np1"
    clusters = gke.projects().locations().clusters().list(parent=location).execute()
    pools = gke.projects().locations().clusters().nodePools()
    pool = pools.get(name=pool_name).execute()
    resized = wait(gke, location, pools.setSize(name=pool_name, body={"nodeCount": pool["initialNodeCount"] + 1}).execute())
    pool = pools.get(name=pool_name).execute()
    updated = wait(gke, location, pools.update(name=pool_name, body={"nodeVersion": "-", "etag": pool["etag"]}).execute())
    return {
        "clusters": [c["name"] for c in clusters.get("clusters", [])],
        "pool": {"name": pool["name"], "status": pool["status"], "initialNodeCount": pool["initialNodeCount"]},
        "setSize": resized,
        "update": updated,
    }


def terraform_read(gke, compute, pool_name):
    """node_count and managed_instance_group_urls as the Google provider reads them (IGM get per URL)."""
    pool = gke.projects().locations().clusters().nodePools().get(name=pool_name).execute()
    size, groups = 0, []
    for url in pool.get("instanceGroupUrls", []):
        project, zone, name = IGM_URL.search(url).groups()
        igm = compute.instanceGroupManagers().get(project=project, zone=zone, instanceGroupManager=name).execute()
        size += igm["targetSize"]
        groups.append(igm["instanceGroup"])
    count = size // len(groups) if groups else 0
    return {"node_count": count, "total": size, "managed_instance_group_urls": groups}


def compute_reads():
    gke = build("container", "v1", http=http(), cache_discovery=False,
                discoveryServiceUrl=DIRECTORY)
    compute = build("compute", "v1", http=http(), cache_discovery=False,
                    discoveryServiceUrl=DIRECTORY)
    zonal = terraform_read(gke, compute, "projects/p1/locations/us-central1-a/clusters/c1/nodePools/np1")
    regional = terraform_read(gke, compute, "projects/p1/locations/us-central1/clusters/r1/nodePools/np1")
    # Every page of the zone's managers, one per page, as the provider >= 7.17 lists them.
    managers = compute.instanceGroupManagers()
    request, names = managers.list(project="p1", zone="us-central1-a", maxResults=1), []
    while request is not None:
        page = request.execute()
        names += [m["name"] for m in page.get("items", [])]
        request = managers.list_next(request, page)
    project, zone, group = IGM_URL.search(zonal["managed_instance_group_urls"][0].replace(
        "/instanceGroups/", "/instanceGroupManagers/")).groups()
    instances = compute.instanceGroups().listInstances(
        project=project, zone=zone, instanceGroup=group, body={"instanceState": "ALL"}).execute()
    return {
        "zonal": zonal,
        "regional": regional,
        "zoneManagers": names,
        "groupInstances": [i["status"] for i in instances.get("items", [])],
    }


print(json.dumps({"v1beta1": container("v1beta1"), "v1": container("v1"), "compute": compute_reads()}))
