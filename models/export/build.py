"""Build an Axiya Gemma 4 model package from a transformers checkpoint with mobius-onnx.

Route (contract, "Building packages with mobius-onnx"): transformers >= 5.15 makes Gemma 4's config
per-layer and plain `mobius.build(dir)` fails on it, so we go through the public API:
`Gemma4Config.from_transformers` + the `global_head_dim` fix + `build_from_module` +
`apply_weights`. Afterwards, optional graph surgery (PLE out of the embedding graph) and int4
(`MatMulNBitsQuantizer`, block 32) on the decoder, then the manifest with every file's sha256.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import shutil
from pathlib import Path
from typing import Any

import numpy as np

from models.gemma.package import FORMAT_NAME, FORMAT_VERSION, GRAPHS, MANIFEST, sha256_file
from models.gemma.prompt import DEFAULT_PROMPT

log = logging.getLogger(__name__)

PLE_FILE = "ple.q4_0.bin"
PLE_INPUT = "ple_rows"
# A Jinja template equivalent to manifest["prompt"] (for tools that render chat templates).
CHAT_TEMPLATE = (
    "{{ bos_token }}{% for m in messages %}"
    "<|turn>{{ 'model' if m.role == 'assistant' else m.role }}"
    "\n{% if m.content is string %}{{ m.content }}{% else %}{% for c in m.content %}"
    "{% if c.type == 'image' %}<|image><|image|><image|>{% else %}{{ c.text }}{% endif %}"
    "{% endfor %}{% endif %}<turn|>\n{% endfor %}{% if add_generation_prompt %}<|turn>model\n"
    "{% endif %}"
)


def mobius_package(ckpt: Path, *, dtype: str, ep: str) -> Any:
    """The mobius public-API build (graphs + weights in memory)."""
    import safetensors.torch

    mod, pkg = mobius_graphs(ckpt, dtype=dtype, ep=ep)
    state = safetensors.torch.load_file(str(ckpt / "model.safetensors"))
    pkg.apply_weights(mod.preprocess_weights(state))
    return pkg


def mobius_graphs(ckpt: Path, *, dtype: str, ep: str) -> tuple[Any, Any]:
    """mobius module + package with graphs only (no weights yet), from a checkpoint's config."""
    import mobius
    from transformers import AutoConfig

    hf = AutoConfig.from_pretrained(ckpt)
    tc = hf.text_config
    tc.allow_global_per_layer_attribute_access = True  # else head_dim raises on 5.15+
    cfg = mobius.Gemma4Config.from_transformers(tc, parent_config=hf)
    first_full = tc.layer_types.index("full_attention")
    # from_transformers reads the global head_dim for full layers too: fix it, or k_norm breaks.
    cfg = dataclasses.replace(cfg, global_head_dim=tc.per_layer_config[first_full].head_dim)
    if dtype == "fp16":
        import onnx_ir as ir

        cfg = dataclasses.replace(cfg, dtype=ir.DataType.FLOAT16)
    mod = mobius.models.Gemma4Model(cfg)
    return mod, mobius.build_from_module(mod, cfg, task="gemma4", execution_provider=ep)


def _save_ir(model: Any, path: Path) -> None:
    """Save an onnx_ir model as model.onnx + model.onnx.data, replacing what was there."""
    import onnx_ir as ir

    # The data file name is recorded in the graph: write final names into a side folder.
    tmpdir = path.parent / ".tmp"
    tmpdir.mkdir(exist_ok=True)
    ir.save(model, tmpdir / path.name, external_data=path.name + ".data")
    _move_back(tmpdir, path)


def _move_back(tmpdir: Path, path: Path) -> None:
    (tmpdir / path.name).replace(path)
    (tmpdir / (path.name + ".data")).replace(Path(str(path) + ".data"))
    tmpdir.rmdir()


