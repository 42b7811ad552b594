"""Shared fixtures: corpus paths, a real redis-server and a real Celery worker when asked for."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings as dj_settings

from bench.processes import free_port, postgres_bin, postgres_cluster, stop_process, wait_port

RESOURCES = Path(__file__).parent / "resources"
CORPUS = RESOURCES / "corpus"
ROOT = Path(__file__).resolve().parents[1]


# `make test` runs the suite on two pytest-xdist workers (`-n 2 --dist loadscope`): a scope runs
# whole on one worker, so what its tests share is made once. A scope is a module (its
# module-scoped conversions), or one of these folders: tests/reliability breaks real Redis,
# Celery and web servers and times their recovery (two such tests at once would share their
# time limits), tests/browser shares one Chromium and its cached conversions, tests/models/gemma
# the tiny Gemma packages. Those folders go first: they are the longest.
XDIST_FOLDERS = ("tests/reliability/", "tests/browser/", "tests/models/gemma/")


def xdist_scope(nodeid: str) -> str:
    path = nodeid.split("::")[0]
    return next((folder for folder in XDIST_FOLDERS if path.startswith(folder)), path)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """xdist's loadscope with our scopes (its own are modules and classes)."""
    if config.getvalue("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class FolderScopeScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return xdist_scope(nodeid)

    return FolderScopeScheduling(config, log)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under xdist, the long folders' tests first (the workers hand out scopes in this order);
    alone, pytest-django's order as it was."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return

    def rank(item: pytest.Item) -> int:
        scope = xdist_scope(item.nodeid)
        return XDIST_FOLDERS.index(scope) if scope in XDIST_FOLDERS else len(XDIST_FOLDERS)

    items.sort(key=rank)


def pytest_unconfigure(config: pytest.Config) -> None:
    """The run's private data folder goes when the run ends (the controller's, under xdist: its
    workers have ended by then, and their folders are inside it)."""
    created = getattr(dj_settings, "CREATED_DATA_DIR", None) if dj_settings.configured else None
    if created:
        shutil.rmtree(created, ignore_errors=True)


@pytest.fixture(scope="session", autouse=True)
def _reviewers_group_after_flush():
    """A transactional test ends with a flush, which empties every table, the Reviewers group
    the migration made too; Django then sends post_migrate (without a plan: migrate sends
    one), and the group is made again, as the migration made it. Alone, pytest-django runs
    the tests that expect it before any flush; under xdist a worker may meet them after one."""
    from django.db.models.signals import post_migrate

    from conversion import roles

    def restore(sender, **kwargs) -> None:
        if sender.label == "conversion" and "plan" not in kwargs:
            roles.reviewers_group()

    post_migrate.connect(restore, weak=False, dispatch_uid="tests-reviewers-group")
    yield
    post_migrate.disconnect(dispatch_uid="tests-reviewers-group")


def run_convert(*args: str, **env: str) -> subprocess.CompletedProcess:
    """`manage.py convert --no-progress ARGS` in its own process, with these variables set."""
    return subprocess.run(
        [sys.executable, "manage.py", "convert", "--no-progress", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "OMP_THREAD_LIMIT": "1", **env},
    )


def wait_job(job_id, timeout: float = 120):
    """Poll a job until it finishes (done, needs_review or failed)."""
    from conversion.models import Job

    deadline = time.time() + timeout
    while time.time() < deadline:
        job = Job.objects.get(pk=job_id)
        if job.is_finished:
            return job
        time.sleep(0.3)
    raise AssertionError(f"job {job_id} did not finish: {Job.objects.get(pk=job_id).status}")


@pytest.fixture
def alice(db):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create_user("alice", password="pw-alice-123")


@pytest.fixture
def bob(db):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create_user("bob", password="pw-bob-123")


@pytest.fixture(scope="session")
def corpus() -> Path:
    return CORPUS


def image_to_pdf(image: Path, pdf: Path) -> Path:
    """Wrap a scanned image (TIF, PNG) into a one-page PDF at the image's own resolution, as a
    person would upload it."""
    import pymupdf

    pix = pymupdf.Pixmap(str(image))
    dpi = pix.xres if pix.xres and pix.xres > 72 else 300
    doc = pymupdf.open()
    page = doc.new_page(width=pix.width * 72 / dpi, height=pix.height * 72 / dpi)
    page.insert_image(page.rect, filename=str(image))
    doc.save(str(pdf))
    doc.close()
    return pdf


def scan_of(page, pdf: Path, *, dpi: int = 300) -> Path:
    """A drawn PyMuPDF page kept only as its picture at `dpi`: a clean scan of it."""
    import pymupdf

    scan = pymupdf.open()
    scan_page = scan.new_page(width=page.rect.width, height=page.rect.height)
    scan_page.insert_image(scan_page.rect, pixmap=page.get_pixmap(dpi=dpi))
    scan.save(pdf)
    return pdf


@pytest.fixture(scope="session")
def phototest_pdf(tmp_path_factory) -> Path:
    return image_to_pdf(CORPUS / "phototest.tif", tmp_path_factory.mktemp("pdf") / "phototest.pdf")


@pytest.fixture
def browser():
    """Debian's Chromium through Playwright, one per test (no browser can be downloaded here)."""
    from tests.axe import CHROMIUM, CHROMIUM_ARGS

    if not os.path.exists(CHROMIUM):
        pytest.skip("Debian's chromium is not installed")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory):
    """A real redis-server on a free loopback port, for the whole session."""
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.fail("redis-server is not installed: apt-get install redis-server")
    port = free_port()
    workdir = tmp_path_factory.mktemp("redis")
    proc = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
         "--dir", str(workdir)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    wait_port(port, timeout=10)
    yield f"redis://127.0.0.1:{port}/0"
    stop_process(proc, timeout=10)


