"""Exports CVAT's event log as CSV by the current flow: POST /api/events/export, poll
GET /api/requests/{rq_id} until it ends, download its result_url, parse the CSV. The code under test of
test_events_exporter.py; ``wait`` is called between polls (time.sleep in production)."""

import csv
import io
from urllib.parse import quote

import requests


class ExportFailed(Exception):
    pass


def export_events(base_url, token, wait, max_polls=30, **filters):
    session = requests.Session()
    session.headers["Authorization"] = "Token " + token
    started = session.post(base_url + "/api/events/export", params=filters)
    started.raise_for_status()
    rq_id = started.json()["rq_id"]
    for _ in range(max_polls):
        request = session.get(base_url + "/api/requests/" + quote(rq_id, safe=""))
        request.raise_for_status()
        status = request.json()
        if status["status"] == "failed":
            raise ExportFailed(status["message"])
        if status["status"] == "finished":
            download = session.get(status["result_url"])
            download.raise_for_status()
            return list(csv.DictReader(io.StringIO(download.text)))
        wait()
    raise ExportFailed("export %s still running after %d polls" % (rq_id, max_polls))