def externalize_ple(emb_path: Path) -> np.ndarray:
    """Cut the PLE table out of the embedding graph; it then takes `ple_rows` instead.

    The graph keeps the x sqrt(ple_dim) scale (x16 for E2B) and everything after it; the caller
    must feed RAW table rows for the ids with image/audio/video ids already remapped to pad (0).
    Returns the table [vocab, layers*ple_dim] as float32.
    """
    import onnx_ir as ir

    model = ir.load(emb_path)
    table = cut_ple(model).numpy().astype(np.float32)  # read before the data file is replaced
    _save_ir(model, emb_path)
    return table


def cut_ple(model: Any) -> Any:
    """The surgery of `externalize_ple` on an in-memory onnx_ir model; returns the table's
    const_value (None when weights were not applied yet)."""
    import onnx_ir as ir

    g = model.graph
    node = next(
        n
        for n in g
        if n.op_type == "Gather"
        and n.inputs[0] is not None
        and n.inputs[0].name.endswith("embed_tokens_per_layer.weight")
    )
    table_val = node.inputs[0]
    table = table_val.const_value
    ids_val = node.inputs[1]
    out = node.outputs[0]
    rows = ir.Value(
        name=PLE_INPUT,
        type=table_val.type,
        shape=ir.Shape(["batch", "sequence_len", table_val.shape[1]]),
    )
    g.inputs.append(rows)
    out.replace_all_uses_with(rows)
    g.remove(node, safe=True)
    del g.initializers[table_val.name]
    # The pad remap (Where) fed only the removed Gather: drop it if now unused.
    producer = ids_val.producer()
    if producer is not None and not ids_val.uses():
        g.remove(producer, safe=True)
    return table


def add_next_token(dec_path: Path) -> None:
    """Add `next_token` = argmax(logits[:, -1]) (int64 [batch]) so a greedy step copies only ids
    to the host instead of [batch, vocab] logits."""
    import onnx_ir as ir

    model = ir.load(dec_path)
    g = model.graph
    logits = next(o for o in g.outputs if o.name == "logits")
    last = ir.Value(name="axiya_last_index", const_value=ir.tensor(np.array(-1, dtype=np.int64)))
    g.initializers.add(last)
    gather = ir.node("Gather", [logits, last], attributes={"axis": 1})
    argmax = ir.node("ArgMax", gather.outputs, attributes={"axis": -1, "keepdims": 0})
    argmax.outputs[0].name = "next_token"
    argmax.outputs[0].dtype = ir.DataType.INT64
    argmax.outputs[0].shape = ir.Shape(["batch"])
    g.extend([gather, argmax])
    g.outputs.append(argmax.outputs[0])
    _save_ir(model, dec_path)


