"""A Gemma 4 model package on disk: manifest, integrity check, graph metadata.

Layout (written by `models.export`):
    manifest.json  tokenizer.json  decoder/model.onnx(+.data)  embedding/...  vision_encoder/...
    [ple.q4_0.bin]   (only when the PLE table lives outside the embedding graph)
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FORMAT_NAME = "axiya-gemma4-onnx"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
GRAPHS = ("vision_encoder", "embedding", "decoder")

# Custom ops of onnxruntime forks (the browser package): stock onnxruntime cannot run them.
KNOWN_CUSTOM_OPS = {"SplitMaskedSoftmax"}


class PackageError(RuntimeError):
    """A model package is missing, incomplete, corrupt or not runnable. Names the file."""

    def __init__(self, message: str, *, path: Path | str | None = None) -> None:
        self.path = Path(path) if path is not None else None
        super().__init__(message)


@dataclass(frozen=True)
class GraphSpec:
    file: str  # relative to the package root
    inputs: list[str]
    outputs: list[str]


@dataclass
class Package:
    """A verified package: paths, graph specs, model config, prompt and PLE settings."""

    root: Path
    manifest: dict[str, Any]
    graphs: dict[str, GraphSpec] = field(default_factory=dict)

    @property
    def config(self) -> dict[str, Any]:
        return self.manifest["config"]

    @property
    def prompt(self) -> dict[str, Any]:
        return self.manifest["prompt"]

    @property
    def ple(self) -> dict[str, Any]:
        return self.manifest.get("ple", {"placement": "graph"})

    @property
    def dtype(self) -> str:
        return self.manifest["dtype"]

    @property
    def sha256(self) -> str:
        """Digest of the manifest: identifies the whole package (it lists every file's digest)."""
        return sha256_file(self.root / MANIFEST)

    def path(self, rel: str) -> Path:
        return self.root / rel


def sha256_file(path: Path, *, chunk: int = 1 << 22) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(chunk):
            h.update(block)
    return h.hexdigest()


def load_package(root: Path | str, *, verify: bool = True) -> Package:
    """Read `manifest.json`, check every listed file exists (and its sha256 when `verify`).

    Raises PackageError naming the offending file; never returns a half-checked package.
    """
    root = Path(root)
    mpath = root / MANIFEST
    if not root.is_dir():
        raise PackageError(f"model package directory not found: {root}", path=root)
    if not mpath.is_file():
        raise PackageError(f"model package has no {MANIFEST}: {mpath}", path=mpath)
    try:
        manifest = json.loads(mpath.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PackageError(f"{mpath} is not valid JSON: {exc}", path=mpath) from exc
    fmt = manifest.get("format", {})
    if fmt.get("name") != FORMAT_NAME or fmt.get("version") != FORMAT_VERSION:
        raise PackageError(
            f"{mpath}: unsupported package format {fmt!r} "
            f"(expected {FORMAT_NAME} v{FORMAT_VERSION})",
            path=mpath,
        )
    files: dict[str, dict[str, Any]] = manifest.get("files", {})
    for rel, meta in sorted(files.items()):
        p = root / rel
        if not p.is_file():
            raise PackageError(f"model package file missing: {p}", path=p)
        size = p.stat().st_size
        if "size" in meta and size != meta["size"]:
            raise PackageError(
                f"model package file corrupt (size {size}, manifest says {meta['size']}): {p}",
                path=p,
            )
        if verify and sha256_file(p) != meta["sha256"]:
            raise PackageError(f"model package file corrupt (sha256 mismatch): {p}", path=p)
    pkg = Package(root=root, manifest=manifest)
    for name in GRAPHS:
        g = manifest.get("graphs", {}).get(name)
        if g is None:
            raise PackageError(f"{mpath}: no '{name}' graph listed", path=mpath)
        spec = GraphSpec(file=g["file"], inputs=list(g["inputs"]), outputs=list(g["outputs"]))
        if spec.file not in files:
            raise PackageError(f"{mpath}: graph file {spec.file} is not in 'files'", path=mpath)
        pkg.graphs[name] = spec
    tok = manifest.get("tokenizer", "tokenizer.json")
    if not (root / tok).is_file():
        raise PackageError(f"model package file missing: {root / tok}", path=root / tok)
    return pkg


def find_custom_ops(model_path: Path) -> set[str]:
    """Known custom op names mentioned in a graph file (a byte scan: no onnx import needed)."""
    found: set[str] = set()
    names = [n.encode() for n in KNOWN_CUSTOM_OPS]
    tail = b""
    with open(model_path, "rb") as f:
        while block := f.read(1 << 22):
            buf = tail + block
            found.update(n.decode() for n in names if n in buf)
            tail = buf[-64:]
    return found


_UNKNOWN_OP = re.compile(
    r"([\w.]*:?\w+)\(-?\d+\) is not a registered function/op"  # ORT 1.2x load errors
    r"|implementation for (\w+)\("  # kernel lookup failures
)


def session_options(ort: Any, *, cuda: bool, intra_op_threads: int | None = None,
                    log_severity: int = 3) -> Any:  # fmt: skip
    """onnxruntime session options. On CUDA nearly every node runs on the GPU: one CPU thread
    per session that sleeps between runs. ORT's default (a pool of one spinning thread per
    core, per session) keeps cores busy through every decode step and starves the worker's own
    CPU work (image decoding, parsing) and any second GPU worker on the host."""
    opts = ort.SessionOptions()
    opts.log_severity_level = log_severity
    if intra_op_threads:
        opts.intra_op_num_threads = intra_op_threads
    elif cuda:
        opts.intra_op_num_threads = 1
    if cuda:
        opts.inter_op_num_threads = 1
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        opts.add_session_config_entry("session.inter_op.allow_spinning", "0")
    return opts


def session_error(model_path: Path, exc: Exception) -> PackageError:
    """Turn an onnxruntime load failure into a PackageError that names the file (and op)."""
    ops = find_custom_ops(model_path)
    if not ops:
        m = _UNKNOWN_OP.search(str(exc))
        if m:
            ops = {m.group(1) or m.group(2)}
    if ops:
        return PackageError(
            f"{model_path} uses op(s) {', '.join(sorted(ops))} that stock onnxruntime does not "
            "implement (a browser / onnxruntime-web fork package?); rebuild it with models.export",
            path=model_path,
        )
    return PackageError(f"onnxruntime cannot load {model_path}: {exc}", path=model_path)
