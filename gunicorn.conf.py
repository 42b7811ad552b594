"""Gunicorn settings for `make serve` and docker-compose (gunicorn reads this file from the
folder it starts in; command-line options override it).

Threaded workers (gthread): a slow client (an upload trickling in at 100 KB/s, a stalled
download) holds one thread, not a whole worker, so it cannot starve everyone else (issue 17:
two slow uploads took both sync workers and the site stopped answering). WEB_WORKERS x
WEB_THREADS requests run at once (default 2 x 8); a request body is capped before it is read
(AXIYA_MAX_REQUEST_MB).

Threads alone are not enough (issue 29): 17 clients that each sent a request line and then a
header line every 3 s held all 16 threads, and gunicorn never closed them. So gunicorn is never
published by itself: `make serve` (bin/serve) and docker-compose bind it to a unix socket and
put nginx in front (deploy/nginx/), which reads each request whole (its header within 10 s,
its body to disk) before it reaches a thread, and buffers the responses.
"""

import os

worker_class = "gthread"
workers = int(os.environ.get("WEB_WORKERS", "2"))
threads = int(os.environ.get("WEB_THREADS", "8"))
timeout = 300  # the longest request: an upload's validation (AXIYA_PAGE_TIMEOUT_S)
keepalive = 5
