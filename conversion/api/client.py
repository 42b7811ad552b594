"""A command-line client for batch conversion of a folder through the REST API.

Standard library only, so it runs on any machine with Python 3.11 (no Django needed):

    bin/axiya-batch DIR --url http://localhost:8000 --token KEY [--out DIR] [--zip]
        [--formats html,epub,pdf]

Each PDF is posted as a job (retried on 429/5xx/connection errors with backoff, honouring
Retry-After), then polled until it finishes, waiting out a server that went away; results go into
--out as <name>.html with its <name>_files/ images, <name>.report.json and <name>.report.html,
and <name>.epub / <name>.pdf with --formats (or the zip, --zip). out/.axiya-batch.json remembers
each file's job: a second run on the same folder resumes, without uploading converted files
again. Progress goes to stderr, a summary to stdout; the exit status is 0 when every file
converted with nothing to review, 3 when some need review, 1 when a file was refused, failed or
did not finish.
"""

from __future__ import annotations

import argparse
import hashlib
import http.client
import json
import mimetypes
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
import zipfile
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
    sha256: str = ""
    job_id: str | None = None
    status: str = "not_sent"
    error: str = ""
    open_findings: int = 0
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
            except (urllib.error.URLError, http.client.HTTPException, ConnectionError,
                    TimeoutError) as exc:  # fmt: skip
                # HTTPException: a server killed mid-answer (IncompleteRead, BadStatusLine).
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
        return _answer(data)

    def job(self, url_or_id: str) -> dict:
        url = url_or_id if url_or_id.startswith("http") else f"/jobs/{url_or_id}"
        return _answer(self._request("GET", url)[1])

    def download(self, url: str, target: Path) -> Path:
        _, data, _ = self._request("GET", url)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        return target


def _answer(data: bytes) -> dict:
    """A successful answer's JSON. One that is not JSON came from a server that went away while
    answering (or a proxy in front of it): a transient outage (status 0), not about the file."""
    try:
        answer = json.loads(data)
    except ValueError:
        raise ApiError(0, "INCOMPLETE_RESPONSE", "The server's answer was cut short.") from None
    if not isinstance(answer, dict):
        raise ApiError(0, "INCOMPLETE_RESPONSE", "The server's answer was not a JSON object.")
    return answer


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


STATE_FILE = ".axiya-batch.json"
CONVERTED = {"done", "needs_review"}
EXIT_OK, EXIT_FAILED, EXIT_REVIEW = 0, 1, 3


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


class State:
    """What earlier runs did with each file of the folder (out/.axiya-batch.json): a rerun polls
    the jobs it started and skips the files it already converted, instead of uploading again."""

    def __init__(self, out: Path) -> None:
        self.path = out / STATE_FILE
        try:
            self.files: dict[str, dict] = json.loads(self.path.read_text())["files"]
        except (OSError, ValueError, KeyError, TypeError):
            self.files = {}

    def get(self, result: Result) -> dict | None:
        entry = self.files.get(result.path.name)
        return entry if entry and entry.get("sha256") == result.sha256 else None

    def save(self, result: Result) -> None:
        self.files[result.path.name] = {
            "sha256": result.sha256, "job_id": result.job_id, "status": result.status,
            "open_findings": result.open_findings, "outputs": [str(p) for p in result.outputs],
        }  # fmt: skip
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"files": self.files}, indent=2))
        tmp.replace(self.path)


