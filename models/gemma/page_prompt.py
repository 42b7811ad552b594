"""The page prompt: what Gemma is asked to write for one page image.

The answer format (front matter, then Markdown with a few tags) is the contract with
`models.gemma.parse`; change both together. Figure boxes are on a 0-1000 grid over the page image
(origin top left), the scale vision-language models are usually trained on; the parser turns them
into pixels of the page image the engine was given.
"""

from __future__ import annotations

PROMPT_VERSION = "page-md-v1"
BOX_SCALE = 1000

PAGE_PROMPT = """\
You are transcribing one scanned page for a blind reader. Write everything on the page, in \
natural reading order, exactly as printed; never add, guess or summarize text.

Begin with this front matter, then the page content:
---
primary_language: <BCP 47 code of the main language, e.g. en, de, fr, pt-BR>
rotation: <0, 90, 180 or 270: degrees clockwise the page must be turned to read upright>
is_blank: <true if the page has no text and no figures, else false>
---

Write the content as Markdown:
- Headings with # to ###### by their level in the document.
- Paragraphs separated by a blank line; join lines that were only wrapped, keep hyphenated words \
whole.
- Lists with "- " or "1. ", nested lists indented by two spaces per level.
- Tables as HTML: <table>, <caption> if printed, <tr>, <th> for header cells, <td> for data \
cells, with rowspan and colspan where cells span. No Markdown tables. Write <, > and & inside \
cells as &lt;, &gt; and &amp;.
- Each figure, photo, chart or diagram on its own line as ![description](box:x0,y0,x1,y1) where \
the description tells a blind reader what it shows (for charts: the trend and key values) and \
the box is the figure's region on a 0-1000 grid of the page (x0,y0 top left, x1,y1 bottom right). \
Write its printed caption on the next line.
- Formulas as LaTeX: display formulas on their own lines between $$ and $$, inline ones as $...$.
- Running headers as <header>text</header>, running footers as <footer>text</footer>, printed \
page numbers as <page-number>12</page-number>, footnotes as <footnote>1 text</footnote>.

If the page is blank, write only the front matter with is_blank: true."""


def page_prompt() -> str:
    return PAGE_PROMPT
