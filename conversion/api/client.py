"""A command-line client for batch conversion of a folder through the REST API.

Standard library only, so it runs on any machine with Python 3.11 (no Django needed):

    bin/axiya-batch DIR --url http://localhost:8000 --token KEY [--out DIR] [--zip]

Each PDF is posted as a job (retried on 429/5xx/connection errors with backoff, honouring
Retry-After), then polled until it finishes; results are downloaded into --out. Progress goes to
stderr, a summary at the end; the exit status is 0 only when every file converted.
"""

from __future__ import annotations

import argparse
import json
import mimetypes
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

RETRY_STATUSES = {429, 500, 502, 503, 504}
FINISHED = {"done", "needs_review", "failed"}


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.status, self.code, self.message = status, code, message


@dataclass
class Result:
    path: Path
    job_id: str | None = None
    status: str = "not_sent"
    error: str = ""
    outputs: list[Path] = field(default_factory=list)


class Client:
    def __init__(
        self, *, url: str, token: str, retries: int = 5, backoff: float = 1.0, timeout: float = 120,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:  # fmt: skip
        self.base = url.rstrip("/") + "/api/v1"
        self.token = token
        self.retries = retries
        self.backoff = backoff
        self.timeout = timeout
        self.sleep = sleep

    def _request(self, method: str, url: str, *, body: bytes | None = None,
                 content_type: str | None = None) -> tuple[int, bytes, dict]:  # fmt: skip
        if not url.startswith("http"):
            url = self.base + url
        attempt = 0
        while True:
            request = urllib.request.Request(url, data=body, method=method)
            request.add_header("Authorization", f"Token {self.token}")
            request.add_header("Accept", "application/json")
            if content_type:
                request.add_header("Content-Type", content_type)
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    return response.status, response.read(), dict(response.headers)
            except urllib.error.HTTPError as exc:
                payload = exc.read()
                if exc.code in RETRY_STATUSES and attempt < self.retries:
                    attempt += 1
                    self.sleep(self._delay(attempt, exc.headers.get("Retry-After")))
                    continue
                raise _api_error(exc.code, payload) from None
            except (urllib.error.URLError, ConnectionError, TimeoutError) as exc:
                if attempt < self.retries:
                    attempt += 1
                    self.sleep(self._delay(attempt, None))
                    continue
                raise ApiError(0, "CONNECTION_FAILED", f"Cannot reach {url}: {exc}") from None

    def _delay(self, attempt: int, retry_after: str | None) -> float:
        if retry_after:
            try:
                return min(float(retry_after), 300.0)
            except ValueError:
                pass
        return min(self.backoff * 2 ** (attempt - 1), 60.0)

    def submit(self, path: Path, *, engine: str | None = None, language: str | None = None) -> dict:
        fields = {k: v for k, v in {"engine": engine, "language": language}.items() if v}
        body, content_type = encode_multipart(fields, {"file": path})
        _, data, _ = self._request("POST", "/jobs", body=body, content_type=content_type)
        return json.loads(data)

    def job(self, url_or_id: str) -> dict:
        url = url_or_id if url_or_id.startswith("http") else f"/jobs/{url_or_id}"
        return json.loads(self._request("GET", url)[1])

    def download(self, url: str, target: Path) -> Path:
        _, data, _ = self._request("GET", url)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        return target


def _api_error(status: int, payload: bytes) -> ApiError:
    try:
        error = json.loads(payload)["error"]
        return ApiError(status, error["code"], error["message"])
    except (ValueError, KeyError, TypeError):
        return ApiError(status, f"HTTP_{status}", payload[:200].decode("utf-8", "replace"))


def encode_multipart(fields: dict[str, str], files: dict[str, Path]) -> tuple[bytes, str]:
    boundary = f"axiya-{uuid.uuid4().hex}"
    parts: list[bytes] = []
    for name, value in fields.items():
        head = f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'
        parts.append(head.encode() + str(value).encode() + b"\r\n")
    for name, path in files.items():
        ctype = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        filename = path.name.replace('"', "_")
        head = (
            f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; '
            f'filename="{filename}"\r\nContent-Type: {ctype}\r\n\r\n'
        )
        parts.append(head.encode() + path.read_bytes() + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


def convert_folder(
    folder: Path, *, client: Client, out: Path, want_zip: bool = False, engine: str | None = None,
    language: str | None = None, poll: float = 1.0, timeout: float = 3600,
    log: Callable[[str], None] = lambda line: print(line, file=sys.stderr, flush=True),
) -> list[Result]:  # fmt: skip
    pdfs = sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() == ".pdf")
    results = [Result(path=p) for p in pdfs]
    if not pdfs:
        log(f"No PDF files in {folder}.")
        return results
    for i, result in enumerate(results, start=1):
        try:
            created = client.submit(result.path, engine=engine, language=language)
        except ApiError as exc:
            result.status, result.error = "rejected", f"{exc.code}: {exc.message}"
            log(f"[{i}/{len(results)}] {result.path.name}: refused, {result.error}")
            continue
        result.job_id, result.status = str(created["id"]), created["status"]
        log(f"[{i}/{len(results)}] {result.path.name}: uploaded, job {result.job_id}")
    deadline = time.monotonic() + timeout
    pending = [r for r in results if r.job_id]
    last_line = ""
    while pending and time.monotonic() < deadline:
        done_pages = total_pages = 0
        for result in list(pending):
            try:
                job = client.job(result.job_id)
            except ApiError as exc:
                result.status, result.error = "lost", f"{exc.code}: {exc.message}"
                pending.remove(result)
                continue
            result.status = job["status"]
            done_pages += job["progress"]["pages_done"]
            total_pages += job["progress"]["pages_total"]
            if job["status"] in FINISHED:
                pending.remove(result)
                _collect(result, job, client=client, out=out, want_zip=want_zip, log=log)
        finished = sum(1 for r in results if r.job_id and r not in pending)
        line = (
            f"{finished}/{sum(1 for r in results if r.job_id)} documents finished, "
            f"{done_pages}/{total_pages} pages read in those still running"
        )
        if line != last_line:
            log(line)
            last_line = line
        if pending:
            time.sleep(poll)
    for result in pending:
        result.status, result.error = "timeout", "Did not finish in time; check it later."
    return results


def _collect(result: Result, job: dict, *, client: Client, out: Path, want_zip: bool,
             log: Callable[[str], None]) -> None:  # fmt: skip
    if job["status"] == "failed":
        error = job.get("error") or {}
        result.error = f"{error.get('code')}: {error.get('message')}"
        log(f"{result.path.name}: failed, {result.error}")
        return
    stem = result.path.stem
    try:
        if want_zip:
            result.outputs.append(client.download(job["links"]["zip"], out / f"{stem}.zip"))
        else:
            result.outputs.append(client.download(job["links"]["html"], out / f"{stem}.html"))
        result.outputs.append(client.download(job["links"]["report"], out / f"{stem}.report.json"))
    except ApiError as exc:
        result.error = f"download failed, {exc.code}: {exc.message}"
    log(f"{result.path.name}: {job['status'].replace('_', ' ')}")


def summary(results: list[Result]) -> str:
    ok = [r for r in results if r.status in ("done", "needs_review") and not r.error]
    lines = [
        f"{len(ok)} of {len(results)} converted "
        f"({sum(r.status == 'needs_review' for r in ok)} need review)."
    ]
    for r in results:
        if r not in ok:
            lines.append(f"  {r.path.name}: {r.status} {r.error}".rstrip())
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="axiya-batch", description="Convert every PDF in a folder through the Axiya API."
    )
    parser.add_argument("folder", type=Path)
    parser.add_argument("--url", required=True, help="The server, e.g. http://localhost:8000")
    parser.add_argument("--token", required=True, help="From `manage.py create_api_token`.")
    parser.add_argument("--out", type=Path, default=Path("axiya-out"), help="Where results go.")
    parser.add_argument("--zip", action="store_true", help="Download zips (HTML+images+report).")
    parser.add_argument("--engine", default=None)
    parser.add_argument("--language", default=None)
    parser.add_argument("--retries", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=3600, help="Seconds to wait in all.")
    args = parser.parse_args(argv)
    if not args.folder.is_dir():
        parser.error(f"{args.folder} is not a folder")
    client = Client(url=args.url, token=args.token, retries=args.retries)
    results = convert_folder(
        args.folder, client=client, out=args.out, want_zip=args.zip, engine=args.engine,
        language=args.language, timeout=args.timeout,
    )  # fmt: skip
    print(summary(results))
    ok = all(r.status in ("done", "needs_review") and not r.error for r in results)
    return 0 if ok and results else 1


if __name__ == "__main__":
    sys.exit(main())
