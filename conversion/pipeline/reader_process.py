"""Imported by the fork server of conversion.pipeline.isolate (its preload), nowhere else.

Every isolated reader is forked from that server, so the server must stay single-threaded: a fork
copies only the forking thread, and a lock another thread held stays locked forever in the child
(the hang of issue 17). Imports would start threads here: numpy's OpenBLAS pool, and
pymupdf_layout and pymupdf4llm, which PyMuPDF 2 imports when installed and which start
onnxruntime (the layout one opens a model session with its own thread pool). Readers need none of
them: BLAS is capped to one thread and both packages are kept out of this process only (PyMuPDF
imports them inside try/except ImportError).
"""

from __future__ import annotations

import os
import sys

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"
for _optional in ("pymupdf.layout", "pymupdf4llm"):
    sys.modules.setdefault(_optional, None)  # `import` of a None entry raises ImportError

import pymupdf  # noqa: E402,F401  (loaded once here, shared copy-on-write by every reader)

import conversion.pipeline.rasterize  # noqa: E402,F401
import conversion.pipeline.textlayer  # noqa: E402,F401
import conversion.pipeline.validate  # noqa: E402,F401
