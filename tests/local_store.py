"""Where the local store (the embedded default) keeps a job's files on this host's disk: tests
look at them; no product code does (it names files through conversion.storage)."""

from __future__ import annotations

from pathlib import Path

from conversion import storage


def _local_only(key: str) -> Path:
    path = storage.local_path(key)
    if path is None:
        raise RuntimeError("the store is not this host's disk: there is no local path")
    return path


def job_dir(job_id) -> Path:
    return _local_only(storage.job_key(job_id))


def jobs_root() -> Path:
    return _local_only(storage.JOBS)


def source_pdf(job_id) -> Path:
    return _local_only(storage.job_key(job_id, "source.pdf"))


def page_image(job_id, number: int) -> Path:
    return _local_only(storage.page_key(job_id, number))


def out_dir(job_id) -> Path:
    return _local_only(storage.job_key(job_id, "out"))


def html_path(job_id) -> Path:
    return _local_only(storage.out_key(job_id, storage.HTML_NAME))


def files_dir(job_id) -> Path:
    return _local_only(storage.job_key(job_id, "out", storage.FILES_DIR_NAME))


def report_path(job_id) -> Path:
    return _local_only(storage.out_key(job_id, storage.REPORT_NAME))


def report_html_path(job_id) -> Path:
    return _local_only(storage.out_key(job_id, storage.REPORT_HTML_NAME))
