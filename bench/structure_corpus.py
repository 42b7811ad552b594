"""A corpus whose structure is known by construction: HTML written here (multi-level headings,
ruled and unruled tables with spans, lists, two columns, running headers and footers through CSS
`@page` margin boxes, magazines with photos inside columns, drop caps and pull quotes, sidebars,
three-column papers (bench/structure_layouts.py), a download stamp, MathML), printed with
Chromium's headless `--print-to-pdf`, then rasterized as scans (noise, blur, skew, JPEG;
seeded, so regenerable).

    .venv/bin/python bench/structure_corpus.py [--out bench/generated/structure]

Each document NAME gives NAME.html (the truth: bench/structure_truth.py reads it), NAME.pdf
(born-digital) and NAME.scan.pdf (the scan). The output folder is git-ignored: regenerate it.
"""

from __future__ import annotations

import argparse
import base64
import io
import json
import random
import shutil
import subprocess
import sys
import tempfile
from functools import partial
from pathlib import Path

import numpy as np
import pymupdf
from PIL import Image, ImageDraw, ImageFilter

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.structure_layouts import LAYOUTS  # noqa: E402

DEFAULT_OUT = ROOT / "bench" / "generated" / "structure"
SCAN_DPI = 300
SEED = 15

# Real sentences (plain English that Tesseract's dictionary knows), shuffled per paragraph.
_SENTENCES = [
    "The committee reviewed the annual budget and approved the new maintenance plan.",
    "Most of the older buildings were repaired during the summer months.",
    "Water quality in the northern district improved after the pipes were replaced.",
    "Several schools reported higher attendance than in the previous year.",
    "The survey was sent to every household in the region in early spring.",
    "Responses were collected by post and through a simple online form.",
    "A small team checked each answer by hand before the results were published.",
    "The library extended its opening hours on weekday evenings.",
    "Public transport use grew steadily once the new timetable was introduced.",
    "Local businesses were asked how the changes affected their customers.",
    "The council will present a full report to residents at the next meeting.",
    "Energy costs remained the largest single item of spending this year.",
    "New street lights reduced the number of complaints about dark corners.",
    "The park was closed for two weeks while the paths were resurfaced.",
    "Volunteers planted more than four hundred trees along the river banks.",
    "Health services opened a second clinic near the central station.",
    "Waiting times fell for most routine appointments during the autumn.",
    "The housing office answered nearly every request within ten working days.",
    "Road repairs were planned so that no two nearby streets closed at once.",
    "Careful records made it possible to compare this year with the last.",
    "Farmers near the coast asked for better drainage along the main road.",
    "The museum lent several paintings to a gallery in the capital.",
    "A new cycle lane now links the university with the railway station.",
    "Storms in February damaged the roof of the old market hall.",
    "Children from three villages now share one modern school bus.",
    "The fire service visited every care home to check the alarms.",
    "Most residents said they felt safer walking home at night.",
    "The harbour wall was strengthened before the winter tides arrived.",
    "Recycling rates rose after collections moved to the same day each week.",
    "An evening course on local history filled all its places within a week.",
]