def convert_folder(
    folder: Path, *, client: Client, out: Path, want_zip: bool = False, engine: str | None = None,
    language: str | None = None, poll: float = 1.0, timeout: float = 3600, formats: str = "html",
    log: Callable[[str], None] = lambda line: print(line, file=sys.stderr, flush=True),
) -> list[Result]:  # fmt: skip
    pdfs = sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() == ".pdf")
    results = [Result(path=p, sha256=_sha256(p)) for p in pdfs]
    if not pdfs:
        log(f"No PDF files in {folder}.")
        return results
    state = State(out)
    deadline = time.monotonic() + timeout
    for i, result in enumerate(results, start=1):
        prefix = f"[{i}/{len(results)}] {result.path.name}"
        earlier = state.get(result)
        if earlier and earlier["status"] in CONVERTED and _all_exist(earlier["outputs"]):
            result.job_id, result.status = earlier["job_id"], earlier["status"]
            result.open_findings = earlier.get("open_findings") or 0
            result.outputs = [Path(p) for p in earlier["outputs"]]
            log(f"{prefix}: already converted (job {result.job_id}), not uploaded again")
            continue
        if earlier and earlier.get("job_id") and earlier["status"] not in FINISHED:
            result.job_id, result.status = earlier["job_id"], earlier["status"]
            log(f"{prefix}: uploaded by an earlier run, job {result.job_id}: waiting for it")
            continue
        try:
            created = _submit(result.path, client=client, engine=engine, language=language,
                              poll=poll, deadline=deadline, log=log)  # fmt: skip
        except ApiError as exc:
            result.status, result.error = "rejected", f"{exc.code}: {exc.message}"
            log(f"{prefix}: refused, {result.error}")
            continue
        result.job_id, result.status = str(created["id"]), created["status"]
        state.save(result)
        log(f"{prefix}: uploaded, job {result.job_id}")
    pending = [r for r in results if r.job_id and r.status not in FINISHED]
    _wait(pending, results, client=client, state=state, out=out, want_zip=want_zip, poll=poll,
          deadline=deadline, log=log, formats=formats)  # fmt: skip
    for result in pending:
        result.status = "unfinished"
        result.error = "Not finished in time: run the same command again to pick it up."
    return results


def transient(exc: ApiError) -> bool:
    """The server is away or overloaded (not an answer about the file)."""
    return exc.status == 0 or exc.status in RETRY_STATUSES


def _outage_pause(outage: int, poll: float, exc: ApiError, *, client: Client,
                  log: Callable[[str], None]) -> None:  # fmt: skip
    pause = min(poll * 2**outage, 60.0)
    log(f"server unreachable ({exc.code}); retrying in {pause:.0f} s")
    client.sleep(pause)


def _submit(path: Path, *, client: Client, engine: str | None, language: str | None,
            poll: float, deadline: float, log: Callable[[str], None]) -> dict:  # fmt: skip
    """Upload one file, waiting out a server that went away until the deadline."""
    outage = 0
    while True:
        try:
            return client.submit(path, engine=engine, language=language)
        except ApiError as exc:
            if not transient(exc) or time.monotonic() >= deadline:
                raise
            outage += 1
            _outage_pause(outage, poll, exc, client=client, log=log)


def _all_exist(paths: list[str]) -> bool:
    return bool(paths) and all(Path(p).exists() for p in paths)


def _wait(pending: list[Result], results: list[Result], *, client: Client, state: State,
          out: Path, want_zip: bool, poll: float, deadline: float,
          log: Callable[[str], None], formats: str = "html") -> None:  # fmt: skip
    """Poll until every pending job finished or the deadline passed (pending keeps the rest).
    A server that went away is waited for, with growing pauses, never given up early."""
    last_line = ""
    outage = 0
    while pending and time.monotonic() < deadline:
        done_pages = total_pages = 0
        for result in list(pending):
            try:
                job = client.job(result.job_id)
                if job["status"] in FINISHED:
                    _collect(result, job, client=client, out=out, want_zip=want_zip, log=log,
                             formats=formats)  # fmt: skip
            except ApiError as exc:
                if exc.status == 404:
                    result.status, result.error = "lost", f"{exc.code}: {exc.message}"
                    log(f"{result.path.name}: the server no longer has job {result.job_id}")
                    pending.remove(result)
                    state.save(result)
                    continue
                outage += 1
                _outage_pause(outage, poll, exc, client=client, log=log)
                break
            outage = 0
            result.status = job["status"]
            done_pages += job["progress"]["pages_done"]
            total_pages += job["progress"]["pages_total"]
            if result.status in FINISHED:
                pending.remove(result)
                state.save(result)
        else:
            finished = sum(1 for r in results if r.job_id and r.status in FINISHED)
            line = (
                f"{finished}/{sum(1 for r in results if r.job_id)} documents finished, "
                f"{done_pages}/{total_pages} pages read in those still running"
            )
            if line != last_line:
                log(line)
                last_line = line
            if pending:
                client.sleep(poll)


