#!/usr/bin/env bash
# Makes the folders bench/h200.sh carries to the device machine (run here, in the repo root;
# .ort/ is ignored by git): onnxruntime-gpu (its CUDA provider cut to sm_90 code by
# bench/fatbin_keep.py, tar.xz), PyMuPDF (unpacked, tar.xz: its wheel is 69 MB), the exporter's
# and the app's wheels and Debian 12's Redis .debs, packed into .ort/a, .ort/b, ... of at most
# PART_MB each (a file larger than that is split into NAME.part-aa, -ab, ...; h200.sh's `install`
# joins them). A call carries one part beside the working tree (~12 MB) under its 64 MiB.
set -euo pipefail
PY=${PY:-.venv/bin/python}
PART_MB=${PART_MB:-38}
W=$(mktemp -d)
get() { $PY -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
  --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
  --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
  --platform manylinux_2_5_x86_64 --platform manylinux1_x86_64 -d "$@"; }
rm -rf .ort && mkdir -p .ort "$W/ort" "$W/pym" "$W/all"
get "$W" onnxruntime-gpu==1.31.1 PyMuPDF==2.0
(cd "$W/ort" && unzip -q "$W"/onnxruntime_gpu-*.whl)
lib=$W/ort/onnxruntime/capi/libonnxruntime_providers_cuda.so
$PY bench/fatbin_keep.py "$lib" "$lib" --arch 90
rm -f "$W"/ort/onnxruntime/capi/libonnxruntime_providers_tensorrt.so
tar -C "$W/ort" -cf - . | xz -T2 -9e >"$W/all/ort.tar.xz"
(cd "$W/pym" && unzip -q "$W"/pymupdf-*.whl)
tar -C "$W/pym" -cf - . | xz -T2 -9 >"$W/all/pymupdf.tar.xz"
# The exporter (the device image has torch, onnx, onnxscript, older transformers/onnx-ir) and
# the app (web, Celery workers) for bench/gemma_scaleout.py; the image has lxml, PyYAML, click.
get "$W/all" mobius-onnx==0.1.0 onnx-ir==1.1.0 onnx-shape-inference==0.4.0 transformers==5.23.0 \
  tokenizers==0.23.3 pytest-django==4.14.0 Django==5.2.19 djangorestframework==3.18.3 \
  drf-spectacular==0.30.0 celery==5.7.0 kombu==5.7.0 redis==8.1.0 dj-database-url==3.1.2 \
  whitenoise==6.12.0 beautifulsoup4==4.15.0 nh3==0.3.8 latex2mathml==3.81.1 RapidFuzz==3.14.6 \
  asgiref sqlparse billiard vine amqp click-didyoumean click-repl click-plugins prompt-toolkit \
  wcwidth tzdata tzlocal uritemplate inflection jsonschema jsonschema-specifications \
  referencing rpds-py soupsieve django-axes==8.3.1 django-csp==4.0 langcodes==3.5.1 language-data \
  py-spy==0.4.3 boto3==1.44.5 botocore==1.44.8 s3transfer==0.19.3 django-storages==1.14.6 jmespath \
  pikepdf==10.18.0 Deprecated wrapt
(cd "$W/all" && apt-get download redis-server redis-tools libjemalloc2 liblzf1 liblua5.1-0 libatomic1)
# Split what is over a part, then fill parts largest file first (first fit).
limit=$((PART_MB * 1000000))
for f in "$W"/all/*; do
  if [ "$(stat -c %s "$f")" -gt "$limit" ]; then split -b "$limit" "$f" "$f.part-" && rm "$f"; fi
done
$PY - "$W/all" .ort "$limit" <<'PYEOF'
import shutil, string, sys
from pathlib import Path
src, dst, limit = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
parts: list[list] = []  # [bytes used, folder]
for f in sorted(src.iterdir(), key=lambda p: -p.stat().st_size):
    size = f.stat().st_size
    part = next((p for p in parts if p[0] + size <= limit), None)
    if part is None:
        part = [0, dst / string.ascii_lowercase[len(parts)]]
        part[1].mkdir()
        parts.append(part)
    part[0] += size
    shutil.move(str(f), part[1] / f.name)
PYEOF
rm -rf "$W"
du -sh .ort/*
