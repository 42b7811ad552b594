"""Doubts about a finished document: shapes a wrong reading leaves in its tables and headings,
each a finding of level needs_review whose message says what a reviewer should look at. No
rule here changes the document (issue 31: know when a page is wrong).

- tables: a header row of numbers (data taken for the header), every data row one cell across
  all columns (the columns were not found), a first row that is the table's caption, a caption
  that names another table (the same number twice, or numbers going backwards);
- headings: a person's name, an affiliation or e-mail address, or a date taken for a heading.
"""

from __future__ import annotations

import re

from conversion.pipeline.assemble_params import DOUBTS, DoubtParams
from conversion.pipeline.document import Block, Cell, Document, Finding

# A cell that holds a number: "0.88", "-1.2", "45%", "1,234", "(3.1)"; not a year.
_NUMBER = re.compile(r"^[(\[]?[-+−±]?\d[\d,]*(?:[.,]\d+)?\s*%?[)\]]?[*†‡]*$")
_YEAR = re.compile(r"^(1[6-9]|20)\d\d$")
# "Table 3", "Table 6.2" (a chapter's sixth table's second), "Tab. 4-1", "Table 7. 5" (a text
# layer's space after the point): its number's parts.
_TABLE_NUMBER = re.compile(r"^\s*(?:table|tab\.)\s*(\d+(?:[.-] ?\d+)*)\b", re.I)
_CONTINUED = re.compile(r"\bcont(inued|\.|'d|inuation)?\b|\(cont", re.I)
_AFFILIATION = re.compile(
    r"\b(universit(y|ies|é|ä|at|à|ad|ade|eit)|institute|institut|department|dept\.|"
    r"laborator(y|ies)|faculty|school of|college|hospital|corresponding author|"
    r"correspondence to|e-?mail)\b"
    r"|[\w.+-]+@[\w-]+\.[\w.]+",
    re.I,
)
_MONTHS = (
    r"(jan(uary)?|feb(ruary)?|mar(ch)?|apr(il)?|may|june?|july?|aug(ust)?|sep(t(ember)?)?|"
    r"oct(ober)?|nov(ember)?|dec(ember)?)\.?"
)
_DATE = re.compile(
    rf"\b({_MONTHS}\s+\d{{1,2}}(st|nd|rd|th)?,?\s+\d{{4}}"  # March 3, 2021
    rf"|\d{{1,2}}(st|nd|rd|th)?\s+{_MONTHS},?\s+\d{{4}}"  # 3 March 2021
    r"|\d{4}-\d{2}-\d{2}"  # 2021-03-03
    r"|\d{1,2}[/.]\d{1,2}[/.]\d{2,4})\b",  # 3/3/2021
    re.I,
)
# One name: "Jane", "O'Neil", "Smith-Jones", an initial "J." or "J.-P."; a marker may follow
# ("Smith1", "Doe*", "Roe†").
_NAME_WORD = re.compile(r"^(?:[A-Z][a-z'’-]+|[A-Z]\.(?:-?[A-Z]\.)*)[\d*†‡§¶,]*$")
_INITIAL = re.compile(r"^[A-Z]\.")
_AUTHOR_MARK = re.compile(r"[\d*†‡§¶]$")  # an affiliation's number or a note's sign after a name
_JOINERS = ("and", "&", "und", "et", "y")


def _finding(code: str, message: str, page: int) -> Finding:
    return Finding(code=code, level="needs_review", message=message, page=page)


# -- tables ----------------------------------------------------------------------------------------
def _is_number(text: str) -> bool:
    text = text.strip()
    return bool(_NUMBER.match(text)) and not _YEAR.match(text)


def _header_rows(table: Block) -> list[list[Cell]]:
    """The table's leading rows of header cells (a row header in the first column aside)."""
    rows = []
    for row in table.rows:
        if not any(c.header for c in row[1:]) and not (len(row) == 1 and row[0].header):
            break
        rows.append(row)
    return rows


def numbers_in_header(table: Block, *, params: DoubtParams = DOUBTS) -> bool:
    """A header row after the first holds numbers where its labels should be: data rows read
    as header cells (a screen reader announces a number as the column's name)."""
    for row in _header_rows(table)[1:]:
        cells = [c.text for c in row[1:] if c.header and c.text.strip()]
        if cells and sum(map(_is_number, cells)) >= params.header_number_share * len(cells):
            return True
    return False


def _columns(table: Block) -> int:
    return max((sum(c.colspan for c in row) for row in table.rows), default=0)


def rows_one_cell(table: Block, *, params: DoubtParams = DOUBTS) -> bool:
    """Every data row is one cell across all the columns: the columns were not found."""
    data = [row for row in table.rows if not all(c.header for c in row)]
    width = _columns(table)
    if len(data) < params.spanning_rows_min or width < params.spanning_cols_min:
        return False
    return all(len(row) == 1 and row[0].colspan >= width for row in data)


def caption_in_first_row(table: Block) -> bool:
    """The table's first row reads as a table's caption ("Table 3. ...")."""
    first = " ".join(c.text for c in table.rows[0]) if table.rows else ""
    return bool(_TABLE_NUMBER.match(first))


