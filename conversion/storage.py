"""Where a job's files live, and the one module that knows how: Django's storage API over the
local MEDIA_ROOT (the default) or an S3-compatible object store (django-storages' S3Storage,
AXIYA_STORAGE_URL=s3://bucket/prefix), so web, cpu and gpu workers can run on different hosts.

Keys (under the prefix): jobs/<id>/source.pdf, jobs/<id>/pages/<n>.png and
jobs/<id>/out/{document.html, document_files/, document.report.json, document.report.html}.
Callers name a job and what they want (its source, page n, its HTML), never a path or a key.

Every call on the store runs under botocore's retries (AXIYA_S3_MAX_ATTEMPTS); what still fails
raises StorageUnavailable (STORAGE_UNAVAILABLE), never a backend's own exception. Writes of
one object are whole or absent (an S3 PUT; a rename on the local disk), and the outputs of a
job are published HTML last, so a reader never sees half of a result.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING
from urllib.parse import urlsplit

from boto3.s3.transfer import TransferConfig
from botocore.config import Config as BotoConfig
from botocore.exceptions import BotoCoreError, ClientError
from django.core.files import File
from django.core.files.storage import FileSystemStorage, Storage
from PIL import Image
from storages.backends.s3 import S3Storage

from axiya.config import Store, config
from conversion.pipeline import flow
from conversion.pipeline.errors import StorageUnavailable
from models.engine import PageImage

if TYPE_CHECKING:
    from conversion.models import Page

log = logging.getLogger(__name__)

OUTPUT_STEM = "document"
HTML_NAME, FILES_DIR_NAME, REPORT_NAME, REPORT_HTML_NAME = (
    p.name for p in flow.output_paths(Path(), OUTPUT_STEM)
)
JOBS = "jobs"


# --- the backend ----------------------------------------------------------------------------


class LocalStorage(FileSystemStorage):
    """MEDIA_ROOT, each file written beside its target and renamed into place: a reader sees
    the old file or the new one, never a half-written one."""

    def _save(self, name: str, content: File) -> str:
        target = Path(self.path(name))
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
        try:
            with os.fdopen(fd, "wb") as fh:
                for chunk in content.chunks():
                    fh.write(chunk)
            os.chmod(tmp, 0o644)
            os.replace(tmp, target)
        finally:
            Path(tmp).unlink(missing_ok=True)
        return name


@functools.cache
def _backend(store: Store) -> Storage:
    if not store.url:
        return LocalStorage(location=store.local_root, allow_overwrite=True)
    url = urlsplit(store.url)
    if url.scheme != "s3" or not url.netloc:
        raise ValueError(f"AXIYA_STORAGE_URL={store.url!r}: use s3://bucket/prefix.")
    return S3Storage(
        bucket_name=url.netloc,
        location=url.path.strip("/"),
        endpoint_url=store.endpoint_url,
        region_name=store.region,
        access_key=store.access_key_id,
        secret_key=store.secret_access_key,
        # MinIO and most self-hosted stores answer on one host name: path-style addressing.
        addressing_style="path" if store.endpoint_url else None,
        signature_version="s3v4",
        file_overwrite=True,
        default_acl=None,
        # Big files go up and down in 8 MiB parts, two at a time, and an object read spills
        # to a temporary file past 8 MiB: memory stays bounded whatever the PDF's size.
        max_memory_size=8 << 20,
        transfer_config=_transfer_config(),
        client_config=BotoConfig(
            retries={"max_attempts": store.max_attempts, "mode": "standard"},
            connect_timeout=store.timeout_s,
            read_timeout=store.timeout_s,
        ),
    )


def _transfer_config() -> TransferConfig:
    transfer = TransferConfig(
        multipart_threshold=8 << 20, multipart_chunksize=8 << 20, max_concurrency=2
    )
    # s3transfer reads up to 10 parts of an upload ahead into memory unless told otherwise
    # (a 48 MiB PDF took 51 MiB; with 2: 27 MiB, whatever the size).
    transfer.max_in_memory_upload_chunks = 2
    return transfer


def _store() -> Storage:
    return _backend(config().store)


def job_key(job_id, *parts: str) -> str:
    return "/".join((JOBS, str(job_id), *parts))


def page_key(job_id, number: int) -> str:
    return job_key(job_id, "pages", f"{number}.png")


def out_key(job_id, name: str) -> str:
    return job_key(job_id, "out", name)


def _figure_key(job_id, name: str) -> str:
    return job_key(job_id, "out", FILES_DIR_NAME, name)


def _missing(exc: ClientError) -> bool:
    return exc.response.get("Error", {}).get("Code") in ("404", "NoSuchKey", "NotFound")


@contextlib.contextmanager
def _calls(what: str) -> Iterator[None]:
    """One operation on the store: a missing object is FileNotFoundError, any other failure
    (after botocore's retries) StorageUnavailable."""
    try:
        yield
    except FileNotFoundError:
        raise
    except ClientError as exc:
        if _missing(exc):
            raise FileNotFoundError(what) from exc
        raise StorageUnavailable(_message(what, exc)) from exc
    except (BotoCoreError, OSError) as exc:
        raise StorageUnavailable(_message(what, exc)) from exc


def _message(what: str, exc: Exception) -> str:
    log.warning("file store: %s failed: %s", what, exc)
    return (
        f"The file store failed while {what} ({type(exc).__name__}); the file is not at "
        "fault. Try again later."
    )


def _exists(key: str) -> bool:
    with _calls(f"looking for {key}"):
        return _store().exists(key)


def _save_file(key: str, path: Path) -> None:
    """Stream a local file into the store (S3: a multipart upload for big files)."""
    with _calls(f"writing {key}"), open(path, "rb") as fh:
        _store().save(key, File(fh, name=os.path.basename(key)))


def _save_text(key: str, text: str) -> None:
    with tempfile.SpooledTemporaryFile(max_size=8 << 20) as fh:
        fh.write(text.encode("utf-8"))
        fh.seek(0)
        with _calls(f"writing {key}"):
            _store().save(key, File(fh, name=os.path.basename(key)))


def _open(key: str) -> IO[bytes]:
    """An open file of the object (S3: fetched into a spooled temporary file first, so a
    failure raises here, not halfway through a response)."""
    with _calls(f"reading {key}"):
        fh = _store().open(key, "rb")
        try:
            fh.read(0)
        except BaseException:
            fh.close()
            raise
        return fh


def _open_or_none(key: str) -> IO[bytes] | None:
    """_open, with None for a missing object."""
    try:
        return _open(key)
    except FileNotFoundError:
        return None


def _read_text(key: str) -> str | None:
    """The object's text; None when it is missing."""
    fh = _open_or_none(key)
    if fh is None:
        return None
    with fh, _calls(f"reading {key}"):
        return fh.read().decode("utf-8")


def _delete(key: str) -> None:
    with _calls(f"deleting {key}"):
        _store().delete(key)


def _walk(prefix: str) -> Iterator[str]:
    """Every key under a folder-like prefix."""
    with _calls(f"listing {prefix}"):
        try:
            folders, files = _store().listdir(prefix)
        except FileNotFoundError:
            return
    for name in files:
        yield f"{prefix}/{name}"
    for folder in folders:
        yield from _walk(f"{prefix}/{folder}")


def local_path(key: str) -> Path | None:
    """The object's own file when the store is this host's disk; None on an object store."""
    try:
        return Path(_store().path(key))
    except NotImplementedError:
        return None


# --- uploads --------------------------------------------------------------------------------


def incoming_dir() -> Path:
    """This host's uploads being received and validated, and accepted ones waiting for their
    row to commit (staged_upload): nothing here belongs to a job yet."""
    return Path(config().store.local_root) / "incoming"


def staged_upload(job_id) -> Path:
    return incoming_dir() / f"{job_id}.pdf"


def place_upload(job_id) -> bool:
    """Move a job's staged upload into the store, once its row is committed. False when there
    was nothing to move (placed before, or the staging was lost). A failed upload leaves the
    staged file (files_sweep tries again) and no object."""
    staged = staged_upload(job_id)
    if not staged.exists():
        return False
    key = job_key(job_id, "source.pdf")
    try:
        _save_file(key, staged)
    except StorageUnavailable:
        _forget([key])
        raise
    staged.unlink(missing_ok=True)
    return True


def source_exists(job_id) -> bool:
    return _exists(job_key(job_id, "source.pdf"))


@contextlib.contextmanager
def local_source(job_id) -> Iterator[Path]:
    """The job's source PDF as a file on this host, for the isolated MuPDF children: the
    stored file itself on a local store, else a streamed copy removed afterwards."""
    key = job_key(job_id, "source.pdf")
    lost = StorageUnavailable("The uploaded file is not in the file store.")
    own = local_path(key)
    if own is not None:
        if not own.exists():
            raise lost
        yield own
        return
    with scratch(job_id) as folder:
        path = folder / "source.pdf"
        try:
            with _open(key) as src, open(path, "wb") as dst, _calls(f"reading {key}"):
                shutil.copyfileobj(src, dst, 1 << 20)
        except FileNotFoundError:
            raise lost from None
        yield path


@contextlib.contextmanager
def scratch(job_id) -> Iterator[Path]:
    """A private folder on this host's disk for a job's work files (pages being rasterized,
    outputs being finished), removed when done (a process killed mid-way leaves it:
    services.files_sweep removes it)."""
    root = _scratch_root()
    root.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix=f"{job_id}-", dir=root))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# --- page images ----------------------------------------------------------------------------


