import httplib2
import pytest
from googleapiclient.discovery import build


class BearerHttp(httplib2.Http):
    """httplib2 with a bearer token on every request, as credentials would add one."""

    def request(self, uri, method="GET", body=None, headers=None, *args, **kwargs):
        headers = dict(headers or {}, authorization="Bearer test-token")
        return super().request(uri, method, body, headers, *args, **kwargs)


@pytest.fixture
def gke(cluster_sim):
    """Google's container API client, built from cluster-sim's discovery document."""
    return build("container", "v1beta1", http=BearerHttp(proxy_info=None), cache_discovery=False,
                 discoveryServiceUrl=cluster_sim.url + "/$discovery/rest?version={apiVersion}")