def _collect(result: Result, job: dict, *, client: Client, out: Path, want_zip: bool,
             log: Callable[[str], None], formats: str = "html") -> None:  # fmt: skip
    """Download a finished job: the zip kept as it is (--zip), or unpacked beside the others:
    <name>.html with its <name>_files/ images, <name>.report.json and <name>.report.html (and
    <name>.epub, <name>.pdf as `formats` asks: the server makes them into the zip)."""
    result.open_findings = int(job.get("open_findings") or 0)
    if job["status"] == "failed":
        error = job.get("error") or {}
        result.error = f"{error.get('code')}: {error.get('message')}"
        log(f"{result.path.name}: failed, {result.error}")
        return
    stem = result.path.stem
    query = f"?{urllib.parse.urlencode({'formats': formats})}" if formats != "html" else ""
    archive = client.download(job["links"]["zip"] + query, out / f"{stem}.zip")
    if want_zip:
        result.outputs = [archive]
        result.outputs.append(client.download(job["links"]["report"], out / f"{stem}.report.json"))
    else:
        result.outputs = _unpack(archive, out)
        archive.unlink()
    review = f", {result.open_findings} open findings" if job["status"] == "needs_review" else ""
    log(f"{result.path.name}: {job['status'].replace('_', ' ')}{review}")


def _unpack(archive: Path, out: Path) -> list[Path]:
    """Extract the result's files (one folder in the zip) into out; nothing outside it."""
    written: list[Path] = []
    with zipfile.ZipFile(archive) as zf:
        for info in zf.infolist():
            if info.is_dir():
                continue
            parts = Path(info.filename).parts[1:]  # below the zip's one folder
            if not parts or any(p in ("..", "") or p.startswith("/") for p in parts):
                continue
            target = out.joinpath(*parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(zf.read(info))
            if len(parts) == 1:
                written.append(target)
    return written


def summary(results: list[Result]) -> str:
    ok = [r for r in results if r.status in CONVERTED and not r.error]
    review = [r for r in ok if r.status == "needs_review"]
    lines = [
        f"{len(ok)} of {len(results)} converted"
        + (f"; {len(review)} need review ({sum(r.open_findings for r in review)} open findings)."
           if review else ", nothing left to review." if ok else ".")
    ]  # fmt: skip
    for r in review:
        lines.append(f"  {r.path.name}: needs review, {r.open_findings} open findings")
    for r in results:
        if r not in ok:
            lines.append(f"  {r.path.name}: {r.status} {r.error}".rstrip())
    return "\n".join(lines)


def exit_code(results: list[Result]) -> int:
    """0: every file converted and nothing to review; 3: every file converted, some need review;
    1: a file was refused, failed or did not finish (2 is a usage error, from argparse)."""
    if not results or any(r.status not in CONVERTED or r.error for r in results):
        return EXIT_FAILED
    return EXIT_REVIEW if any(r.status == "needs_review" for r in results) else EXIT_OK


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="axiya-batch",
        description="Convert every PDF in a folder through the Axiya API. Run it again on the "
        "same folder and --out to resume: converted files are not uploaded again.",
        epilog="Exit status: 0 every file converted and nothing to review; 3 every file "
        "converted, some need review; 1 a file was refused, failed or did not finish.",
    )
    parser.add_argument("folder", type=Path)
    parser.add_argument("--url", required=True, help="The server, e.g. http://localhost:8000")
    parser.add_argument("--token", required=True, help="From `manage.py create_api_token`.")
    parser.add_argument("--out", type=Path, default=Path("axiya-out"), help="Where results go.")
    parser.add_argument(
        "--zip", action="store_true", help="Keep zips (HTML, images, report) instead of unpacking."
    )
    parser.add_argument(
        "--formats", default="html", help="html (default), or with epub and pdf: html,epub,pdf"
    )
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
        language=args.language, timeout=args.timeout, formats=args.formats,
    )  # fmt: skip
    print(summary(results))
    return exit_code(results)


if __name__ == "__main__":
    sys.exit(main())