def save_page_image(job_id, number: int, path: Path) -> None:
    _save_file(page_key(job_id, number), path)


def page_image_exists(job_id, number: int) -> bool:
    return _exists(page_key(job_id, number))


def open_page_image(job_id, number: int) -> IO[bytes] | None:
    """The stored PNG of a page, open for reading; None when it has none."""
    return _open_or_none(page_key(job_id, number))


def read_page_image(job_id, number: int) -> Image.Image | None:
    """A rasterized page as RGB; None when it was never rasterized (or its file is gone)."""
    fh = open_page_image(job_id, number)
    if fh is None:
        return None
    with fh, Image.open(fh) as image:
        return image.convert("RGB")


def engine_input(page: Page) -> PageImage:
    """A rasterized page as an engine reads it (FileNotFoundError when it has no image)."""
    with _open(page_key(page.job_id, page.number)) as fh, Image.open(fh) as image:
        return flow.engine_input(image, page.number, page.dpi, drawn=page.drawn)


# --- outputs --------------------------------------------------------------------------------


def publish_outputs(job_id, out_dir: Path) -> None:
    """Store what flow.finish wrote into out_dir: figures and reports first, the HTML last (a
    result exists once its HTML does). On failure what this call stored is removed again."""
    stored: list[str] = []
    files = out_dir / FILES_DIR_NAME
    figures = sorted(p for p in files.iterdir() if p.is_file()) if files.is_dir() else []
    try:
        keep = {_figure_key(job_id, p.name) for p in figures}
        for key in _walk(job_key(job_id, "out", FILES_DIR_NAME)):
            if key not in keep:
                _delete(key)  # a figure of an earlier finish that this one did not crop
        for path in figures:
            stored.append(_figure_key(job_id, path.name))
            _save_file(stored[-1], path)
        for name in (REPORT_NAME, REPORT_HTML_NAME, HTML_NAME):
            stored.append(out_key(job_id, name))
            _save_file(stored[-1], out_dir / name)
    except StorageUnavailable:
        _forget(stored)
        raise