class _Deck:
    """Sentences dealt without repeats (until the pool runs out): every paragraph of a document
    reads differently, so a paragraph's opening finds its one place in the output."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.cards: list[str] = []

    def para(self, n: int) -> str:
        out = []
        for _ in range(n):
            if not self.cards:
                self.cards = self.rng.sample(_SENTENCES, len(_SENTENCES))
            out.append(self.cards.pop())
        return " ".join(out)


_BASE_CSS = """
body { font-family: 'DejaVu Serif', 'Liberation Serif', serif; font-size: 11pt; line-height: 1.35;
       color: #000; }
h1 { font-family: 'DejaVu Sans', sans-serif; font-size: 22pt; margin: 0 0 10pt; }
h2 { font-family: 'DejaVu Sans', sans-serif; font-size: 16pt; margin: 14pt 0 6pt; }
h3 { font-family: 'DejaVu Sans', sans-serif; font-size: 13pt; margin: 10pt 0 4pt; }
p { margin: 0 0 7pt; text-align: justify; }
table { border-collapse: collapse; margin: 6pt 0 10pt; }
caption { font-style: italic; text-align: left; margin-bottom: 4pt; }
td, th { padding: 3pt 8pt; text-align: left; }
table.ruled td, table.ruled th { border: 1px solid #000; }
table.plain th { border-bottom: 1.5px solid #000; }
math[display=block] { font-size: 14pt; margin: 8pt 0; }
"""


def _page_css(header: str, footer: str) -> str:
    # Running header and footer printed by the browser on every page (CSS Paged Media margin
    # boxes); the page number is a footer too.
    return f"""
@page {{ size: A4; margin: 22mm 20mm 22mm 20mm;
  @top-center {{ content: "{header}"; font: 9pt sans-serif; }}
  @bottom-left {{ content: "{footer}"; font: 9pt sans-serif; }}
  @bottom-right {{ content: "Page " counter(page); font: 9pt sans-serif; }} }}
"""


def _html(title: str, css: str, body: str, furniture: list[str]) -> str:
    data = json.dumps(furniture).replace("'", "&#39;")
    return (
        f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{title}</title>"
        f"<style>{_BASE_CSS}{css}</style></head><body data-furniture='{data}'>{body}</body></html>"
    )


def _chart() -> str:
    """A bar chart as a PNG data URI: the one figure of the report."""
    image = Image.new("L", (600, 300), 255)
    draw = ImageDraw.Draw(image)
    draw.line((40, 20, 40, 270, 580, 270), fill=0, width=3)
    for i, height in enumerate((120, 200, 90, 160, 230)):
        x = 70 + i * 100
        draw.rectangle((x, 270 - height, x + 60, 270), fill=90)
    buf = io.BytesIO()
    image.save(buf, "PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def report(deck: _Deck) -> str:
    """Two pages: title, sections and subsections, lists, running header/footer."""
    header, footer = "Riverside District Council", "Annual Review 2025"
    body = [
        "<h1>Annual Review of Public Services</h1>",
        f"<p>{deck.para(4)}</p>",
        "<h2>Introduction</h2>",
        f"<p>{deck.para(5)}</p>",
        "<h3>Scope of the Review</h3>",
        f"<p>{deck.para(4)}</p>",
        "<ul><li>Schools and libraries in every ward</li><li>Roads, lighting and public "
        "transport</li><li>Parks, rivers and green spaces</li></ul>",
        "<h3>Methods Used</h3>",
        f"<p>{deck.para(5)}</p>",
        "<h2>Main Findings</h2>",
        f"<p>{deck.para(4)}</p>",
        f"<figure><img src='{_chart()}' alt='Bar chart of visits' style='width:90mm'>"
        "<figcaption>Figure 1. Visits per service</figcaption></figure>",
        "<h3>Housing and Health</h3>",
        f"<p>{deck.para(6)}</p>",
        "<ol><li>Waiting times fell for routine care</li><li>A second clinic opened in the "
        "centre</li><li>Repairs were answered within ten days</li></ol>",
        "<h3>Energy and Transport</h3>",
        f"<p>{deck.para(6)}</p>",
        "<h2>Next Steps</h2>",
        f"<p>{deck.para(5)}</p>",
        f"<p>{deck.para(4)}</p>",
    ]
    return _html("Annual Review", _page_css(header, footer), "".join(body),
                 [header, footer, "Page 1", "Page 2"])  # fmt: skip


def tables(deck: _Deck) -> str:
    """A ruled table with a two-level header (spans) and an unruled table of figures."""
    body = [
        "<h1>Service Statistics</h1>",
        f"<p>{deck.para(2)}</p>",
        "<h2>Visits by Service</h2>",
        "<table class='ruled'><caption>Table 1. Visits per quarter</caption>",
        "<thead><tr><th rowspan='2'>Service</th><th colspan='2'>First half</th>"
        "<th colspan='2'>Second half</th></tr>",
        "<tr><th>Spring</th><th>Summer</th><th>Autumn</th><th>Winter</th></tr></thead><tbody>",
        "<tr><th scope='row'>Library</th><td>4120</td><td>3980</td><td>4410</td><td>4725</td></tr>",
        "<tr><th scope='row'>Swimming pool</th><td>2210</td><td>5630</td><td>1875</td>"
        "<td>1320</td></tr>",
        "<tr><th scope='row'>Museum</th><td>1540</td><td>2890</td><td>1765</td><td>1190</td></tr>",
        "<tr><th scope='row'>Sports hall</th><td>3305</td><td>2760</td><td>3490</td>"
        "<td>3615</td></tr>",
        "</tbody></table>",
        f"<p>{deck.para(3)}</p>",
        "<h2>Costs and Income</h2>",
        "<table class='plain'><caption>Table 2. Budget in thousands</caption>",
        "<thead><tr><th>Item</th><th>Budget</th><th>Spent</th><th>Change</th></tr></thead><tbody>",
        "<tr><td>Staff</td><td>812</td><td>798</td><td>-14</td></tr>",
        "<tr><td>Energy</td><td>365</td><td>402</td><td>37</td></tr>",
        "<tr><td>Repairs</td><td>214</td><td>236</td><td>22</td></tr>",
        "<tr><td>Cleaning</td><td>96</td><td>91</td><td>-5</td></tr>",
        "<tr><td>Events</td><td>58</td><td>61</td><td>3</td></tr>",
        "</tbody></table>",
        f"<p>{deck.para(3)}</p>",
    ]
    css = _page_css("Statistics Office", "Quarterly Bulletin")
    return _html("Service Statistics", css, "".join(body),
                 ["Statistics Office", "Quarterly Bulletin", "Page 1"])  # fmt: skip


def columns(deck: _Deck) -> str:
    """A one-page article in two columns with a download stamp in the margin."""
    stamp = "Downloaded from https://archive.example.org on 12 March 2026"
    css = """
@page { size: A4; margin: 20mm 18mm 24mm 18mm;
  @bottom-left { content: "STAMP"; font: 8pt sans-serif; }
  @bottom-right { content: "Journal of Local Studies 14"; font: 9pt sans-serif; } }
.cols { column-count: 2; column-gap: 9mm; }
""".replace("STAMP", stamp)
    paras = [f"<p>{deck.para(3)}</p>" for _ in range(8)]
    body = [
        "<h1>Rivers and Towns in Change</h1>",
        "<div class='cols'>",
        "<h2>Background</h2>",
        *paras[:3],
        "<h2>Observations</h2>",
        *paras[3:6],
        "<h2>Conclusion</h2>",
        *paras[6:],
        "</div>",
    ]
    return _html("Rivers and Towns", css, "".join(body),
                 [stamp, "Journal of Local Studies 14"])  # fmt: skip


_FORMULAS = [
    (r"E = m c^{2}", "<mi>E</mi><mo>=</mo><mi>m</mi><msup><mi>c</mi><mn>2</mn></msup>"),
    (
        r"a^{2} + b^{2} = c^{2}",
        "<msup><mi>a</mi><mn>2</mn></msup><mo>+</mo><msup><mi>b</mi><mn>2</mn></msup><mo>=</mo>"
        "<msup><mi>c</mi><mn>2</mn></msup>",
    ),
    (
        r"f(x) = 2 x^{3} - 3 x^{2} + 1",
        "<mi>f</mi><mo>(</mo><mi>x</mi><mo>)</mo><mo>=</mo><mn>2</mn><msup><mi>x</mi><mn>3</mn>"
        "</msup><mo>-</mo><mn>3</mn><msup><mi>x</mi><mn>2</mn></msup><mo>+</mo><mn>1</mn>",
    ),
    (
        r"y = \alpha + \beta x",
        "<mi>y</mi><mo>=</mo><mi>α</mi><mo>+</mo><mi>β</mi><mi>x</mi>",
    ),
    (
        r"S = \sum_{i=1}^{n} x_{i}",
        "<mi>S</mi><mo>=</mo><munderover><mo>∑</mo><mrow><mi>i</mi><mo>=</mo><mn>1</mn></mrow>"
        "<mi>n</mi></munderover><msub><mi>x</mi><mi>i</mi></msub>",
    ),
]


def math(deck: _Deck) -> str:
    """Display formulas in MathML between paragraphs (each with its TeX as an annotation)."""
    body = ["<h1>Notes on Simple Formulas</h1>", f"<p>{deck.para(3)}</p>"]
    for i, (tex, mathml) in enumerate(_FORMULAS):
        if i == 2:
            body.append("<h2>Polynomials and Sums</h2>")
        body.append(
            f"<math display='block'><semantics><mrow>{mathml}</mrow>"
            f"<annotation encoding='application/x-tex'>{tex}</annotation></semantics></math>"
        )
        body.append(f"<p>{deck.para(2)}</p>")
    css = _page_css("Mathematics Course Notes", "Unit 3")
    return _html("Formulas", css, "".join(body),
                 ["Mathematics Course Notes", "Unit 3", "Page 1"])  # fmt: skip


DOCUMENTS = {"report": report, "tables": tables, "columns": columns, "math": math}
# Layouts whose reading order is the test (magazines, sidebars, three columns: issue 32).
DOCUMENTS.update({name: partial(build, html=_html) for name, build in LAYOUTS.items()})


def print_pdf(html_path: Path, pdf_path: Path) -> None:
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run(
            ["chromium", "--headless", "--no-sandbox", "--disable-gpu",
             f"--user-data-dir={profile}", "--no-pdf-header-footer",
             f"--print-to-pdf={pdf_path}", html_path.as_uri()],
            check=True, capture_output=True, timeout=120,
        )  # fmt: skip


def scan(pdf_path: Path, out_path: Path, rng: random.Random, dpi: int = SCAN_DPI) -> None:
    """Each page rendered grey at `dpi`, turned a little, blurred, noised and saved as JPEG
    inside a PDF: what a flatbed scan of the printout looks like."""
    nprng = np.random.default_rng(rng.randrange(1 << 30))
    out = pymupdf.open()
    with pymupdf.open(pdf_path) as doc:
        for page in doc:
            pix = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY, alpha=False)
            image = Image.frombytes("L", (pix.width, pix.height), pix.samples)
            image = image.rotate(rng.uniform(-1.2, 1.2), resample=Image.BICUBIC, fillcolor=255)
            image = image.filter(ImageFilter.GaussianBlur(rng.uniform(0.5, 0.9)))
            pixels = np.asarray(image, dtype=np.float32)
            pixels += nprng.normal(0, 9, pixels.shape)
            image = Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8))
            buf = io.BytesIO()
            image.save(buf, "JPEG", quality=rng.randint(55, 75), dpi=(dpi, dpi))
            new = out.new_page(width=page.rect.width, height=page.rect.height)
            new.insert_image(new.rect, stream=buf.getvalue())
    out.save(out_path, garbage=3, deflate=True)
    out.close()


def generate(out_dir: Path) -> list[str]:
    out_dir.mkdir(parents=True, exist_ok=True)
    if shutil.which("chromium") is None:
        raise SystemExit("chromium is needed to print the corpus (apt-get install chromium)")
    names = []
    for name, build in DOCUMENTS.items():
        rng = random.Random(f"{SEED}-{name}")
        html_path = out_dir / f"{name}.html"
        html_path.write_text(build(_Deck(rng)), encoding="utf-8")
        pdf_path = out_dir / f"{name}.pdf"
        print_pdf(html_path, pdf_path)
        scan(pdf_path, out_dir / f"{name}.scan.pdf", rng)
        names.append(name)
    return names


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    for name in generate(args.out):
        with pymupdf.open(args.out / f"{name}.pdf") as doc:
            print(f"{name}: {doc.page_count} page(s)")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
