"""Page layouts whose reading order is known by construction, for bench/structure_corpus.py
(issue 32): magazines in two and three columns with a photo inside a column, a drop cap and a
pull quote; a paper page with a boxed sidebar; a three-column paper with its title and abstract
across the top and references at the end. The truth's order is the HTML's element order; where
a box is printed elsewhere than it is read (a sidebar drawn at the top of a column, read after
the text it sits beside), CSS `order` moves it on the page, not in the truth.

Each builder takes the sentence deck and the corpus's page writer (structure_corpus._html).
"""

from __future__ import annotations

import base64
import io
from collections.abc import Callable

import numpy as np
from PIL import Image, ImageFilter

Html = Callable[[str, str, str, list[str]], str]

_DROP_CAP = """
p.lead::first-letter { float: left; font-family: 'DejaVu Sans', sans-serif; font-size: 46pt;
  line-height: 0.8; padding: 3pt 5pt 0 0; font-weight: bold; }
"""
_PULL_QUOTE = """
blockquote.pull { margin: 8pt 0 10pt; padding: 6pt 0; border-top: 2px solid #000;
  border-bottom: 2px solid #000; font-family: 'DejaVu Sans', sans-serif; font-size: 15pt;
  font-style: italic; line-height: 1.25; }
blockquote.pull p { text-align: left; margin: 0; }
"""
_MAGAZINE_PAGE = """
@page { size: A4; margin: 16mm 15mm 18mm 15mm;
  @bottom-right { content: "FOOTER"; font: 8pt sans-serif; } }
h1 { font-size: 34pt; margin: 0 0 6pt; }
.standfirst { font-family: 'DejaVu Sans', sans-serif; font-size: 13pt; margin: 0 0 10pt; }
figure { margin: 4pt 0 8pt; break-inside: avoid; }
figure img { width: 100%; display: block; }
.cols figure.inset { float: right; width: 58%; margin: 2pt 0 4pt 8pt; }
figcaption { font: italic 8.5pt sans-serif; margin-top: 3pt; }
"""


