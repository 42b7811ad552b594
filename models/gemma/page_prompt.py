"""The page prompt: what Gemma is asked to write for one page image.

The answer format (front matter, then Markdown with a few tags) is the contract with
`models.gemma.parse`; change both together. Figure boxes are on a 0-1000 grid over the page image
(origin top left), the scale vision-language models are usually trained on; the parser turns them
into pixels of the page image the engine was given.
"""

from __future__ import annotations

PROMPT_VERSION = "page-md-v3"
BOX_SCALE = 1000

# v2 (issue 35): the v1 rules in 26 % fewer characters and words (1,638 -> 1,212 characters,
# 277 -> 203 words; the random packages' character tokenizer: 1,637 -> 1,212 tokens). It comes
# before the page image in the prompt, so its KV is computed once per worker (the runtimes'
# prefix cache). v3: program code and other preformatted text between ``` lines (a code block);
# line numbers in the margin left out (as the CPU engine leaves them out).
PAGE_PROMPT = """\
Transcribe this scanned page for a blind reader: all text, in reading order, exactly as \
printed; never add, guess or summarize. Leave out line numbers printed in the margin.

Start with:
---
primary_language: <BCP 47 code, e.g. en, de, pt-BR>
rotation: <0, 90, 180 or 270: degrees clockwise that turn the page upright>
is_blank: <true if no text and no figures, else false>
---
Then the content as Markdown:
- Headings # to ###### by their level in the document.
- A blank line between paragraphs; join wrapped lines and words hyphenated at line ends.
- Lists with "- " or "1. ", nested two spaces per level.
- Tables as HTML only: <table>, <caption>, <tr>, <th> header cells, <td> data cells, rowspan and \
colspan; inside cells write <, >, & as &lt;, &gt;, &amp;.
- Each figure, photo or chart on its own line as ![what it shows; for charts the trend and key \
values](box:x0,y0,x1,y1), the box on a 0-1000 grid of the page (x0,y0 top left), its printed \
caption on the next line.
- Formulas in LaTeX: display ones on their own lines between $$ and $$, inline ones as $...$.
- Program code and other preformatted text between ``` lines, its lines and indentation kept.
- <header>running header</header>, <footer>running footer</footer>, \
<page-number>12</page-number>, <footnote>1 text</footnote>.

A blank page: only the front matter, with is_blank: true."""


def page_prompt() -> str:
    return PAGE_PROMPT
