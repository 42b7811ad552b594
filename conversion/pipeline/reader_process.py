"""Imported by the fork server of conversion.pipeline.isolate (its preload), nowhere else.

Every isolated reader is forked from that server, so the server must stay single-threaded: a fork
copies only the forking thread, and a lock another thread held stays locked forever in the child
(the hang of issue 17). Imports would start threads here: numpy's OpenBLAS pool, onnxruntime's
telemetry thread (started when it is imported), pymupdf.layout's default model (an ONNX session
pool) and pymupdf4llm. So BLAS is capped to one thread, onnxruntime's telemetry is off (nothing
leaves a self-hosted box anyway), pymupdf4llm is kept out (PyMuPDF imports it inside try/except
ImportError), and the layout model is loaded here with single-threaded sessions, which start no
thread (models.layout.load_model): every reader starts with it loaded instead of loading it for
itself (about 1 s of CPU per born-digital page). If the server is not one thread after all this
(a new onnxruntime that starts one), it stops at once: readers would fail as ServerFault, never
hang; tests/pipeline/test_reader_process.py checks it.
"""

from __future__ import annotations

import os
import sys

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"
os.environ["ORT_DISABLE_TELEMETRY"] = "1"
for _optional in ("pymupdf.layout", "pymupdf4llm"):
    sys.modules.setdefault(_optional, None)  # `import` of a None entry raises ImportError

import pymupdf  # noqa: E402,F401  (loaded once here, shared copy-on-write by every reader)

import conversion.pipeline.rasterize  # noqa: E402,F401
import conversion.pipeline.validate  # noqa: E402,F401
import models.reading.textlayer  # noqa: E402,F401
from models.layout import load_model, process_threads  # noqa: E402

load_model()
if process_threads() != 1:
    raise RuntimeError(
        f"the reader fork server runs {process_threads()} threads; forking it is not safe"
    )