def _photo(rng, width: int = 480, height: int = 340) -> str:
    """A photograph-like PNG (smooth shapes of many greys, grain) as a data URI: a picture the
    layout model sees as a picture, narrower than the column holding it."""
    nprng = np.random.default_rng(rng.randrange(1 << 30))
    y, x = np.mgrid[0:height, 0:width].astype(np.float32)
    pixels = 140 + 60 * np.sin(x / 37.0) * np.cos(y / 23.0)
    for _ in range(6):
        cx, cy, r = nprng.uniform(0, width), nprng.uniform(0, height), nprng.uniform(30, 110)
        pixels -= 70 * np.exp(-((x - cx) ** 2 + (y - cy) ** 2) / (2 * r * r))
    pixels += nprng.normal(0, 12, pixels.shape)
    image = Image.fromarray(np.clip(pixels, 10, 245).astype(np.uint8)).filter(
        ImageFilter.GaussianBlur(1.2)
    )
    buf = io.BytesIO()
    image.save(buf, "PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def _figure(rng, caption: str, css_class: str = "") -> str:
    image = f"<img src='{_photo(rng)}' alt='Photograph'>"
    return f"<figure class='{css_class}'>{image}<figcaption>{caption}</figcaption></figure>"


def _magazine(deck, html: Html, *, columns: int, title: str, footer: str) -> str:
    """A magazine article: a display title (wider than a column, narrower than the page) and a
    standfirst, then the text in `columns` columns, the first paragraph with a drop cap, a
    photo set into a column with the text wrapping around it, a pull quote."""
    css = (
        _MAGAZINE_PAGE.replace("FOOTER", footer)
        + _DROP_CAP
        + _PULL_QUOTE
        + f".cols {{ column-count: {columns}; column-gap: 7mm; column-fill: auto; height: 232mm; }}"
    )
    paras = [f"<p>{deck.para(3)}</p>" for _ in range(4 * columns)]
    photo_at = 2 if columns == 2 else 4  # inside the first column, or the second of three
    quote_at = len(paras) * 2 // 3
    body = [f"<h1>{title}</h1>", f"<p class='standfirst'>{deck.para(1)}</p>", "<div class='cols'>",
            f"<p class='lead'>{deck.para(4)}</p>"]  # fmt: skip
    for i, para in enumerate(paras):
        if i == photo_at:
            # Set into the column, the text wrapping around it.
            body.append(_figure(deck.rng, "The river path in spring.", "inset"))
        if i == quote_at:
            body.append(f"<blockquote class='pull'><p>{deck.para(1)}</p></blockquote>")
        if i == len(paras) // 2:
            body.append("<h2>A Town Looks Ahead</h2>")
        body.append(para)
    body.append("</div>")
    return html(title, css, "".join(body), [footer])


def magazine(deck, html: Html) -> str:
    """Two columns, a photo inside the left one, a drop cap, a pull quote."""
    return _magazine(deck, html, columns=2, title="The River Comes Back",
                     footer="Valley Life Magazine, Spring Issue")  # fmt: skip


def magazine3(deck, html: Html) -> str:
    """Three columns, a photo inside the middle one, a drop cap, a pull quote."""
    return _magazine(deck, html, columns=3, title="Market Days in the Old Town",
                     footer="Northern Towns Weekly, Issue 212")  # fmt: skip


def feature(deck, html: Html) -> str:
    """Two columns cut by a photo across both (a wide figure is a band of its own): the text
    above it runs down both columns, then the text below it."""
    footer = "Valley Life Magazine, Summer Issue"
    css = (
        _MAGAZINE_PAGE.replace("FOOTER", footer)
        + """
.cols { column-count: 2; column-gap: 8mm; }
.cols figure { column-span: all; }
.cols figure img { height: 60mm; object-fit: cover; }
"""
    )
    paras = [f"<p>{deck.para(3)}</p>" for _ in range(8)]
    body = ["<h1>Walking the Old Canal</h1>", "<div class='cols'>", *paras[:4],
            _figure(deck.rng, "Lock gates near the mill, restored last year."), *paras[4:],
            "</div>"]  # fmt: skip
    return html("Walking the Old Canal", css, "".join(body), [footer])


def sidebar(deck, html: Html) -> str:
    """A paper's first page in two columns; a boxed "Correspondence" sidebar printed at the top
    of the right column and read after the text it sits beside (CSS `order` draws it first)."""
    footer = "Journal of Regional Health 7 (2025)"
    css = f"""
@page {{ size: A4; margin: 18mm 16mm 20mm 16mm;
  @bottom-right {{ content: "{footer}"; font: 8pt sans-serif; }} }}
.page {{ display: flex; gap: 8mm; }}
.col {{ flex: 1; display: flex; flex-direction: column; }}
aside {{ order: -1; border: 1px solid #000; background: #e8e8e8; padding: 5pt 7pt;
  margin-bottom: 10pt; font: 9pt sans-serif; }}
aside p {{ text-align: left; margin: 0 0 4pt; }}
"""
    left = [f"<p>{deck.para(3)}</p>" for _ in range(5)]
    right = [f"<p>{deck.para(3)}</p>" for _ in range(3)]
    box = ("<aside><h3>Correspondence</h3>"
           f"<p>{deck.para(1)}</p><p>{deck.para(1)}</p></aside>")  # fmt: skip
    body = [
        "<h1>Clinics Closer to Home</h1>",
        "<div class='page'><div class='col'><h2>Introduction</h2>", *left[:3],
        "<h2>Methods</h2>", *left[3:], "</div>",
        "<div class='col'>", *right, "<h2>Results</h2>", f"<p>{deck.para(3)}</p>", box,
        "</div></div>",
    ]  # fmt: skip
    return html("Clinics Closer to Home", css, "".join(body), [footer])


def paper3(deck, html: Html) -> str:
    """A three-column paper: title, authors and abstract across the top, sections in three
    columns, references at the end of the last column."""
    footer = "Proceedings of the Rural Studies Meeting, 2025"
    css = f"""
@page {{ size: A4; margin: 15mm 13mm 17mm 13mm;
  @bottom-center {{ content: "{footer}"; font: 8pt sans-serif; }} }}
body {{ font-size: 9pt; }}
h1 {{ text-align: center; font-size: 18pt; }}
.authors {{ text-align: center; font-style: italic; margin-bottom: 8pt; }}
.abstract {{ margin: 0 8mm 10pt; font-size: 9.5pt; }}
.cols {{ column-count: 3; column-gap: 6mm; }}
ol.refs {{ font-size: 8pt; padding-left: 12pt; }}
"""
    refs = "".join(
        f"<li>{name}. {deck.para(1)}</li>"
        for name in ("Adams, J. (2019)", "Brown, K. (2021)", "Clarke, P. (2022)")
    )
    body = [
        "<h1>Bus Routes and Village Life</h1>",
        "<p class='authors'>Mary Hollis and Peter Grant, Northern University</p>",
        f"<p class='abstract'><b>Abstract.</b> {deck.para(4)}</p>",
        "<div class='cols'>",
    ]
    for section in ("Introduction", "Data", "Findings", "Discussion"):
        body += [f"<h2>{section}</h2>", f"<p>{deck.para(4)}</p>", f"<p>{deck.para(4)}</p>"]
    body += ["<h2>References</h2>", f"<ol class='refs'>{refs}</ol>", "</div>"]
    return html("Bus Routes and Village Life", css, "".join(body), [footer])


LAYOUTS = {
    "magazine": magazine,
    "feature": feature,
    "magazine3": magazine3,
    "sidebar": sidebar,
    "paper3": paper3,
}
