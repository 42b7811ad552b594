"""Gemma's answer for one page -> typed blocks (`ReadBlock`s), page language and rotation.

The answer format is set by `models.gemma.page_prompt`: front matter, then Markdown with HTML
tables, `![alt](box:x0,y0,x1,y1)` figures, `$$` formulas and `<header>`/`<footer>`/
`<page-number>`/`<footnote>` tags. Model text is untrusted data: Markdown is parsed with
markdown-it-py with raw HTML off (any markup the model writes stays literal text), tables are read
with BeautifulSoup into plain-text cells, and nothing from the answer is ever emitted as markup.

Robustness rules: a repetition loop at the end (greedy decoding's failure mode) is cut and
flagged; unclosed tables/formulas/tags degrade (to what could be read, or to paragraphs) with a
finding; a page the model calls blank stays blank.

One parser of one answer format, in the order it reads: `page` (the steps), `cleanup` (text,
loops), `front_matter`, `body` (the marked segments), `markdown` (Markdown, HTML tables);
`findings` holds the codes they leave. Their rules must stay consistent with each other and with
the prompt.
"""

from models.gemma.parse.cleanup import LOOP_MAX_PERIOD, LOOP_MIN_CHARS, cut_repetition
from models.gemma.parse.findings import BLANK_CONFLICT, MALFORMED, REPETITION, TRUNCATED
from models.gemma.parse.page import ParsedPage, parse_page

__all__ = [
    "BLANK_CONFLICT",
    "LOOP_MAX_PERIOD",
    "LOOP_MIN_CHARS",
    "MALFORMED",
    "REPETITION",
    "TRUNCATED",
    "ParsedPage",
    "cut_repetition",
    "parse_page",
]