@pytest.fixture
def celery_worker_process(redis_url, transactional_db, settings):
    """A real `celery worker` process on queues cpu and gpu, sharing the test database."""
    from axiya.celery import app

    db_name = dj_settings.DATABASES["default"]["NAME"]
    env = dict(os.environ)
    env.update(
        AXIYA_BROKER_URL=redis_url,
        DATABASE_URL=f"sqlite:///{db_name}",
        AXIYA_DATA_DIR=str(dj_settings.DATA_DIR),
        DJANGO_SETTINGS_MODULE="axiya.settings",
        OMP_THREAD_LIMIT="1",
    )
    log = open(Path(dj_settings.DATA_DIR) / "worker.log", "w")  # noqa: SIM115
    proc = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "axiya", "worker", "-Q", "cpu,gpu", "-c", "1",
         "--pool", "solo", "--without-heartbeat", "--without-gossip", "--without-mingle",
         "-l", "info"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    settings.AXIYA_INLINE_WORKER = False
    settings.CELERY_BROKER_URL = redis_url
    app.conf.broker_url = redis_url
    yield proc
    stop_process(proc, timeout=20)
    log.close()


# A worker process on the tiny package: small batches, short answers, few image tokens.
TINY_GEMMA_WORKER = {
    "AXIYA_GEMMA_BATCH": "4",
    "AXIYA_GEMMA_FIRST_BATCH": "2",
    "AXIYA_GEMMA_BATCH_WAIT_S": "1",
    "AXIYA_GEMMA_MAX_NEW_TOKENS": "4",
    "AXIYA_GEMMA_MAX_SOFT_TOKENS": "70",
    "AXIYA_DPI": "72",
}


@pytest.fixture(scope="session")
def tiny_ckpt(tmp_path_factory) -> Path:
    """The tiny random Gemma 4 checkpoint (seed 0), written once per session: the package
    below and tests/models/gemma's packages are all built from it."""
    from models.export.checkpoint import write_checkpoint

    return write_checkpoint("tiny", tmp_path_factory.mktemp("tiny-ckpt"), seed=0)


@pytest.fixture(scope="session")
def gemma_tiny_package(tmp_path_factory, request) -> Path:
    """A tiny random-weight Gemma 4 package (as `python -m models.export tiny-random`), built
    once per session: the real graphs, tokenizer and manifest at toy size. Tests copy it
    before they change it (tests/models/gemma/test_package.py)."""
    pytest.importorskip("transformers")
    pytest.importorskip("onnxruntime")
    from models.export.build import build_package

    ckpt = request.getfixturevalue("tiny_ckpt")  # after the skips: it needs transformers
    pkg = tmp_path_factory.mktemp("gemma-tiny") / "pkg"
    build_package(ckpt, pkg, source={"random": "tiny", "seed": 0, "weights": "random"})
    return pkg