def _forget(keys: list[str]) -> None:
    """Remove what a failed write stored, as far as the store still answers (what it cannot
    remove now lies under the job's folder, which delete and retention remove)."""
    for key in reversed(keys):
        try:
            _delete(key)
        except StorageUnavailable:
            log.warning("file store: could not remove %s after a failed write", key)


def output_exists(job_id) -> bool:
    """The job has a result (its HTML, written last)."""
    return _exists(out_key(job_id, HTML_NAME))


def read_html(job_id) -> str | None:
    """The result's HTML; None when the job has none (yet)."""
    return _read_text(out_key(job_id, HTML_NAME))


def read_report_text(job_id) -> str | None:
    return _read_text(out_key(job_id, REPORT_NAME))


def open_html(job_id) -> IO[bytes] | None:
    return _open_or_none(out_key(job_id, HTML_NAME))


def open_report(job_id) -> IO[bytes] | None:
    return _open_or_none(out_key(job_id, REPORT_NAME))


def write_html(job_id, text: str) -> None:
    _save_text(out_key(job_id, HTML_NAME), text)


def write_reports(job_id, *, report_json: str, report_html: str) -> None:
    _save_text(out_key(job_id, REPORT_NAME), report_json)
    _save_text(out_key(job_id, REPORT_HTML_NAME), report_html)


def figure_names(job_id) -> list[str]:
    """The file names in the result's figures folder, sorted."""
    prefix = job_key(job_id, "out", FILES_DIR_NAME) + "/"
    return sorted(k[len(prefix) :] for k in _walk(prefix[:-1]) if "/" not in k[len(prefix) :])


def open_figure(job_id, name: str) -> IO[bytes] | None:
    """A figure file of the result; None when there is no such file (`name` is a plain file
    name: the caller checks it)."""
    if "/" in name or name in ("", ".", ".."):
        return None
    return _open_or_none(_figure_key(job_id, name))


def save_figure(job_id, name: str, path: Path) -> None:
    _save_file(_figure_key(job_id, name), path)


# --- delete and sweep -----------------------------------------------------------------------


def delete_job(job_id) -> None:
    """Remove every file of a job from the store."""
    for key in list(_walk(job_key(job_id))):
        _delete(key)
    own = local_path(job_key(job_id))
    if own is not None:
        shutil.rmtree(own, ignore_errors=True)  # the empty folders a local store leaves


def _scratch_root() -> Path:
    return Path(config().store.local_root) / "scratch"


def scratch_folders() -> list[tuple[str, str, float]]:
    """This host's scratch folders: (folder name, the job id it starts with, when it or a file
    in it last changed, as a timestamp)."""
    root = _scratch_root()
    found = []
    for folder in root.iterdir() if root.is_dir() else []:
        try:
            changed = max([folder.stat().st_mtime] + [f.stat().st_mtime for f in folder.iterdir()])
        except FileNotFoundError:
            continue  # removed as it was looked at: its job finished
        found.append((folder.name, folder.name.rsplit("-", 1)[0], changed))
    return found


def delete_scratch(name: str) -> None:
    shutil.rmtree(_scratch_root() / Path(name).name, ignore_errors=True)


def stored_job_ids() -> list[str]:
    """The names of the job folders in the store (any name: the caller checks them)."""
    with _calls(f"listing {JOBS}"):
        try:
            folders, _ = _store().listdir(JOBS)
        except FileNotFoundError:
            return []
    return sorted(folders)


def stored_keys() -> list[str]:
    """Every key under jobs/ (tests and the sweep check the store is empty)."""
    return list(_walk(JOBS))
