"""Random-weight transformers Gemma 4 checkpoints of the real structure (the parity oracle).

Everything here imports torch/transformers lazily: this module is export/test-only.
"""

from __future__ import annotations

import json
import math
import zlib
from pathlib import Path
from typing import Any

# Special-token ids of the real Gemma 4 vocabulary (contract: "Prompt and stop tokens").
E2B_IDS = {"image": 258880, "boi": 255999, "eoi": 258882, "audio": 258881, "video": 258884}
# The tiny vocab (512) cannot hold those: put the multimodal ids at its top.
TINY_IDS = {"image": 508, "boi": 507, "eoi": 509, "audio": 510, "video": 511}

E2B_TEXT: dict[str, Any] = dict(
    hidden_size=1536,
    intermediate_size=6144,
    num_hidden_layers=35,
    layer_types=(["sliding_attention"] * 4 + ["full_attention"]) * 7,
    num_attention_heads=8,
    num_key_value_heads=1,
    head_dim=256,
    global_head_dim=512,
    num_kv_shared_layers=20,
    use_double_wide_mlp=True,
    hidden_size_per_layer_input=256,
    vocab_size=262144,
    vocab_size_per_layer_input=262144,
    sliding_window=512,
    final_logit_softcapping=30.0,
    max_position_embeddings=131072,
    rms_norm_eps=1e-6,
    hidden_activation="gelu_pytorch_tanh",
    pad_token_id=0,
    bos_token_id=2,
    eos_token_id=1,
    tie_word_embeddings=True,
)
E2B_VISION: dict[str, Any] = dict(
    hidden_size=768,
    intermediate_size=3072,
    num_hidden_layers=16,
    num_attention_heads=12,
    num_key_value_heads=12,
    head_dim=64,
    patch_size=16,
    pooling_kernel_size=3,
    position_embedding_size=10240,
    use_clipped_linears=True,
    standardize=False,
)

# Same structure, tiny: layers 3 and 4 play the roles of E2B's 13 and 14 (KV producers).
TINY_TEXT: dict[str, Any] = dict(
    E2B_TEXT,
    hidden_size=64,
    intermediate_size=128,
    num_hidden_layers=10,
    layer_types=(["sliding_attention"] * 4 + ["full_attention"]) * 2,
    num_attention_heads=4,
    num_key_value_heads=1,
    head_dim=32,
    global_head_dim=64,
    num_kv_shared_layers=5,
    hidden_size_per_layer_input=16,
    vocab_size=512,
    vocab_size_per_layer_input=512,
    sliding_window=8,
    max_position_embeddings=4096,
)
TINY_VISION: dict[str, Any] = dict(
    E2B_VISION,
    hidden_size=32,
    intermediate_size=64,
    num_hidden_layers=2,
    num_attention_heads=2,
    num_key_value_heads=2,
    head_dim=16,
    patch_size=4,
    pooling_kernel_size=3,
    position_embedding_size=64,
)

ROPE = {
    "sliding_attention": {"rope_type": "default", "rope_theta": 1e4},
    "full_attention": {
        "rope_type": "proportional",
        "partial_rotary_factor": 0.25,
        "rope_theta": 1e6,
    },
}
EMBED_RMS = 0.5  # token embedding RMS after x sqrt(hidden): small, so layers steer
VISION_ROPE = {"rope_type": "axial", "rope_theta": 100.0}


def make_config(kind: str) -> Any:
    """The transformers `Gemma4Config` for "tiny" or "e2b"."""
    from transformers import Gemma4Config

    text, vision, ids = {
        "tiny": (TINY_TEXT, TINY_VISION, TINY_IDS),
        "e2b": (E2B_TEXT, E2B_VISION, E2B_IDS),
    }[kind]
    return Gemma4Config(
        text_config=dict(text, rope_parameters=ROPE),
        vision_config=dict(vision, rope_parameters=VISION_ROPE),
        audio_config=None,
        image_token_id=ids["image"],
        boi_token_id=ids["boi"],
        eoi_token_id=ids["eoi"],
        audio_token_id=ids["audio"],
        video_token_id=ids["video"],
    )


