"""Cascade (shared-prefix) attention in the decode step (`FastGemma(cascade=True)`, graphs of
`models.export.fast_cascade`): the rows' full-layer caches hold only what follows the shared
prompt prefix, whose K/V the step reads once for all rows. Greedy tokens must be those of the
plain step (tiny random package: window 8, KV sharing, full and sliding layers; pages of one
prompt at several sizes, so rows are left-padded)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

SOFT = 70  # max_soft_tokens of the tiny vision tower
SAME = "Read this page."
OTHER = "Transcribe all the text on this page, please, in reading order."


@pytest.fixture(scope="module")
def requests(random_page: Any) -> dict[str, list]:
    """ "same": 5 pages of one prompt at three sizes (prompts of different lengths: left
    padding); "others": a page of another prompt and a text-only request; "mixed": two of the
    first and the others."""
    from models.gemma.decoder import PageRequest

    sizes = [(120, 160), (136, 160), (160, 120)]
    same = [PageRequest(SAME, random_page(k, *sizes[k % 3])) for k in range(5)]
    others = [PageRequest(OTHER, random_page(9, 120, 160)), PageRequest("Hi")]
    return {"same": same, "others": others, "mixed": [*same[:2], *others]}


@pytest.fixture(scope="module")
def cascade_pkg(tmp_path_factory: pytest.TempPathFactory, tiny_ckpt: Path) -> Path:
    from models.export.build import build_package

    pkg = tmp_path_factory.mktemp("tiny-cascade") / "pkg"
    build_package(tiny_ckpt, pkg, fast=True, cascade=True)
    return pkg


@pytest.fixture(scope="module")
def plain_tokens(cascade_pkg: Path, requests: dict[str, list]) -> dict[str, list[list[int]]]:
    """The plain step's greedy tokens (FastGemma without cascade) for `requests`' batches."""
    from models.gemma.fast import FastGemma

    fast = FastGemma(cascade_pkg, max_soft_tokens=SOFT, prefill_chunk=2)
    assert fast.step_cas is None
    return {name: [g.token_ids for g in fast.generate(requests[name], max_new_tokens=20,
                                                      ignore_stop=True)]
            for name in ("same", "mixed")}  # fmt: skip


def test_cascade_graphs_only_when_asked(cascade_pkg: Path, tiny_pkg_fast: Path) -> None:
    """--cascade writes the cascade step (the prefix K/V of each full KV layer and the rows'
    prefix_len as inputs) and its prefill; a plain --fast build has neither."""
    import onnx

    from models.gemma.package import load_package

    fast = load_package(cascade_pkg).manifest["fast"]
    for rel in (fast["step_cascade"], fast["prefill_cascade"]):
        assert rel in load_package(cascade_pkg).manifest["files"]
    graph = onnx.load(str(cascade_pkg / fast["step_cascade"]), load_external_data=False).graph
    names = {i.name for i in graph.input}
    text = load_package(cascade_pkg).config["text"]
    full = [i for i in fast["kv_layers"] if text["layer_types"][i] == "full_attention"]
    assert full and {f"prefix.{i}.{k}" for i in full for k in ("key", "value")} < names
    assert "prefix_len" in names
    assert "step_cascade" not in load_package(tiny_pkg_fast).manifest["fast"]


def test_cascade_graphs_written_into_a_package_and_dropped(tmp_path: Path,
                                                          tiny_pkg_fast: Path) -> None:  # fmt: skip
    """`python -m models.export fast PKG --cascade` adds the cascade graphs to a built package
    (as bench/h200.sh's `cascade` step does), a rebuild without the flag removes them; the
    manifest checks out after each (every file's sha256)."""
    import shutil

    from models.export.__main__ import main
    from models.gemma.package import load_package

    pkg = tmp_path / "pkg"
    shutil.copytree(tiny_pkg_fast, pkg)
    assert main(["fast", str(pkg), "--cascade"]) == 0
    fast = load_package(pkg, verify=True).manifest["fast"]
    assert (pkg / fast["step_cascade"]).exists() and (pkg / fast["prefill_cascade"]).exists()
    assert main(["fast", str(pkg)]) == 0
    man = load_package(pkg, verify=True).manifest
    assert "step_cascade" not in man["fast"]
    assert not [rel for rel in man["files"] if "cascade" in rel]
    assert not list(pkg.glob("decoder/*cascade*"))


@pytest.mark.parity
def test_cascade_batch_reads_like_the_plain_step(
    cascade_pkg: Path, requests: dict[str, list], plain_tokens: dict[str, list[list[int]]]
) -> None:
    """A batch of one prompt decodes on the cascade step, its full-layer caches shorter by the
    prefix, with the plain step's tokens; a batch of mixed prompts falls back to the plain step
    (same tokens too)."""
    from models.gemma.fast import FastGemma

    fast = FastGemma(cascade_pkg, max_soft_tokens=SOFT, prefill_chunk=2, cascade=True)
    assert fast.step_cas is not None
    got = fast.generate(requests["same"], max_new_tokens=20, ignore_stop=True)
    assert [g.token_ids for g in got] == plain_tokens["same"]
    # Exactly the length needed (the default rounds up to 256): the full layers' caches are
    # exactly as long as the indices after the prefix.
    prompts, _ = fast.prepare(requests["same"])
    P, need = prompts[0].prefix, max(len(p.ids) for p in prompts) + 20
    got = fast.generate_prompts(prompts, max_new_tokens=20, ignore_stop=True, length=need)
    assert [g.token_ids for g in got] == plain_tokens["same"]
    assert (5, need - P, need, P) in fast.decode_states and P > 0
    got = fast.generate(requests["mixed"], max_new_tokens=20, ignore_stop=True)
    assert [g.token_ids for g in got] == plain_tokens["mixed"]
    assert any(len(key) == 2 for key in fast.decode_states)  # the plain state


@pytest.mark.parity
def test_cascade_rows_refill_like_the_plain_step(
    cascade_pkg: Path,
    requests: dict[str, list],
    plain_tokens: dict[str, list[list[int]]],
    continuous_tokens: Any,
) -> None:
    """Continuous rows on the cascade step (3 rows, 7 pages: rows refilled with new pages of
    the prefix, one page of another prompt and a text-only page kept whole in their rows):
    every page gets the tokens it gets alone on the plain step."""
    from models.gemma.fast import FastGemma

    fast = FastGemma(cascade_pkg, max_soft_tokens=SOFT, prefill_chunk=2, cascade=True)
    reqs = [*requests["same"], *requests["others"]]
    want = [*plain_tokens["same"], *plain_tokens["mixed"][2:]]
    assert continuous_tokens(fast, reqs, rows=3, max_new_tokens=20, check_every=4) == want


@pytest.mark.gpu
def test_cascade_on_cuda_reads_like_the_plain_step(
    tmp_path_factory: pytest.TempPathFactory,
    tiny_ckpt: Path,
    requests: dict[str, list],
    continuous_tokens: Any,
) -> None:
    """On a CUDA machine (CUDA graphs on, TF32 off, fp32 tiny package): the cascade step's
    tokens, in a batch and in continuous rows, are the plain step's."""
    ort = pytest.importorskip("onnxruntime")
    if "CUDAExecutionProvider" not in ort.get_available_providers():
        pytest.skip("no CUDA execution provider")
    from models.export.build import build_package
    from models.gemma.fast import FastGemma

    pkg = tmp_path_factory.mktemp("tiny-cascade-cuda") / "pkg"
    build_package(tiny_ckpt, pkg, fast=True, cascade=True)
    opts = {"max_soft_tokens": SOFT, "prefill_chunk": 2, "cuda_options": {"use_tf32": "0"}}
    reqs = requests["same"]
    plain = FastGemma(pkg, **opts)  # type: ignore[arg-type]
    want = [g.token_ids for g in plain.generate(reqs, max_new_tokens=20, ignore_stop=True)]
    fast = FastGemma(pkg, cascade=True, **opts)  # type: ignore[arg-type]
    assert fast.cuda and fast.step_cas is not None
    got = fast.generate(reqs, max_new_tokens=20, ignore_stop=True)
    assert [g.token_ids for g in got] == want
    assert continuous_tokens(fast, reqs, rows=3, max_new_tokens=20, check_every=4) == want


def test_cascade_attention_is_attention_over_prefix_and_own_keys() -> None:
    """Each row attends to the prefix's keys (when its prefix_len > 0) and to its own keys
    from its offset to its slot - prefix_len, one softmax over both; it writes its token at
    slot - prefix_len. Checked against a plain softmax over exactly those keys."""
    heads, hd, P, L = 3, 8, 5, 12
    rng = np.random.default_rng(0)
    slot, offsets, plen = np.array([14, 9, 7]), np.array([2, 0, 3]), np.array([P, P, 0])
    feeds = {"q": rng.normal(size=(3, 1, heads * hd)), "keys": rng.normal(size=(3, L, hd)),
             "values": rng.normal(size=(3, L, hd)), "prefix.key": rng.normal(size=(1, 1, P, hd)),
             "prefix.value": rng.normal(size=(1, 1, P, hd))}  # fmt: skip
    feeds = {k: v.astype(np.float32) for k, v in feeds.items()}
    ints = {"slot": slot, "offsets": offsets, "prefix_len": plen, "kv_index": np.arange(L)}
    import onnx_ir as ir
    import onnxruntime as ort

    from models.export.fast_cascade import attention_model

    sess = ort.InferenceSession(attention_model(heads, hd, ir.DataType.FLOAT),
                                providers=["CPUExecutionProvider"])  # fmt: skip
    y, own_at = sess.run(["y", "own_at"], {**feeds, **ints})
    assert own_at.tolist() == (slot - plen).tolist()
    for r in range(3):
        own = slice(offsets[r], slot[r] - plen[r] + 1)
        keys, values = feeds["keys"][r, own], feeds["values"][r, own]
        if plen[r]:
            keys = np.concatenate([feeds["prefix.key"][0, 0], keys])
            values = np.concatenate([feeds["prefix.value"][0, 0], values])
        q = feeds["q"][r, 0].reshape(heads, hd)
        s = q @ keys.T
        p = np.exp(s - s.max(-1, keepdims=True))
        want = (p / p.sum(-1, keepdims=True)) @ values
        assert np.abs(y[r, 0] - want.reshape(-1)).max() <= 1e-5 * np.abs(want).max()


def _with_scores(pkg: Path, rel: str, out: Path) -> Any:
    """A CPU session of the step graph `rel` with the LM head's output (what next_token is the
    ArgMax of) as an extra output (the graph written into `out`, beside a copy of the package's
    weights)."""
    import shutil

    import onnx
    import onnxruntime as ort

    model = onnx.load(str(pkg / rel), load_external_data=False)
    argmax = next(n for n in model.graph.node if n.op_type == "ArgMax")
    model.graph.output.append(onnx.helper.make_empty_tensor_value_info(argmax.input[0]))
    data = out / "model.onnx.data"
    if not data.exists():  # onnxruntime reads no weights from outside the graph's folder
        shutil.copyfile(pkg / "decoder" / "model.onnx.data", data)
    path = out / Path(rel).name
    onnx.save(model, str(path))
    return ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])


