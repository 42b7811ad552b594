"""Code listings on born-digital pages (models.reading.code_blocks): blocks set in a monospaced
font read as preformatted lines. Shares are of characters; ratios of a line's height or of the
font's character width."""

from __future__ import annotations

import re
from dataclasses import dataclass

# Monospaced fonts by name, for embedded fonts whose descriptor does not say so (CMTT without
# its FixedPitch flag, Lucida Console, DejaVu Sans Mono, Latin Modern's MLMMono): TeX's
# typewriter fonts (cmtt, lmtt, ectt, txtt, sftt...), Courier (pcr), and the usual names.
MONO_FONT = re.compile(
    r"mono|courier|typewriter|consol|menlo|inconsolata|(?:^|[^a-z])(?:cm|lm|ec|tc|t1x|tx|sf|pcr)"
    r"i?tt|cmsltt|cmitt|lettergothic|ocr-?a",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class CodeParams:
    mono_share: float = 0.9  # a listing has this share of its characters or more in such fonts
    # ...and looks like code: this share of its characters or more are brackets, operators and
    # the signs programs use ({}[]()<>=;:\\#$%&*_|~^@/); prose set in typewriter type has few.
    code_sign_share: float = 0.04
    # Two listings' blocks one after the other are one listing when the next starts within
    # this many line heights below the last (a blank line between them is kept as one).
    join_gap_ratio: float = 3.0
    blank_line_ratio: float = 1.5  # a gap this many line pitches or more is a blank line kept
    # A block this close to the text above it or below it (a gap of this share of its line
    # height or less: a paragraph's own line spacing) is a paragraph's line, not a listing set
    # apart by a space (LaTeX's verbatim leaves 8 points: about 0.7 of a line).
    flush_gap_ratio: float = 0.35
    # A font none of whose descriptor and name says monospaced is when its glyphs on the page,
    # this many different ones or more, narrow and wide among them, all advance alike: their
    # advances (per unit of size) differ by this share at most.
    even_min_glyphs: int = 6
    even_advance_spread: float = 0.02


CODE = CodeParams()