PLE_KEY = "model.language_model.embed_tokens_per_layer.weight"
ROW_CHUNK = 4096  # big tables are generated in row chunks with their own seeds (streamable)


def _gen(seed: int, name: str, chunk: int = 0) -> Any:
    import torch

    return torch.Generator().manual_seed(
        (seed * 1_000_003 + zlib.crc32(name.encode())) * 131 + chunk
    )


def random_value(name: str, shape: tuple[int, ...], *, seed: int, rows: slice | None = None) -> Any:
    """The random value of one checkpoint tensor, a function of (seed, name) only.

    Default init leaves norms at 1, layer scalars at 1 and clip bounds at +-inf; a runtime that
    ignored any of them would still pass, so all are randomized. Linear weights get
    ~1/sqrt(fan_in) so logits are spread (few near-ties under greedy decoding). Embedding tables
    are generated in ROW_CHUNK-row chunks so a row range can be made alone (`rows`), e.g. to
    stream the 2.35 B-value E2B PLE table into a 4-bit file.
    """
    import torch

    g = _gen(seed, name)

    def u(lo: float, hi: float) -> Any:
        return torch.rand(shape, generator=g) * (hi - lo) + lo

    if name.endswith("layer_scalar"):
        return u(0.5, 1.5)
    if name.endswith(("input_min", "output_min")):
        return torch.full(shape, float(u(-3.0, -1.5).reshape(-1)[0]))
    if name.endswith(("input_max", "output_max")):
        return torch.full(shape, float(u(1.5, 3.0).reshape(-1)[0]))
    if len(shape) == 1 or name.endswith("norm.weight"):
        return u(0.6, 1.4)  # RMSNorm weights (x * w): around 1
    if "position_embedding_table" in name:
        return torch.randn(shape, generator=g) * 0.5
    if name.endswith(("embed_tokens.weight", "embed_tokens_per_layer.weight")):
        std = 0.5 if "per_layer" in name else EMBED_RMS / math.sqrt(shape[1])
        r = rows or slice(0, shape[0])
        parts = []
        for c in range(r.start // ROW_CHUNK, -(-r.stop // ROW_CHUNK)):
            lo, hi = c * ROW_CHUNK, min((c + 1) * ROW_CHUNK, shape[0])
            block = torch.randn((hi - lo, shape[1]), generator=_gen(seed, name, c + 1)) * std
            parts.append(block[max(r.start - lo, 0) : min(r.stop, hi) - lo])
        return torch.cat(parts)
    return torch.randn(shape, generator=g) / math.sqrt(shape[-1])


def randomize_(model: Any, *, seed: int) -> None:
    """Fill every parameter and persistent buffer with `random_value`."""
    import torch

    with torch.no_grad():
        for name, t in model.state_dict(keep_vars=True).items():
            if name == "lm_head.weight":  # tied to embed_tokens
                continue
            t.copy_(random_value(name, tuple(t.shape), seed=seed))


def write_checkpoint(kind: str, out: Path, *, seed: int = 0,
                     sliding_window: int | None = None) -> Path:  # fmt: skip
    """Build a random `Gemma4ForConditionalGeneration`, save it (config + safetensors) to `out`.
    `sliding_window` (tokens): another window than the kind's (tests of windows wider than a
    page's image tokens)."""
    import torch
    from transformers import Gemma4ForConditionalGeneration

    config = make_config(kind)
    if sliding_window is not None:
        config.text_config.sliding_window = sliding_window
    config.text_config._attn_implementation = "eager"
    torch.manual_seed(seed)
    if kind == "e2b":
        # 5.1 B fp32 parameters: build on the meta device and fill with fp16 directly.
        config.dtype = "float16"
    model = Gemma4ForConditionalGeneration(config).eval()
    randomize_(model, seed=seed)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out, safe_serialization=True)
    # Record how the checkpoint was made (provenance in the package manifest).
    made = {"kind": kind, "seed": seed}
    if sliding_window is not None:
        made["sliding_window"] = sliding_window
    (out / "axiya_random.json").write_text(json.dumps(made))
    return out
