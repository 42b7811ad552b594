#!/usr/bin/env bash
# The H200 runs of docs/gemma-runtime.md, on the device tool's machine (CUDA image, Python 3.12,
# torch; no package index; each call carries < 64 MiB). bench/h200_pack.sh makes the carried
# folders here first: .ort/a, .ort/b, ... (each <= 38 MB: onnxruntime-gpu and PyMuPDF as split
# tar.xz, the app's and the exporter's wheels, Redis .debs; `install` needs all of them staged).
# Calls, back to back (the machine stays warm only 30 s), one part each:
#   carry .ort/a:  bash bench/h200.sh stage
#   ... every part but the last the same way, then
#   carry the last part:  bash bench/h200.sh stage install build smoke test tp1120cp ...
# (service vs engine: scalec against tp1120cp, the engine with the worker's own page prompt, on
# one machine start; a build takes ~150-180 s, scalec ~340 s, tp1120cp ~110 s.)
# (`test` collects tests/models, whose parser tests import PyMuPDF: run it after `install`.)
# If the machine goes back between two calls (30 s idle), everything starts again at .ort/a.
# The device tool copies the session's checkout (/work/main, not a worktree): land first, and put
# .ort/ there (ignored). Each call re-copies the tracked files, so a result a step wrote is kept
# from that call's $OUT (in /tmp/results only what the step itself wrote).
# Each step logs to /tmp/logs/<step>.log (its tail is printed); $OUT gets the result JSONs and
# a tarball of the logs (the tool returns at most 8 files).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
OUT=${OUT:-/tmp/out}
STAGE=/tmp/stage SITE=/tmp/site PKG=/tmp/e2b RES=/tmp/results LOGS=/tmp/logs
mkdir -p "$OUT" "$STAGE" "$SITE" "$RES" "$LOGS"
export PYTHONPATH="$SITE:$ROOT" PYTHONUNBUFFERED=1 OMP_THREAD_LIMIT=1
PY=python3

step() {  # step NAME TIMEOUT CMD...: run, log, report; never stop the steps after it
  local name=$1 limit=$2
  shift 2
  local t0=$SECONDS
  echo "== $name ($(date -u +%T))"
  # What this step writes is newer than this mark (not than the .dmon, which dmon keeps writing).
  touch "$LOGS/$name.start"
  # GPU utilization every second and CPU load every 5 s beside the step (gaps the GPU idles).
  nvidia-smi dmon -s u -d 1 -o T >"$LOGS/$name.dmon" 2>&1 &
  local dmon=$!
  vmstat -t 5 >"$LOGS/$name.vmstat" 2>&1 &
  local vm=$!
  timeout "$limit" "$@" >"$LOGS/$name.log" 2>&1
  local rc=$?
  kill "$dmon" "$vm" 2>/dev/null
  awk '$1 !~ /#/ {n++; s+=$3; if ($3 < 50) lo++} END {if (n) printf "GPU sm%% mean %.0f over %d s, %d s below 50%%\n", s/n, n, lo}' "$LOGS/$name.dmon"
  echo "== $name rc=$rc in $((SECONDS - t0)) s"
  grep -v '^INFO\|it/s\]$' "$LOGS/$name.log" | tail -n 22
  # Only what this step wrote: each call re-copies the tracked tree, older results included.
  find bench/results -name "*$(date -u +%F)*.json" -newer "$LOGS/$name.start" \
    -exec cp {} "$RES"/ \;
  return $rc
}

throughput() {  # throughput TAG ARGS...: bench/gemma_throughput.py on the package
  local tag=$1
  shift
  step "tp$tag" 420 $PY bench/gemma_throughput.py --package "$PKG" --prefill-chunk 32 "$@"
}

