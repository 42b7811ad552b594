"""The document language a person may force: a BCP 47 tag, checked against the IANA subtag
registry (langcodes) and written in its standard form ("EN-us" -> "en-US")."""

from __future__ import annotations

import langcodes

from conversion.pipeline.errors import InvalidLanguage


def clean_language(value: str | None) -> str | None:
    """The standard form of a language tag; None for an empty value (the language is then
    detected). Raises InvalidLanguage for anything that is not a valid BCP 47 tag."""
    value = (value or "").strip()
    if not value:
        return None
    if len(value) > 35 or not langcodes.tag_is_valid(value):
        raise InvalidLanguage(
            f"{value[:40]!r} is not a language code: use a BCP 47 code such as en, fr, de or "
            "pt-BR, or leave it empty to detect the language."
        )
    return langcodes.standardize_tag(value)