def rtn_int4(w_kn: Any, *, block: int = 32) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric round-to-nearest 4-bit of a MatMul weight W [K, N] in MatMulNBits layout:
    (B uint8 [N, K/block, block/2], scales float32 [N * K/block]); zero point implicit 8."""
    import torch

    w = torch.as_tensor(w_kn).float().T.contiguous()  # [N, K]
    n, k = w.shape
    b = w.reshape(n, k // block, block)
    scale = b.abs().amax(dim=-1) / 7.0
    inv = torch.where(scale > 0, 1.0 / scale, torch.zeros_like(scale))
    q = (torch.round(b * inv[..., None]).clamp(-7, 7) + 8).to(torch.uint8)
    packed = q[..., 0::2] | (q[..., 1::2] << 4)
    return packed.numpy(), scale.reshape(-1).numpy().astype(np.float32)


def quantize_ir_matmuls(model: Any, *, block: int = 32) -> int:
    """In-memory int4 of every MatMul with a float initializer weight (K % block == 0), one
    weight at a time: the fp32 decoder never exists as a file (E2B: 9.5 GB) and its memory is
    released as we go. Same node MatMulNBitsQuantizer emits (bits 4, block 32, symmetric)."""
    import onnx_ir as ir

    g = model.graph
    count = 0
    for node in list(g):
        if node.op_type != "MatMul" or node.domain != "":
            continue
        a, wv = node.inputs
        if wv is None or not wv.is_initializer() or wv.const_value is None:
            continue
        k, n = wv.shape
        if k % block or len(wv.uses()) != 1:
            continue
        packed, scales = rtn_int4(wv.const_value.numpy(), block=block)
        bq = ir.Value(name=wv.name + "_Q4", const_value=ir.tensor(packed))
        sc = ir.Value(name=wv.name + "_scales", const_value=ir.tensor(scales))
        if wv.dtype == ir.DataType.FLOAT16:
            sc.const_value = ir.tensor(scales.astype(np.float16))
        g.initializers.add(bq)
        g.initializers.add(sc)
        new = ir.node("MatMulNBits", [a, bq, sc], domain="com.microsoft",
                      attributes={"K": k, "N": n, "bits": 4, "block_size": block,
                                  "accuracy_level": 4})  # fmt: skip
        g.insert_after(node, new)
        node.outputs[0].replace_all_uses_with(new.outputs[0], replace_graph_outputs=True)
        new.outputs[0].name, node.outputs[0].name = node.outputs[0].name, None
        g.remove(node, safe=True)
        del g.initializers[wv.name]
        count += 1
    if count and not any(o.domain == "com.microsoft" for o in [model]):
        model.opset_imports.setdefault("com.microsoft", 1)
    return count


def quantize_int4(dec_path: Path, *, block_size: int = 32) -> int:
    """MatMul -> MatMulNBits (4 bit, symmetric, block 32) with onnxruntime's quantizer."""
    import onnx
    from onnxruntime.quantization.matmul_nbits_quantizer import (
        DefaultWeightOnlyQuantConfig,
        MatMulNBitsQuantizer,
    )

    model = onnx.load(str(dec_path))
    cfg = DefaultWeightOnlyQuantConfig(block_size=block_size, is_symmetric=True, accuracy_level=4)
    q = MatMulNBitsQuantizer(model, algo_config=cfg)
    q.process()
    out = q.model.model
    n = sum(1 for node in out.graph.node if node.op_type == "MatMulNBits")
    tmpdir = dec_path.parent / ".tmp"
    tmpdir.mkdir(exist_ok=True)
    onnx.save(
        out,
        str(tmpdir / dec_path.name),
        save_as_external_data=True,
        all_tensors_to_one_file=True,
        location=dec_path.name + ".data",
        size_threshold=1024,
    )
    _move_back(tmpdir, dec_path)
    return n


def graph_io(path: Path) -> tuple[list[str], list[str]]:
    import onnx

    m = onnx.load(str(path), load_external_data=False)
    inits = {i.name for i in m.graph.initializer}
    return [i.name for i in m.graph.input if i.name not in inits], [o.name for o in m.graph.output]


def model_config(ckpt: Path) -> dict[str, Any]:
    """The manifest's "config": what the runtime needs, no transformers at run time."""
    raw = json.loads((ckpt / "config.json").read_text())
    t, v = raw["text_config"], raw["vision_config"]
    n = t["num_hidden_layers"]
    types = t["layer_types"]
    first_shared = n - t["num_kv_shared_layers"]
    head = {"sliding_attention": t["head_dim"], "full_attention": t.get("global_head_dim")}
    if head["full_attention"] is None:  # 5.15+: per_layer_config carries it
        plc = t.get("per_layer_config", {})
        full = types.index("full_attention")
        head["full_attention"] = plc.get(str(full), plc.get(full, {})).get("head_dim")
    kv_layers = list(range(first_shared))
    # Shared layers read the last non-shared layer of the same type (after this step's append).
    kv_source = {
        i: max(j for j in kv_layers if types[j] == types[i]) for i in range(first_shared, n)
    }
    return {
        "text": {
            "hidden_size": t["hidden_size"],
            "num_layers": n,
            "layer_types": types,
            "num_attention_heads": t["num_attention_heads"],
            "num_key_value_heads": t["num_key_value_heads"],
            "head_dim": head["sliding_attention"],
            "global_head_dim": head["full_attention"],
            "sliding_window": t["sliding_window"],
            "vocab_size": t["vocab_size"],
            "hidden_size_per_layer_input": t["hidden_size_per_layer_input"],
            "vocab_size_per_layer_input": t["vocab_size_per_layer_input"],
            "final_logit_softcapping": t["final_logit_softcapping"],
            "kv_layers": kv_layers,
            "kv_shared_from": {str(k): s for k, s in kv_source.items()},
            "kv_head_dims": [head[types[i]] for i in kv_layers],
            "pad_token_id": t["pad_token_id"],
            "bos_token_id": t["bos_token_id"],
        },
        "vision": {
            "hidden_size": v["hidden_size"],
            "num_layers": v["num_hidden_layers"],
            "patch_size": v["patch_size"],
            "pooling_kernel_size": v["pooling_kernel_size"],
            "position_embedding_size": v["position_embedding_size"],
        },
        "ids": {
            "image": raw["image_token_id"],
            "boi": raw["boi_token_id"],
            "eoi": raw["eoi_token_id"],
            "audio": raw.get("audio_token_id"),
            "video": raw.get("video_token_id"),
            "pad": t["pad_token_id"],
            "bos": t["bos_token_id"],
            "eos": 1,
        },
    }