def page_with_text(lines: list[str], *, size: tuple[int, int] = (612, 792)):
    """A white page image with a few lines of black text."""
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(image)
    px = max(12, size[1] // 50)  # ~11 pt at any resolution
    font = ImageFont.load_default(size=px)
    for i, line in enumerate(lines):
        draw.text((px * 4, px * 4 + int(px * 1.5) * i), line, fill="black", font=font)
    return image


# --- a converted scan for the review tests: c02-22.pdf, a page with a figure and uncertain lines --


@pytest.fixture(scope="module")
def _converted(django_db_setup, django_db_blocker):
    """c02-22.pdf (a page with a figure) converted once for the module, synchronously."""
    from django.contrib.auth import get_user_model

    from conversion.models import Job
    from conversion.runner import jobs as runner
    from tests import local_store

    with django_db_blocker.unblock():
        owner = get_user_model().objects.create_user("olive", password="pw-olive-123")
        job = runner.job_create(owner=owner, upload=CORPUS / "c02-22.pdf")
        runner.job_run_inline(job_id=job.id)
        job.refresh_from_db()
        pristine = {
            p: p.read_bytes() for p in local_store.out_dir(job.id).rglob("*") if p.is_file()
        }
    yield job.id, pristine
    with django_db_blocker.unblock():
        Job.objects.filter(pk=job.id).delete()
        get_user_model().objects.filter(username="olive").delete()


@pytest.fixture
def job(_converted, db):
    """The converted job, with its output files restored to the pipeline's version."""
    import json

    from conversion import services
    from conversion.models import Job
    from tests import local_store

    job_id, pristine = _converted
    out = local_store.out_dir(job_id)
    for path in list(out.rglob("*")):
        if path.is_file() and path not in pristine:
            path.unlink()
    for path, data in pristine.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    job = Job.objects.get(pk=job_id)
    report = json.loads(local_store.report_path(job_id).read_text())
    Job.objects.filter(pk=job_id).update(
        status=services.status_from_evidence(report["summary"]), summary=report["summary"]
    )
    job.refresh_from_db()
    return job


def create_reviewer(username: str = "rita", password: str = "pw-rita-123"):
    """A user in the Reviewers group (conversion.roles), with no other role."""
    from django.contrib.auth import get_user_model

    from conversion.roles import user_set_roles

    user = get_user_model().objects.create_user(username, password=password)
    user_set_roles(user=user, reviewer=True)
    return user


def api_token(username: str) -> str:
    """A new ordinary user's API token (password pw-<username>-123)."""
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    user = get_user_model().objects.create_user(username, password=f"pw-{username}-123")
    return Token.objects.create(user=user).key


def batch_folder(root: Path, files: dict[str, Path | bytes]) -> Path:
    """root/in holding files for axiya-batch: each a file copied (a Path) or bytes written."""
    folder = root / "in"
    folder.mkdir()
    for name, content in files.items():
        if isinstance(content, Path):
            shutil.copy(content, folder / name)
        else:
            (folder / name).write_bytes(content)
    return folder


@pytest.fixture
def reviewer(db):
    return create_reviewer()


@pytest.fixture
def reviewer_client(client, reviewer):
    client.force_login(reviewer)
    return client


@pytest.fixture(scope="session")
def moto_server():
    """moto's S3 server (tests/s3.py), started once: it costs a Python start-up and moto's
    imports; each test gets a bucket and relay of its own on it (`s3_store`)."""
    from tests.s3 import MotoServer

    server = MotoServer()
    yield server
    server.stop()


@pytest.fixture
def s3_store(settings, moto_server):
    """A real S3-compatible store on loopback (tests/s3.py) that this process's job files go
    to: a fresh bucket behind a relay of its own; `.relay` cuts it, `.objects()` lists the
    keys it holds."""
    from tests.s3 import S3Server

    server = S3Server(moto_server)
    server.use(settings)
    yield server
    server.stop()


@pytest.fixture
def postgres_url():
    """A real PostgreSQL cluster of its own on a loopback port, for one test."""
    if postgres_bin() is None:
        pytest.fail("PostgreSQL is not installed: apt-get install postgresql (bin/setup dev)")
    with postgres_cluster() as url:
        yield url


def handmade_job(owner, *, name: str = "annual-report.pdf"):
    """A finished job whose result is the hand-made three-page document (headings over pages,
    tables with and without header cells, figures, footnotes): stored as the pipeline stores a
    result, without an engine run (the review tests edit its structure)."""
    import json
    import tempfile

    from conversion import services, storage
    from conversion.models import Job
    from conversion.pipeline import flow
    from conversion.pipeline.report_html import render_report
    from tests.resources.documents.handmade import every_block, write_figures

    document = every_block()
    html, findings = flow.render_and_check(document, files_dir_name=storage.FILES_DIR_NAME)
    report = flow.make_report(document=document, findings=findings, engine={}, source=name)
    job = Job.objects.create(
        owner=owner, original_name=name, engine="ocr", pages_total=len(document.pages),
        pages_done=len(document.pages), title=document.title, summary=report["summary"],
        status=services.status_from_evidence(report["summary"]),
    )  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        write_figures(Path(tmp))
        for figure in sorted(Path(tmp).iterdir()):
            storage.save_figure(job.id, figure.name, figure)
    storage.write_reports(
        job.id,
        report_json=json.dumps(report, indent=2),
        report_html=render_report(report, document_href=storage.HTML_NAME),
    )
    storage.write_html(job.id, html)
    return job