for what in "$@"; do
  case $what in
  stage) cp -f .ort/*/* "$STAGE"/ && ls -la "$STAGE" | tail -n +2 | wc -l ;;
  install)
    cat "$STAGE"/ort.tar.xz* | xz -dc | tar -C "$SITE" -xf -
    cat "$STAGE"/pymupdf.tar.xz* | xz -dc | tar -C "$SITE" -xf -
    $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
      --target "$SITE" "$STAGE"/*.whl 2>&1 | tail -3
    mkdir -p /tmp/redis && for f in "$STAGE"/*.deb; do dpkg -x "$f" /tmp/redis; done
    printf '#!/bin/sh\nLD_LIBRARY_PATH=/tmp/redis/usr/lib/x86_64-linux-gnu exec /tmp/redis/usr/bin/redis-server "$@"\n' >/tmp/redis/run
    chmod +x /tmp/redis/run
    $PY -c "import onnxruntime as o; o.preload_dlls(); print(o.__version__, o.get_available_providers())"
    nvidia-smi --query-gpu=name,memory.used,memory.total,clocks.sm --format=csv
    ;;
  pymupdf) $PY -c "import pymupdf; print(pymupdf.__version__)" ;;  # unpacked by install
  build) step build 400 $PY -m models.export e2b-random "$PKG" --dtype fp16 --ple graph --fast --clip-bounds none ;;
  test) step gputest 300 $PY -m pytest tests/models/gemma -m gpu -q ;;  # (tests/models/ocr needs tesserocr)
  testvis) step gputestvis 200 $PY -m pytest tests/models/gemma/test_fast_vision.py -m gpu -q ;;
  smoke)  # two E2B pages through the fast graphs; if the MHA prefill fails: the MatMul one
    step smoke 240 $PY -c "from bench.gemma_throughput import page_size, synthetic_pages
from models.gemma.fast import FastGemma
from models.gemma.runtime import PageRequest
e = FastGemma('$PKG', verify=False, prefill_chunk=32)
reqs = [PageRequest('Transcribe.', i) for i in synthetic_pages(2, *page_size(1120))]
print([g.token_ids for g in e.generate(reqs, max_new_tokens=4, ignore_stop=True)])" ||
      step refast 240 $PY -m models.export fast "$PKG" --prefill-attention matmul
    ;;
  # --hf-batch 0: no baseline in the same process tree (the hf step runs it once).
  tp1120) throughput 1120 --hf-batch 0 --pages 1024 --batch 512 ;;
  tp1120c) throughput 1120c --continuous --pages 1024 --batch 512 --chunk 64 ;;
  # The GPU worker's own page prompt (~350 tokens more): the engine doing the service's work.
  tp1120cp) throughput 1120cp --continuous --prompt page --pages 1024 --batch 512 --chunk 64 \
    --tag=-page ;;
  # Continuous with a batch's worth of pages prepared ahead (AXIYA_GEMMA_PREPARED_AHEAD)
  # against tp1120cp's two chunks (128).
  tp1120cpa) throughput 1120cpa --continuous --prompt page --pages 1024 --batch 512 --chunk 64 \
    --prepared-ahead 512 --tag=-page-ahead512 ;;
  # The same at four times the pages: how much of a 1,024-page run its two ends take.
  tp1120cp4k) step tp1120cp4k 580 $PY bench/gemma_throughput.py --package "$PKG" \
    --prefill-chunk 32 --continuous --prompt page --pages 4096 --batch 512 --chunk 64 \
    --tag=-page-4096 ;;
  tp1120p) throughput 1120p --hf-batch 0 --prompt page --pages 1024 --batch 512 --tag=-page ;;
  # Issue 35: the page prompt (prefix cache on), batch 512, transformers at its largest batch in
  # the same run (its prompt as long as ours); then the same without the prefix cache, and at
  # 560 / 280 image tokens.
  tpp) throughput pp --prompt page --pages 1024 --batch 512 --hf-batch 512,256,128 \
    --hf-new-tokens 128 --tag=-page ;;
  tppn) throughput ppn --prompt page --no-prefix-cache --hf-batch 0 --pages 1024 --batch 512 \
    --tag=-page-noprefix ;;
  tpp560) throughput pp560 --prompt page --hf-batch 0 --soft-tokens 560 --pages 1024 \
    --batch 512 --tag=-page-560 ;;
  tpp280) throughput pp280 --prompt page --hf-batch 0 --soft-tokens 280 --pages 1024 \
    --batch 512 --tag=-page-280 ;;
  tppmixed) throughput ppmixed --prompt page --continuous --lengths mixed --pages 1024 \
    --batch 512 --chunk 64 --tag=-page ;;
  # Vision fusions (models.export.fast_vision): both graphs alone (images/s, one page a call,
  # and the kernels of one page under torch's profiler), then the engine with each beside its
  # decode (vision_images_per_s = under decode load): `vision tppf tppv0` in one sitting.
  vision) step vision 300 $PY bench/gemma_vision.py --package "$PKG" --pages 64 --profile ;;
  tppf) throughput ppf --prompt page --hf-batch 0 --pages 1024 --batch 512 \
    --tag=-page-vfused ;;
  tppv0) throughput ppv0 --prompt page --hf-batch 0 --pages 1024 --batch 512 \
    --vision-graph vision_encoder/fast-unfused.onnx --tag=-page-vunfused ;;
  # The RoPE as one RotaryEmbedding (bench/gemma_vision.py writes it; builds write the tables
  # form since 2026-12-05): `vision tppf tppvr` in one sitting.
  tppvr) throughput ppvr --prompt page --hf-batch 0 --pages 1024 --batch 512 \
    --vision-graph vision_encoder/fast-rotary.onnx --tag=-page-vrotary ;;
  # Kernels of one vision page, one prefill chunk and 16 decode steps (CUDA graphs off).
  profile) step profile 300 $PY bench/gemma_profile.py --package "$PKG" --batch 256 --steps 16 ;;
  # Decoder fusions (models.export.fast.DECODER_FUSIONS) off, then the same engine run, then
  # back on: `fastoff tppd0 faston` after `tppf` (each rewrite of the fast graphs ~1-2 min).
  fastoff) step fastoff 400 $PY -m models.export fast "$PKG" --no-decoder-fusions ;;
  faston) step faston 400 $PY -m models.export fast "$PKG" ;;
  tppd0) throughput ppd0 --prompt page --hf-batch 0 --pages 1024 --batch 512 \
    --tag=-page-dunfused ;;
  # Cascade attention (issue 35, models.export.fast_cascade: the shared prompt prefix read once
  # for all rows, rows' full-layer caches without it): `cascade` writes the cascade graphs into
  # the package (every fast graph again, ~2-4 min; `faston`/`fastoff` drop them), then A/B in one
  # sitting: `attncas cascade tppf tppcas testcas`, then if it helps `tppcasc tppcas1024`.
  cascade) step cascade 540 $PY -m models.export fast "$PKG" --cascade ;;
  tppcas) throughput ppcas --prompt page --hf-batch 0 --pages 1024 --batch 512 --cascade \
    --tag=-page-cascade ;;
  tppcasc) throughput ppcasc --prompt page --continuous --pages 1024 --batch 512 --chunk 64 \
    --cascade --hf-batch 0 --tag=-continuous-page-cascade ;;
  tppcas1024) throughput ppcas1024 --prompt page --hf-batch 0 --pages 2048 --batch 1024 \
    --cascade --tag=-page-cascade-b1024 ;;
  testcas) step gputestcas 300 $PY -m pytest tests/models/gemma/test_cascade.py -m gpu -q ;;
  # The full layers' decode attention alone at the page prompt's step (L 3,136 = 2,343 + 768
  # rounded to 64, as tppf runs it; the cascade's own keys 3,136 - 1,216): plain vs cascade.
  attncas) step attncas 300 $PY bench/gemma_attention.py --batch 512 1024 --kv-length 3136 \
    --prefix 1216 --variants matmul cascade --tag=-cascade ;;
  # Decode attention alone at the step's shapes (no package needed): which formulation is fastest.
  attn) step attn 300 $PY bench/gemma_attention.py --batch 512 1024 ;;
  # A wider decode batch: the ~1,128 kernels of a step cost the same launches for twice the rows.
  tp1024) throughput 1024 --hf-batch 0 --pages 2048 --batch 1024 --tag=-b1024 ;;
  tp768) throughput 768 --hf-batch 0 --pages 1536 --batch 768 --tag=-b768 ;;
  hf) throughput hf --part hf --hf-batch 512,256 --hf-new-tokens 128 --hf-prompt 1198 \
    --json "$RES/gemma-hf-h200.json" ;;
  tp560) throughput 560 --hf-batch 0 --soft-tokens 560 --pages 1024 --batch 512 --tag -560 ;;
  tp280) throughput 280 --hf-batch 0 --soft-tokens 280 --pages 1024 --batch 512 --tag -280 ;;
  mixed) throughput mixed --hf-batch 0 --lengths mixed --pages 1024 --batch 512 ;;
  mixedc) throughput mixedc --continuous --lengths mixed --pages 1024 --batch 512 --chunk 64 ;;
  scale | scalec | scalebest | scaleccas)
    mode=$what
    if [ "$what" = scalebest ]; then  # the faster of the two 1120/768 throughput runs
      mode=$($PY -c "import json, os, time
d = time.strftime('%Y-%m-%d')
r = {m: json.load(open(f))['pages_per_s'] for m, f in
     (('b', f'$RES/gemma-{d}-h200.json'), ('c', f'$RES/gemma-{d}-h200-continuous.json'))
     if os.path.exists(f)}
print('scalec' if r.get('c', 0) > r.get('b', 0) else 'scale', r)" | tee /dev/stderr | cut -d' ' -f1)
    fi
    flag=$([ "$mode" = scalec ] && echo --continuous)
    [ "$mode" = scaleccas ] && flag="--continuous --cascade"  # after the `cascade` step
    # SCALE_BATCH (default 512): the worker's decode rows; SCALE_AHEAD (default 0: one claim,
    # 64 pages): AXIYA_GEMMA_PREPARED_AHEAD (512 = a batch's worth, the twelfth run). py-spy
    # samples the GPU worker when it can attach here (ptrace allowed).
    spy=$SITE/bin/py-spy
    $PY -c 'import time; time.sleep(4)' &
    timeout 20 "$spy" record --pid $! -d 1 --nonblocking -o /tmp/spy-check.txt --format raw \
      >/tmp/spy-check.log 2>&1 || { tail -3 /tmp/spy-check.log; spy=; }
    echo "py-spy: ${spy:-not usable}"
    step "$mode" 520 $PY -m bench.gemma_scaleout --package "$PKG" --pages 2048 --workers 1 \
      --batch "${SCALE_BATCH:-512}" --first-batch 64 --new-tokens 768 --redis-server /tmp/redis/run $flag --prepared-ahead "${SCALE_AHEAD:-0}" \
      --logs "$LOGS/$mode" ${spy:+--profile "$spy"}
    ;;
  *) echo "unknown step $what" ;;
  esac
done
tar -czf "$OUT/logs.tgz" -C / tmp/logs tmp/results 2>/dev/null
ls "$OUT"
