"""The validation split of every corpus: the part we measure on and never tune on (issues 31, 32).

    .venv/bin/python bench/splits.py     # writes bench/results/splits.json

One rule for every bench. A corpus is a list of member names (file names; the unit each corpus
splits on is below); each member's place is fixed by a hash of "<corpus>/<member>":

- sha256 of that string, its first 16 hex digits as a fraction of 2**64: below 1/3 is
  validation. A member keeps its side whatever else the corpus holds.
- A small corpus's draw is clamped, by the same hash order (lowest fraction first): at least
  min(MIN_VALIDATION, members - 1) validation members, at most members - 1, so every corpus
  of two or more has validation members and keeps at least one to tune on.
- Members earlier sessions tuned on (TUNED_BEFORE: linn, c02-22, bws_book_ch2) are tune members
  by rule and are not drawn; the clamp counts the members left.
- Members that are copies of one another split together (FAMILIES: ocrmypdf's skew.pdf is linn
  rotated, its multipage.pdf holds linn's page), so a copy is never on the other side.

Units: a document's file name (ocrmypdf, tesseract, structure, realworld, pdfjs), a table
document's id (tables-icdar2013: "eu-001", its .pdf and its -str.xml / -reg.xml together), a
page image (typewritten-fr: "<volume>__<page>.jpg"), a page of the one LaTeX book (latex:
"tufte-sample-book.pdf#p7"), a generated document's name (generated: bench/structure_corpus.py's
DOCUMENTS; its born-digital PDF and its scan split together), a generated LaTeX paper
(latex-papers: bench/latex_papers.py's "paper-007.pdf", split there by this rule).
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pymupdf  # noqa: E402

from bench.structure_corpus import DOCUMENTS  # noqa: E402

SHARED_CORPUS = ROOT.parent / "shared" / "corpus"
SPLITS_JSON = ROOT / "bench" / "results" / "splits.json"

VALIDATION_SHARE = 1 / 3  # the share of each corpus held out (by hash, so about)
MIN_VALIDATION = 2  # members held out at least, where the corpus has one more to tune on
TUNE, VALIDATION = "tune", "validation"

# Members that are the same page under another form: they split with the member they copy.
FAMILIES = {
    ("ocrmypdf", "skew.pdf"): "linn.pdf",
    ("ocrmypdf", "multipage.pdf"): "linn.pdf",
}
# Members earlier sessions tuned rules on (named in many tests and closing notes): never
# validation, whatever their hash, since validation must be pages no rule was fitted to.
TUNED_BEFORE = {
    ("ocrmypdf", "linn.pdf"),
    ("ocrmypdf", "c02-22.pdf"),
    ("realworld", "bws_book_ch2.pdf"),
}

# Every corpus with truth, then pdfjs (no truth: robustness only, split all the same).
CORPORA = (
    "ocrmypdf",
    "tesseract",
    "structure",
    "realworld",
    "tables-icdar2013",
    "typewritten-fr",
    "latex",
    "generated",
    "pdfjs",
)


def _family(corpus: str, name: str) -> str:
    return FAMILIES.get((corpus, name), name)


def hash_fraction(corpus: str, name: str) -> float:
    """Where a member falls in [0, 1): stable across machines, Python versions and listings."""
    digest = hashlib.sha256(f"{corpus}/{_family(corpus, name)}".encode()).hexdigest()
    return int(digest[:16], 16) / 2**64


def validation_members(corpus: str, names: Iterable[str]) -> set[str]:
    """The validation members of a corpus, given all its members."""
    names = sorted(set(names))
    families = sorted(
        {_family(corpus, n) for n in names if (corpus, _family(corpus, n)) not in TUNED_BEFORE},
        key=lambda f: hash_fraction(corpus, f),
    )
    by_hash = sum(hash_fraction(corpus, f) < VALIDATION_SHARE for f in families)
    # A small corpus's draw is clamped: some validation, and something left to tune on.
    count = max(min(MIN_VALIDATION, len(families) - 1), min(by_hash, len(families) - 1))
    held = set(families[:count])  # the hash draw is a prefix of the hash order
    return {n for n in names if _family(corpus, n) in held}


def is_validation(corpus: str, name: str, names: Iterable[str]) -> bool:
    """Whether a member (of a corpus holding `names`) is in the validation split."""
    return name in validation_members(corpus, [*names, name])


def split_of(corpus: str, name: str, names: Iterable[str]) -> str:
    return VALIDATION if is_validation(corpus, name, names) else TUNE


# -- the corpora's members, as found on disk ------------------------------------------------------
def _files(folder: Path, pattern: str) -> list[str]:
    return sorted(p.name for p in folder.glob(pattern))


def latex_pages(pdf: Path) -> list[str]:
    """The LaTeX book's pages as members ("<name>#p<n>", 1-based)."""
    with pymupdf.open(pdf) as doc:
        return [f"{pdf.name}#p{n}" for n in range(1, doc.page_count + 1)]


def members(corpus: str, shared: Path = SHARED_CORPUS) -> list[str]:
    """The names a corpus splits on, listed from its folder (generated: from its generator)."""
    folder = shared / corpus
    if corpus == "generated":
        return sorted(DOCUMENTS)
    if corpus == "tables-icdar2013":
        return sorted(re.sub(r"\.pdf$", "", n) for n in _files(folder, "*.pdf"))
    if corpus == "typewritten-fr":
        return _files(folder, "*.jpg")
    if corpus == "latex":
        return [page for pdf in sorted(folder.glob("*.pdf")) for page in latex_pages(pdf)]
    if corpus == "tesseract":
        return _files(folder, "*.tif")
    if corpus == "ocrmypdf":
        return _files(folder, "*.pdf") + _files(folder, "*.png")
    return _files(folder, "*.pdf")


def all_splits(shared: Path = SHARED_CORPUS) -> dict[str, dict[str, list[str]]]:
    """{corpus: {"tune": [...], "validation": [...]}} for every corpus present."""
    out = {}
    for corpus in CORPORA:
        if corpus != "generated" and not (shared / corpus).is_dir():
            continue
        names = members(corpus, shared)
        held = validation_members(corpus, names)
        out[corpus] = {
            TUNE: [n for n in names if n not in held],
            VALIDATION: [n for n in names if n in held],
        }
    return out


def write_splits(path: Path = SPLITS_JSON, shared: Path = SHARED_CORPUS) -> dict:
    splits = all_splits(shared)
    doc = {"rule": "bench/splits.py: sha256('<corpus>/<member>')[:16] / 2**64 < 1/3 is "
           "validation; clamped in hash order to [min(2, members - 1), members - 1]; "
           "copies split with their original (FAMILIES)",
           "corpora": splits}  # fmt: skip
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    return splits


def main() -> None:
    for corpus, sides in write_splits().items():
        print(f"{corpus:<18}tune {len(sides[TUNE]):>4}   validation {len(sides[VALIDATION]):>4}")
    print(f"wrote {SPLITS_JSON.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