def test_cascade_step_graph_equals_the_plain_step(cascade_pkg: Path, tmp_path: Path) -> None:
    """One decode step of the whole decoder on random caches: the plain step over caches that
    hold the shared prefix in every row (at each row's offset), the cascade step over the prefix
    once and caches shifted by each row's prefix_len (a row with prefix_len 0 keeps its cache
    as it is; rows at different slots, a shorter cascade cache). The LM head's scores and the
    caches written agree (fp32, rel err <= 1e-5); KV sharing and the sliding rings included."""
    from models.gemma.package import load_package

    man = load_package(cascade_pkg).manifest
    plain = _with_scores(cascade_pkg, man["fast"]["step"], tmp_path)
    cascade = _with_scores(cascade_pkg, man["fast"]["step_cascade"], tmp_path)
    rng = np.random.default_rng(5)
    P, L, Lc = 5, 25, 20
    slot, offsets, plen = np.array([20, 18, 17]), np.array([0, 2, 4]), np.array([P, P, 0])
    shapes = {i.name: i.shape for i in plain.get_inputs()}
    feeds = {
        k: rng.normal(size=(3, 1, shapes[k][-1])) for k in ("inputs_embeds", "per_layer_inputs")
    }
    plain_feeds, cas_feeds = dict(feeds), dict(feeds)
    for name, shape in shapes.items():
        if not name.startswith("cache."):
            continue
        if shape[2] != "kv_length":  # a sliding ring: the same in both
            plain_feeds[name] = cas_feeds[name] = rng.normal(size=(3, *shape[1:]))
            continue
        full = rng.normal(size=(3, 1, L, shape[3]))
        prefix = rng.normal(size=(1, 1, P, shape[3]))
        shifted = np.zeros((3, 1, Lc, shape[3]))
        for r in range(3):
            if plen[r]:
                full[r, :, offsets[r] : offsets[r] + P] = prefix[0]
            shifted[r] = full[r, :, plen[r] : plen[r] + Lc]
        plain_feeds[name], cas_feeds[name] = full, shifted
        cas_feeds[name.replace("cache.", "prefix.")] = prefix
    ints = {"slot": slot, "offsets": offsets, "history": np.zeros((3, L), np.int64)}
    plain_feeds.update(ints, kv_index=np.arange(L))
    cas_feeds.update(ints, kv_index=np.arange(Lc), prefix_len=plen)

    def run(sess: Any, f: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        f = {k: v.astype(np.float32) if v.dtype == np.float64 else v for k, v in f.items()}
        return dict(zip([o.name for o in sess.get_outputs()], sess.run(None, f), strict=True))

    want, got = run(plain, plain_feeds), run(cascade, cas_feeds)
    # The extra output (last) of each: the LM head's scores.
    a, b = (r.pop(s.get_outputs()[-1].name) for r, s in ((want, plain), (got, cascade)))
    assert np.abs(b - a).max() <= 1e-5 * np.abs(a).max()
    assert (got["next_token"] == want["next_token"]).all()
    for name, ref in want.items():
        if name.startswith("cache_out.") and ref.shape[2] == L:
            for r in range(3):  # the cascade cache is the plain one shifted by prefix_len
                np.testing.assert_allclose(got[name][r], ref[r, :, plen[r] : plen[r] + Lc],
                                           rtol=1e-6)  # fmt: skip
        elif name.startswith("cache_out."):
            np.testing.assert_allclose(got[name], ref, rtol=1e-6)
