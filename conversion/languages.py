"""The document language a person may force: a BCP 47 tag, checked against the IANA subtag
registry (langcodes) and written in its standard form ("EN-us" -> "en-US"), and, where this
server has Tesseract's trained data, one of the languages it can read (`installed_languages`:
the form offers exactly those, the API refuses others with LANGUAGE_NOT_INSTALLED)."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import langcodes

from conversion.pipeline.errors import InvalidLanguage, LanguageNotInstalled
from models.ocr.tessdata import find_tessdata

# Debian's iso-codes (bin/setup installs it): the languages' English names.
ISO_CODES = Path("/usr/share/iso-codes/json")
# Tesseract packs that are no language: orientation and script detection, equations.
_NOT_LANGUAGES = {"osd", "equ"}
# Tesseract's suffixes for a script or a writing direction (chi_sim, srp_latn, deu_latf).
_SCRIPTS = {"sim": "Hans", "tra": "Hant", "latn": "Latn", "cyrl": "Cyrl", "latf": "Latf"}
_SCRIPT_NAMES = {"Hans": "simplified", "Hant": "traditional", "Latn": "Latin",
                 "Cyrl": "Cyrillic", "Latf": "Fraktur"}  # fmt: skip


@lru_cache(maxsize=1)
def _iso_639() -> dict[str, tuple[str, str]]:
    """ISO 639 three-letter codes (terminology and bibliographic) -> (shortest code, name)."""
    table: dict[str, tuple[str, str]] = {}
    for name, key in (("iso_639-3.json", "639-3"), ("iso_639-2.json", "639-2")):
        try:
            entries = json.loads((ISO_CODES / name).read_text())[key]
        except (OSError, ValueError, KeyError):
            continue
        for entry in entries:
            value = (entry.get("alpha_2") or entry["alpha_3"], entry["name"])
            for code in (entry["alpha_3"], entry.get("bibliographic")):
                if code:
                    table.setdefault(code, value)
    return table


def _pack_language(stem: str) -> tuple[str, str] | None:
    """(BCP 47 tag, English name) of a Tesseract pack (fra -> fr, chi_sim -> zh-Hans)."""
    base, _, suffix = stem.partition("_")
    if stem in _NOT_LANGUAGES or suffix == "vert":
        return None  # vertical writing: the same language as its horizontal pack
    code, name = _iso_639().get(base, (base, base))
    script = _SCRIPTS.get(suffix)
    tag = f"{code}-{script}" if script else code
    if not langcodes.tag_is_valid(tag):
        return None  # an old or private pack name (frk, enm...): not a language tag
    if script:
        name = f"{name} ({_SCRIPT_NAMES[script]})"
    return langcodes.standardize_tag(tag), name


def installed_languages() -> list[tuple[str, str]]:
    """The languages Tesseract can read here, as (BCP 47 tag, English name), by name; empty
    when Tesseract has no trained data here (then any valid tag is accepted)."""
    try:
        folder = Path(find_tessdata())
    except RuntimeError:
        return []
    found = dict(
        lang for pack in folder.glob("*.traineddata") if (lang := _pack_language(pack.stem))
    )
    return sorted(found.items(), key=lambda item: item[1])


def _primary(tag: str) -> str:
    return langcodes.Language.get(tag).language or tag


def clean_language(value: str | None) -> str | None:
    """The standard form of a language tag; None for an empty value (the language is then
    detected). Raises InvalidLanguage for anything that is not a valid BCP 47 tag, and
    LanguageNotInstalled for a language none of the installed packs reads (a region or script
    of an installed language is accepted: pt-BR where Portuguese is installed)."""
    value = (value or "").strip()
    if not value:
        return None
    if len(value) > 35 or not langcodes.tag_is_valid(value):
        raise InvalidLanguage(
            f"{value[:40]!r} is not a language code: use a BCP 47 code such as en, fr, de or "
            "pt-BR, or leave it empty to detect the language."
        )
    tag = langcodes.standardize_tag(value)
    installed = installed_languages()
    if installed and _primary(tag) not in {_primary(code) for code, _ in installed}:
        raise LanguageNotInstalled(
            f"This server cannot read {tag}: its languages are "
            f"{', '.join(code for code, _ in installed)}. Leave the language empty to detect "
            "it, or ask the administrator to install the Tesseract pack."
        )
    return tag
