"""moto's server with one request at a time.

moto's TransactWriteItems is not isolated from concurrent requests: it snapshots whole tables, applies the
items one by one, and on a cancelled transaction restores the snapshot, discarding whatever other request
threads wrote meanwhile (a claim, another transaction). Plain conditional writes are check-then-write as well.
DynamoDB makes every request atomic, so the lane runs moto's own WSGI app behind one lock: clients stay
concurrent, each request is applied whole. Usage: python moto_serialized_server.py HOST PORT
"""

import sys
import threading

from moto.moto_server.werkzeug_app import DomainDispatcherApplication, MotoRequestHandler, create_backend_app
from werkzeug.serving import run_simple

_lock = threading.Lock()
_app = DomainDispatcherApplication(create_backend_app)


def serialized(environ, start_response):
    with _lock:
        # The body is produced inside the lock, so the whole request is applied before the next one starts.
        return list(_app(environ, start_response))


if __name__ == "__main__":
    host, port = sys.argv[1], int(sys.argv[2])
    run_simple(host, port, serialized, threaded=True, request_handler=MotoRequestHandler)