def write_manifest(
    out: Path,
    *,
    ckpt: Path,
    dtype: str,
    ep: str,
    int4: bool,
    ple: dict[str, Any],
    source: dict[str, Any],
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    files = {}
    for p in sorted(out.rglob("*")):
        if p.is_file() and p.name != MANIFEST:
            rel = p.relative_to(out).as_posix()
            files[rel] = {"sha256": sha256_file(p), "size": p.stat().st_size}
    graphs = {}
    for name in GRAPHS:
        ins, outs = graph_io(out / name / "model.onnx")
        graphs[name] = {"file": f"{name}/model.onnx", "inputs": ins, "outputs": outs}
    cfg = model_config(ckpt)
    import mobius
    import onnxruntime
    import transformers

    manifest = {
        "format": {"name": FORMAT_NAME, "version": FORMAT_VERSION},
        "model": "gemma-4-e2b-it-shaped" if cfg["text"]["num_layers"] == 35 else "gemma-4-tiny",
        "source": source,
        "dtype": dtype,
        "execution_provider": ep,
        "decoder_quantization": {"type": "MatMulNBits", "bits": 4, "block_size": 32}
        if int4
        else None,
        "config": cfg,
        "graphs": graphs,
        "ple": ple,
        "tokenizer": "tokenizer.json",
        "prompt": {**DEFAULT_PROMPT, "chat_template": CHAT_TEMPLATE},
        "built_with": {
            "mobius-onnx": getattr(mobius, "__version__", "0.1.0"),
            "transformers": transformers.__version__,
            "onnxruntime": onnxruntime.__version__,
        },
        **(extra or {}),
        "files": files,
    }
    (out / MANIFEST).write_text(json.dumps(manifest, indent=1))
    return manifest


def build_package(
    ckpt: Path,
    out: Path,
    *,
    dtype: str = "fp32",
    int4: bool = False,
    ple: str = "graph",
    ep: str = "default",
    ple_format: str = "ggml-q4_0",
    source: dict[str, Any] | None = None,
    fast: bool = False,
    prefill_attention: str = "mha",
    vision_fusions: bool = True,
    decoder_fusions: bool = True,
    cascade: bool = False,
) -> dict[str, Any]:
    """Checkpoint dir (config.json + model.safetensors) -> package dir. Returns the manifest."""
    from models.export.tokenizer import write_tokenizer

    fast_opts = {"prefill_attention": prefill_attention, "vision_fusions": vision_fusions,
                 "decoder_fusions": decoder_fusions, "cascade": cascade}  # fmt: skip
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    pkg = mobius_package(ckpt, dtype=dtype, ep="cuda" if ep == "cuda" else "default")
    pkg.save(str(out), progress_bar=False)
    del pkg
    add_next_token(out / "decoder" / "model.onnx")
    cfg = model_config(ckpt)
    ple_info: dict[str, Any] = {"placement": "graph"}
    if ple == "external":
        table = externalize_ple(out / "embedding" / "model.onnx")
        if ple_format == "ggml-q4_0":
            from models.gemma.ple import write_q4_0

            write_q4_0(out / PLE_FILE, table)
            fname = PLE_FILE
        elif ple_format == "npy":  # unquantized rows: exact-parity runs
            fname = "ple.f32.npy"
            np.save(out / fname, table)
        else:
            raise ValueError(f"unknown PLE format {ple_format}")
        ple_info = {
            "placement": "external",
            "input": PLE_INPUT,
            "file": fname,
            "format": ple_format,
            "rows": int(table.shape[0]),
            "width": int(table.shape[1]),
            # What the embedding graph expects (the seed packages left this undocumented):
            "scale_in_graph": True,  # graph multiplies by sqrt(ple_dim) (x16 for E2B)
            "pad_remap": "caller",  # caller looks up row pad_token_id for image/audio/video ids
        }
        del table
    if int4:
        n = quantize_int4(out / "decoder" / "model.onnx")
        log.info("int4: %d MatMulNBits in the decoder", n)
    write_tokenizer(
        out / "tokenizer.json",
        vocab_size=cfg["text"]["vocab_size"],
        image_ids={k: cfg["ids"][k] for k in ("image", "boi", "eoi", "audio", "video")},
    )
    return write_manifest(
        out,
        ckpt=ckpt,
        dtype=dtype,
        ep=ep,
        int4=int4,
        ple=ple_info,
        source=source or {"checkpoint": str(ckpt)},
        extra=fast_graphs(out, cfg, fast=fast, ep=ep, ple=ple, **fast_opts),
    )


def fast_graphs(out: Path, cfg: dict[str, Any], *, fast: bool, ep: str, ple: str,
                prefill_attention: str = "mha", vision_fusions: bool = True,
                decoder_fusions: bool = True, cascade: bool = False) -> dict:  # fmt: skip
    """Static-KV-cache prefill/step graphs (models.export.fast) when asked for."""
    if not fast:
        return {}
    if ep != "default" or ple != "graph":
        raise ValueError("--fast needs --ep default (ONNX Attention nodes) and --ple graph")
    from models.export.fast import build_fast

    return {"fast": build_fast(out, cfg, prefill_attention=prefill_attention,
                               vision_fusions=vision_fusions, decoder_fusions=decoder_fusions,
                               cascade=cascade)}  # fmt: skip


def rebuild_fast(out: Path, *, prefill_attention: str = "mha", vision_fusions: bool = True,
                 decoder_fusions: bool = True,
                 cascade: bool = False) -> dict[str, Any]:  # fmt: skip
    """Write the fast graphs of an existing package again (another prefill attention, vision
    or decoder fusions on or off, or after a change of models.export.fast) without rebuilding
    its weights: the graphs, the manifest's "fast" section and their file entries. Returns the
    manifest."""
    from models.export.fast import build_fast

    man = json.loads((out / MANIFEST).read_text())
    if not man.get("fast"):
        raise ValueError(f"{out}: no fast graphs to rebuild (build it with --fast)")
    fast = build_fast(out, man["config"], prefill_attention=prefill_attention,
                      vision_fusions=vision_fusions, decoder_fusions=decoder_fusions,
                      cascade=cascade)  # fmt: skip
    man["fast"] = fast
    # Entries of graphs this rebuild did not write again (the cascade pair) go.
    files = {rel: f for rel, f in man["files"].items() if (out / rel).exists()}
    graphs = ("prefill", "prefill_past", "step", "vision", "prefill_cascade", "step_cascade")
    for rel in (fast[k] for k in graphs if k in fast):
        files[rel] = {"sha256": sha256_file(out / rel), "size": (out / rel).stat().st_size}
    man["files"] = files  # last, as write_manifest orders it
    (out / MANIFEST).write_text(json.dumps(man, indent=1))
    return man
