"""Build a local Gemma-4-shaped `tokenizers` tokenizer (no hub): special tokens at the real ids.

Random-weight packages need a tokenizer whose special tokens sit where the runtime expects them
(pad 0, eos 1, bos 2, <|turn> 105, <turn|> 106, "\\n" 107, image/boi/eoi from the config). The
rest is a character-level BPE with byte fallback ("▁" for spaces, as Gemma's does) padded with
<unused_N> entries up to the vocabulary size.
"""

from __future__ import annotations

import string
from pathlib import Path

from tokenizers import AddedToken, Tokenizer, decoders, models, normalizers

BASE_SPECIALS = {
    0: "<pad>",
    1: "<eos>",
    2: "<bos>",
    3: "<unk>",
    50: "<|stop_50|>",
    105: "<|turn>",
    106: "<turn|>",
}
NEWLINE_ID = 107
# Whole-word tokens of the real vocabulary used by the template (E2B only: the tiny vocab of 512
# cannot hold these ids, there they get the next free ids).
WORD_IDS = {"user": 2364, "model": 4368}


def build_tokenizer(*, vocab_size: int, image_ids: dict[str, int]) -> Tokenizer:
    specials = dict(BASE_SPECIALS)
    specials.update(
        {
            image_ids["boi"]: "<|image>",
            image_ids["image"]: "<|image|>",
            image_ids["eoi"]: "<image|>",
            image_ids["audio"]: "<|audio|>",
            image_ids["video"]: "<|video|>",
        }
    )
    vocab: dict[str, int] = {tok: i for i, tok in specials.items()}
    vocab["\n"] = NEWLINE_ID
    fixed_words = {w: i for w, i in WORD_IDS.items() if i < vocab_size}
    taken = set(vocab.values()) | set(fixed_words.values())
    free = (i for i in range(vocab_size) if i not in taken)

    def add(tok: str) -> None:
        if tok not in vocab and tok not in fixed_words:
            vocab[tok] = next(free)

    for b in range(256):
        add(f"<0x{b:02X}>")
    add("▁")
    for ch in string.ascii_letters + string.digits + string.punctuation:
        add(ch)
    merges: list[tuple[str, str]] = []
    for word in WORD_IDS:
        for k in range(2, len(word) + 1):
            merges.append((word[: k - 1], word[k - 1]))
            if k < len(word):
                add(word[:k])
    for word in WORD_IDS:
        if word in fixed_words:
            vocab[word] = fixed_words[word]
        else:
            add(word)
    n = 0
    used = set(vocab.values())
    for i in range(vocab_size):
        if i not in used:
            vocab[f"<unused_{n}>"] = i
            n += 1
    if len(vocab) != vocab_size or max(vocab.values()) != vocab_size - 1:
        raise ValueError(f"tokenizer layout does not fit a vocabulary of {vocab_size}")

    tok = Tokenizer(models.BPE(vocab=vocab, merges=merges, unk_token="<unk>", byte_fallback=True))
    tok.normalizer = normalizers.Replace(" ", "▁")
    tok.decoder = decoders.Sequence(
        [decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse()]
    )
    tok.add_special_tokens(
        [AddedToken(t, special=True, normalized=False) for _, t in sorted(specials.items())]
    )
    return tok


def write_tokenizer(path: Path, *, vocab_size: int, image_ids: dict[str, int]) -> Path:
    build_tokenizer(vocab_size=vocab_size, image_ids=image_ids).save(str(path))
    return path
