"""A CVAT webhook consumer: a stdlib HTTP server that checks X-Signature-256 (HMAC-SHA256 of the raw
body with the webhook's secret, as CVAT signs it), refuses a bad one with 403, and keeps the tasks it was
told were renamed. The code under test of test_cvat_consumer.py."""

import hashlib
import hmac
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class CvatConsumer:
    def __init__(self, secret):
        self.secret = secret.encode()
        self.renamed = []  # (task id, new name), one per update:task handled
        consumer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                expected = "sha256=" + hmac.new(consumer.secret, body, hashlib.sha256).hexdigest()
                if not hmac.compare_digest(expected, self.headers.get("X-Signature-256", "")):
                    self.send_response(403)
                else:
                    consumer.handle(json.loads(body))
                    self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d/cvat-hook" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def handle(self, payload):
        if payload["event"] == "update:task" and "name" in payload.get("before_update", {}):
            self.renamed.append((payload["task"]["id"], payload["task"]["name"]))

    def close(self):
        self.server.shutdown()
        self.server.server_close()