def _caption_number(table: Block) -> tuple[int, ...] | None:
    """The number a table's caption names; none for a table continued from an earlier page,
    which names its number again."""
    if _CONTINUED.search(table.caption or ""):
        return None
    match = _TABLE_NUMBER.match(table.caption or "")
    return tuple(int(part) for part in re.split(r"[.-] ?", match.group(1))) if match else None


def _named_before(number: tuple[int, ...], earlier: tuple[int, ...]) -> bool:
    """The same number again, or one that comes before it; numbers of another depth ("7"
    against "7.4": a chapter's number read without its table's) do not compare."""
    return len(number) == len(earlier) and number <= earlier


def table_doubts(doc: Document, *, params: DoubtParams = DOUBTS) -> list[Finding]:
    out: list[Finding] = []
    numbered: list[tuple[int, ...]] = []  # the captions' numbers so far
    seen = 0
    for page in doc.pages:
        for table in (b for b in page.blocks if b.kind == "table" and b.rows):
            seen += 1
            name = f"Table {seen} of the document"
            if numbers_in_header(table, params=params):
                out.append(_finding("TABLE_HEADER_NUMBERS",
                    f"{name}'s header rows look like data: a header row holds numbers. Check "
                    "which rows are headers.", page.number))  # fmt: skip
            if rows_one_cell(table, params=params):
                out.append(_finding("TABLE_COLUMNS_LOST",
                    f"{name} has each data row as one cell across all its columns: its "
                    "columns were not found. Compare it with the page image.",
                    page.number))  # fmt: skip
            if caption_in_first_row(table):
                out.append(_finding("TABLE_CAPTION_ROW",
                    f"{name}'s first row looks like its caption: check its caption and rows.",
                    page.number))  # fmt: skip
            number = _caption_number(table)
            if number is not None:
                if any(_named_before(number, earlier) for earlier in numbered):
                    out.append(_finding("TABLE_CAPTION_NUMBER",
                        f"{name}'s caption names Table {'.'.join(map(str, number))}, which an "
                        "earlier caption "
                        "names too or comes after: this caption names another table. Check "
                        "which caption belongs to which table.", page.number))  # fmt: skip
                numbered.append(number)
    return out


# -- headings --------------------------------------------------------------------------------------
def _names(text: str, params: DoubtParams) -> bool:
    """A list of people's names ("Jane Doe, John Smith and A. N. Other") or one name with an
    initial ("John A. Smith"): every word a capitalized name or an initial, and something only
    names carry: an initial, an author's mark ("Smith1", "Doe*") or a list's comma. Two
    capitalized pairs joined by "and" alone read as a section title just as well ("Bus Routes
    and Village Life", "Data Collection and Statistical Analysis")."""
    words = text.replace(",", " , ").split()
    if not 2 <= len(words) <= params.name_max_words or not words[0][:1].isalpha():
        return False
    groups: list[list[str]] = [[]]
    for word in words:
        if word == "," or word.lower() in _JOINERS:
            groups.append([])
        elif _NAME_WORD.match(word):
            groups[-1].append(word)
        else:
            return False
    groups = [g for g in groups if g]
    if any(len(g) < 2 for g in groups):
        return False  # "Results and Discussion": single words joined, no names
    initial = any(_INITIAL.match(w) for g in groups for w in g[:-1])
    marked = "," in text or any(_AUTHOR_MARK.search(w) for g in groups for w in g)
    return initial or (len(groups) >= 2 and marked)


def _date_line(text: str, params: DoubtParams) -> bool:
    """A date and little else ("Received: March 3, 2021")."""
    match = _DATE.search(text)
    if not match:
        return False
    rest = re.findall(r"[^\W\d_]+", text[: match.start()] + " " + text[match.end() :])
    return len(rest) <= params.date_other_words


def _affiliation(text: str, params: DoubtParams) -> bool:
    """An institution named ("University of Oslo", "Department of Physics") or an e-mail
    address; a keyword alone ("Universities", a section on them) names none."""
    match = _AFFILIATION.search(text)
    return bool(match) and (
        "@" in match.group() or len(text.split()) >= params.affiliation_min_words
    )


def heading_doubt(text: str, *, params: DoubtParams = DOUBTS) -> str | None:
    """What a heading's text is instead of a heading, if it reads as something else."""
    if _affiliation(text, params):
        return "an affiliation or address"
    if _date_line(text, params):
        return "a date"
    if _names(text, params):
        return "a person's name"
    return None


def heading_doubts(doc: Document, *, params: DoubtParams = DOUBTS) -> list[Finding]:
    out = []
    for page in doc.pages:
        for block in (b for b in page.blocks if b.kind == "heading"):
            what = heading_doubt(block.text.strip(), params=params)
            if what:
                out.append(_finding("HEADING_NOT_A_HEADING",
                    f'The heading "{block.text.strip()[:60]}" looks like {what}, not a section '
                    "title: check whether it should be a heading.", page.number))  # fmt: skip
    return out


def document_doubts(doc: Document, *, params: DoubtParams = DOUBTS) -> list[Finding]:
    """The findings of every document-wide doubt, in page order."""
    found = table_doubts(doc, params=params) + heading_doubts(doc, params=params)
    return sorted(found, key=lambda f: f.page or 0)
