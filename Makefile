# The two commands a newcomer needs (see README): `make demo` and `make test`.
PY := .venv/bin/python
SAMPLE := tests/resources/corpus/linn.pdf
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: setup setup-dev demo serve test lint format worker-cpu worker-gpu housekeeping bench

setup:
	bin/setup

setup-dev:
	bin/setup dev

# Converts a sample scan on the embedded default (CPU engine, SQLite, no broker), then starts the site.
demo: setup
	$(PY) manage.py migrate --noinput -v0
	$(PY) manage.py collectstatic --noinput -v0
	$(PY) manage.py convert $(SAMPLE) --out out/
	$(PY) manage.py create_local_user --keep-password --reviewer --site http://$(HOST):$(PORT)
	@echo "Sample converted: out/linn.html. Site: http://$(HOST):$(PORT)/  (sign in: see above)"
	$(PY) manage.py runserver $(HOST):$(PORT) --noreload

# nginx on HOST:PORT in front of gunicorn (gthread, 2 x 8) on a unix socket, both in the
# foreground (bin/serve, deploy/nginx/); Ctrl-C stops both.
serve:
	$(PY) manage.py migrate --noinput -v0
	HOST=$(HOST) PORT=$(PORT) PY=$(PY) bin/serve

# The architecture contracts (pyproject.toml [tool.importlinter], docs/DESIGN.md) first, then the suite.
test: setup-dev
	.venv/bin/lint-imports
	OMP_THREAD_LIMIT=1 $(PY) -m pytest -n 2 --dist loadscope --no-loadscope-reorder

lint:
	.venv/bin/ruff check . && .venv/bin/ruff format --check . && .venv/bin/lint-imports

format:
	.venv/bin/ruff check --fix . && .venv/bin/ruff format .

worker-cpu:
	AXIYA_BROKER_URL=$${AXIYA_BROKER_URL:-redis://127.0.0.1:6379/0} .venv/bin/celery -A axiya worker -Q cpu -c 2 -l info

# Beat and the periodic tasks it sends (recovery every 20 s, retention hourly), on their own queue
# in a worker that converts nothing: a frozen conversion worker can't hold up recovery. One per site.
housekeeping:
	AXIYA_BROKER_URL=$${AXIYA_BROKER_URL:-redis://127.0.0.1:6379/0} .venv/bin/celery -A axiya worker -B -Q housekeeping --pool solo -s var/celerybeat-schedule -l info -n housekeeping@%h

worker-gpu:
	AXIYA_BROKER_URL=$${AXIYA_BROKER_URL:-redis://127.0.0.1:6379/0} AXIYA_ENGINE=gemma AXIYA_WORKER_ENGINE=gemma CUDA_VISIBLE_DEVICES=$${CUDA_VISIBLE_DEVICES:-0} .venv/bin/celery -A axiya worker -Q gpu -c 1 --prefetch-multiplier 1 -l info -n gpu$${CUDA_VISIBLE_DEVICES:-0}@%h

bench:
	OMP_THREAD_LIMIT=1 $(PY) bench/cpu_pipeline.py
