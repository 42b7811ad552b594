# One image for web and workers; the GPU worker adds onnxruntime-gpu (see docker-compose.yml).
FROM debian:12-slim
RUN apt-get update && apt-get install -y --no-install-recommends \
      python3 python3-venv python3-dev gcc make \
      tesseract-ocr tesseract-ocr-eng tesseract-ocr-osd tesseract-ocr-fra tesseract-ocr-deu \
      tesseract-ocr-spa tesseract-ocr-ita tesseract-ocr-por tesseract-ocr-nld \
      libpango-1.0-0 libpangoft2-1.0-0 fonts-dejavu-core fonts-dejavu-extra iso-codes \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY requirements.txt .
RUN python3 -m venv /app/.venv && /app/.venv/bin/pip install --no-cache-dir -r requirements.txt
ARG GPU=0
RUN if [ "$GPU" = 1 ]; then /app/.venv/bin/pip uninstall -y onnxruntime \
      && /app/.venv/bin/pip install --no-cache-dir onnxruntime-gpu==1.31.1; fi
COPY . .
ENV PATH=/app/.venv/bin:$PATH AXIYA_DATA_DIR=/data OMP_THREAD_LIMIT=1
RUN AXIYA_DATA_DIR=/tmp/build python manage.py collectstatic --noinput -v0
