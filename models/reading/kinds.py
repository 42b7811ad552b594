"""What a run of text reads as: real words a heading can be made of, prose, mathematics, a
caption's label. Plain tests over a text and its words, for every reader's blocks and regions."""

from __future__ import annotations

import re
import statistics

from models.engine import Word
from models.reading.params.kinds import KINDS

_WORD = re.compile(r"[^\W\d_]{2,}")
_TITLE_WORD = re.compile(r"[^\W\d_]+(?:[-'’][^\W\d_]+)*")  # "Hyphenation", "Multi-scale"
_SECTION_NUMBER = re.compile(r"(?:\d{1,2}|[IVX]{1,4}|[A-Z])(?:\.\d{1,2})*\.?")  # "1", "2.1.", "IV."
_LEADING_NUMBER = re.compile(r"^\s*(?:\d{1,2}|[A-Z])(?:\.\d{1,2})+\.?\s+|^\s*\d{1,2}\.?\s+")
MATH_SIGNS = frozenset("=+-−×÷·/^()[]{}<>≤≥∑∏∫√±")
# Signs a program, a markup language, a path or a formula prints and prose does not
# ("\\def\\Or#1#2{", "short=sup1", "user@host", "XeTeX/LuaTeX"). Not "|" or "~": Tesseract
# reads a rule or a speck so.
MARKUP_SIGNS = frozenset("\\{}=@_#<>^/")
MARKUP_WORD = re.compile(r"[^\W\d_]{3,}")
_CONTROL_WORD = re.compile(r"\\[A-Za-z@]{2,}")  # TeX's "\def", "\ekvo@loop"
# A mail or web address ("www.kids.gov" prints no sign of MARKUP_SIGNS).
ADDRESS = re.compile(r"[\w.+{},-]+@[\w.-]+|(?:https?|ftp)://\S+|www\.\S+", re.IGNORECASE)
# A web or mail address as such: a scheme, "www." or a domain with a dot after the "@" (TeX's
# internal macros, "\\ekvo@prepare@unusedoption@c", are none).
WEB_ADDRESS = re.compile(
    r"(?:https?|ftp)://\S+|www\.\S+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+", re.IGNORECASE
)
# A code of capitals and digits, both ("U1503A", "368X", "H2O"): a hole, an expedition, a form.
_CODE = re.compile(r"(?=[A-Z\d]*[A-Z])(?=[A-Z\d]*\d)[A-Z\d]{2,10}")
PROSE_WORD = re.compile(r"[^\W\d_]{4,}")
# Punctuation around a word that is no part of it ("(see", "words.", "“quoted”").
WORD_EDGE = ".,:;!?()[]\"'’”“"
CAPTION_LABEL = re.compile(
    r"^\W*(?:fig(?:ure)?|tab(?:le)?|chart|plate|scheme|graph|map|exhibit|box)s?\b", re.I
)


def real_words(
    words: list[Word], text: str, *, boxed: bool = False, numbered: bool = False
) -> bool:
    """Text a heading can be made of: mostly letters in words of two or more, read with
    confidence (OCR) and, where the engine knows, mostly dictionary words. A section's number
    before the title ("2.1 Data") is no part of the letters' share. `boxed`: the layout model
    drew a heading's box around it, so half its words read surely as dictionary words are
    enough (`boxed_sure_share`): a logo or a name the engine could not read ("Customizing
    Tufte-ETEx", TeX's raised letters read as garbage) does not undo a heading; so are
    dictionary words only, read less surely (`boxed_known_confidence`: bold print on a scan),
    and so is a numbered title of words read at `heading_confidence` (its section number in
    `text`, or `numbered`: a list item's marker): the number and the box say heading where the
    dictionary does not know its word ("4 Hyphenation" at 77, a Hungarian chapter's "1.
    fejezet" at 88; a garbled "3.1 Cornplexitv" is read at 64)."""
    titled = _LEADING_NUMBER.sub("", text, count=1) or text
    letters = sum(c.isalpha() for c in titled)
    visible = sum(not c.isspace() for c in titled) or 1
    tokens = _WORD.findall(text)
    if (
        letters / visible < KINDS.heading_letter_share
        or not tokens
        or max(len(t) for t in tokens) < KINDS.heading_word_letters
    ):
        return False
    if any(t.isupper() for t in tokens) and not any(
        len(t) >= KINDS.capitals_word_letters for t in tokens
    ):
        return False  # "PERS A" or "ST": scraps of capitals
    if words:
        # A section's number ("1", "2.1" before "Introduction") is no dictionary word and is
        # read with little confidence when it stands alone: it says nothing of the title.
        titled = [w for w in words if not _SECTION_NUMBER.fullmatch(w.text)] or words
        if boxed and _half_sure(titled):
            return True
        confidence = statistics.mean(w.confidence for w in titled)
        if (
            boxed
            and (numbered or len(titled) < len(words))
            and confidence >= KINDS.heading_confidence
            and all(_TITLE_WORD.fullmatch(w.text) for w in titled)
        ):
            return True
        known = [
            _known(w)
            for w in titled
            if w.known is not None and len(w.text) >= KINDS.known_word_letters
        ]
        if boxed and known and all(known) and confidence >= KINDS.boxed_known_confidence:
            return True
        if confidence < KINDS.heading_confidence:
            return False
        if known and sum(known) < KINDS.heading_known_share * len(known):
            return False
    return True


def _half_sure(words: list[Word]) -> bool:
    """`boxed_sure_share` of the words long enough to look up read surely as dictionary words."""
    looked = [w for w in words if len(w.text) >= KINDS.known_word_letters]
    sure = [w for w in looked if w.known and w.confidence >= KINDS.sure_word_confidence]
    return bool(looked) and len(sure) >= KINDS.boxed_sure_share * len(looked)


# An institution written as affiliations are: "University of Leeds", "Department of Physics",
# "Leeds University", "Max Planck Institut", "Acme Inc.".
_INSTITUTION = re.compile(
    r"\b(?:universit(?:y|ies|é|ät|at|à|ad|ade)|institut(?:e|o)?|department|dept\.|laborator(?:y|ies)"
    r"|school|college|faculty|facult[ée]|cent(?:re|er)|academy|hospital|ministry)"
    r"\s+(?:of|for|de|di|du|des|für|der|d')\b"
    r"|\b[A-Z][\w-]+\s+(?:University|Institute|College|Laboratory|Hospital)\b"
    r"|\b(?:Inc\.|Ltd\.?|GmbH|LLC|S\.A\.)(?:\W|$)",
    re.IGNORECASE,
)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\be-?mail\b", re.IGNORECASE)
_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
# A line that is a date and nothing else: "March 3, 2024", "3 March 2024", "2024-03-03".
_DATE = re.compile(
    r"^(?:(?:date|dated|received|accepted|published|revised|version|draft|preprint|submitted"
    r"|updated|compiled|this\s+version|last\s+(?:revised|updated|modified))\W*(?:on\s+|of\s+)?)?"
    r"(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day,?\s+)?"
    rf"(?:{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}|\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH},?\s+\d{{4}}"
    rf"|{_MONTH},?\s+\d{{4}}|\d{{4}}-\d{{2}}-\d{{2}}|\d{{1,2}}[./]\d{{1,2}}[./]\d{{2,4}})\W*$",
    re.IGNORECASE,
)
# One word of a person's name: a capitalised word (or one in capitals: "SOFIA TANAKA", as a
# class sets the authors), an initial ("O.", "J.-P."), a particle, with the marks that point
# to an affiliation ("Chen1", "Diaz*", "Odeku†").
_NAME_WORD = re.compile(
    r"(?:[A-Z][a-z'’-]+[\d*†‡§¶]*|[A-Z][A-Z'’-]+[\d*†‡§¶]*|[A-Z]\.(?:-?[A-Z]\.)?"
    r"|van|von|de|der|da|di|le|la),?"
)
_INITIAL = re.compile(r"[A-Z]\.(?:-?[A-Z]\.)?,?")
_NAME_MARK = re.compile(r"[a-z][\d*†‡§¶]+,?$")
# Words that name a division of a document, before its number or letter: no first names.
_DIVISION = re.compile(r"(?:appendix|annex|part|chapter|section|book|volume|table|figure),?", re.I)
_NAME_SEPARATORS = re.compile(r"\s*(?:,|;|\band\b|&|\bund\b|\bet\b)\s*", re.IGNORECASE)


def reads_as_byline(text: str) -> bool:
    """A line of a paper's or a report's front matter that is no heading however it is set:
    an affiliation ("Department of Computer Science, University of Leeds"), an e-mail
    address, a date ("March 3, 2024"), or names ("Kola O. Odeku", "Alice Martin1, Bob Chen2
    and Carol Diaz": names with an initial or an affiliation's mark, or three names or more
    in a row; two capitalised words alone, "Related Work", are no evidence)."""
    text = " ".join(text.split())
    if not text or len(text.split()) > KINDS.byline_max_words:
        return False
    if _INSTITUTION.search(text) or _EMAIL.search(text) or _DATE.match(text):
        return True
    return _names(text)


def reads_as_affiliation(text: str) -> bool:
    """An institution, an e-mail address or a date, in a short line (`affiliation_max_words`):
    what a paper prints under an author's name ("Department of Physics, Kyoto University",
    "chen@example.org")."""
    text = " ".join(text.split())
    if len(text.split()) > KINDS.affiliation_max_words:
        return False  # a paragraph that names an address or a university in passing
    return bool(_INSTITUTION.search(text) or _EMAIL.search(text) or _DATE.match(text))


def reads_as_name(text: str) -> bool:
    """One person's name and nothing else ("Kenji Chen", "Kola O. Odeku"): two to
    `name_max_words` name words. Alone no evidence (two capitalised words are "Related Work"
    too): see `conversion.pipeline.headings.no_bylines`, which asks what follows it."""
    words = text.split()
    return 2 <= len(words) <= KINDS.name_max_words and all(_NAME_WORD.fullmatch(w) for w in words)


def reads_as_names(text: str) -> bool:
    """People's names and nothing else: one (`reads_as_name`), or several joined by commas
    and "and" in capitals ("SOFIA OKAFOR AND MARIA OKAFOR", as AMS classes set a byline; a
    title in title case, "Bus Routes and Village Life", reads as two names too). Alone no
    evidence, as `reads_as_name`."""
    text = " ".join(text.split())
    parts = [p for p in _NAME_SEPARATORS.split(text) if p]
    if len(parts) > 1 and not text.isupper():
        return False
    return bool(parts) and all(reads_as_name(p) for p in parts)


# A field of a paper's front matter, named and filled in: "Keywords: ...", "Index Terms—...",
# "CCS Concepts: ...", "ACM Reference Format:", "MSC: ...". Set bold, it is no heading.
_FRONT_FIELD = re.compile(
    r"^(?:key\s?words|index\s+terms|ccs\s+concepts|(?:acm\s+)?reference\s+format"
    r"|(?:ams\s+|mathematics\s+)?subject\s+classification|msc|pacs|jel(?:\s+codes?)?)"
    r"\s*(?:[:\u2014\u2013]|-\s|\.\s)",
    re.IGNORECASE,
)
# Arrows, and what a scan reads of a diagram's arrows and boxes' sides: a sign standing alone
# ("|", "->", ">"). A line of labels with two or more of them between its words is a diagram's.
_ARROW = re.compile(r"[\u2190-\u21ff\u27f5-\u27ff]|(?:^|(?<=\s))(?:\||[-\u2014=]*>)(?=\s|$)")


def reads_as_front_field(text: str) -> bool:
    """A front-matter field and its value, or its name over it ("Reference Format:")."""
    return bool(_FRONT_FIELD.match(text.strip() + " "))


def reads_as_diagram(text: str) -> bool:
    """Labels joined by arrows ("Encoder → Decoder → Loss"), or boxed and joined as a scan
    reads them ("Input | — | Encoder | + | Sampler"): a diagram's line, no heading."""
    return len(_ARROW.findall(text)) >= 2


def _names(text: str) -> bool:
    """Names only, and a sign they are names: an initial inside a name ("Kola O. Odeku"), an
    affiliation's mark ("Chen2"), initials in two names or more ("A. Martin, B. Chen"), or
    three names or more. A lettered section ("B. Results", "Appendix A. Proofs") is none."""
    parts = [p for p in _NAME_SEPARATORS.split(text) if p]
    words = [p.split() for p in parts]
    if not parts or any(
        not 2 <= len(w) <= KINDS.name_max_words
        or not all(_NAME_WORD.fullmatch(t) for t in w)
        or _DIVISION.fullmatch(w[0])
        for w in words
    ):
        return False
    middle = any(_INITIAL.fullmatch(t) for w in words for t in w[1:-1])
    # a mark tells on a name of at most `marked_name_max_words`, or in a list of names: a
    # title of four capitalised words with a footnote's star is no name
    marked = any(_NAME_MARK.search(t) for w in words for t in w) and (
        len(parts) > 1 or len(words[0]) <= KINDS.marked_name_max_words
    )
    initialled = sum(bool(_INITIAL.fullmatch(w[0])) for w in words)
    return middle or marked or initialled >= 2 or len(parts) >= KINDS.names_listed


# A reference's label: "[12]", "[Smi20]" (bracketed: a reference and nothing else), or "12."
# and "(12)" before the entry (a list's numbers too: the entry must hold a year).
_BRACKET_LABEL = re.compile(r"^(?:\[\d{1,3}\]|\[[A-Z][A-Za-z+]{1,6}\d{2,4}[a-z]?\])\s*")
_NUMBER_LABEL = re.compile(r"^(?:\(\d{1,3}\)|\d{1,3}\.)\s+")
# An author-year entry's opening: a surname, a comma, initials or a first name ("Tufte, E. R.",
# "van Dijk, Anna", "Knuth, D."), or a surname and initials without the comma ("Knuth DE,").
_AUTHOR_OPENING = re.compile(
    r"^(?:(?:van|von|de|da|del|der|di|du|le|la)\s)?[A-Z][\w'’-]+(?:\s[A-Z][\w'’-]+)?"
    r"(?:,\s+(?:[A-Z]\.|[A-Z][a-z]+)|\s+[A-Z]{1,3}[,.])"
)
_YEAR = re.compile(r"\b(?:1[5-9]|20)\d{2}[a-z]?\b")


def reference_opening(text: str) -> str | None:
    """How a line opens a bibliography entry: "label" ("[12] ...", "[Smi20] ..."), "number"
    ("12. ...", "(12) ..."), "author" ("Tufte, E. R. ..."); None for any other line. A number
    or an author opening is an entry only where the entry holds a year (`has_year`)."""
    text = text.strip()
    if _BRACKET_LABEL.match(text):
        return "label"
    if _NUMBER_LABEL.match(text):
        return "number"
    if _AUTHOR_OPENING.match(text):
        return "author"
    return None


def label_word(text: str) -> bool:
    """The word is a bibliography entry's label and nothing more ("[12]", "[Smi20]")."""
    match = _BRACKET_LABEL.match(text)
    return bool(match) and match.end() == len(text)


def has_year(text: str) -> bool:
    return bool(_YEAR.search(text))


# Source code: a TeX command ("\\newthought{...}", "\\maketitle"), braces, or an assignment.
_CODE_LINE = re.compile(r"\\[A-Za-z@]{2,}|[{}]|^\s*[%#]|:=|==|;\s*$")


def reads_as_code(text: str) -> bool:
    """A line of source code printed in a manual ("\\section{Headings}", "\\maketitle"): no
    heading, whatever its size."""
    return bool(_CODE_LINE.search(text))


def prose_line(texts: list[str]) -> bool:
    """The words of a line read as running text: `prose_line_words` of them or more, most with
    a lower-case letter."""
    lower = sum(any(c.islower() for c in t) for t in texts)
    return len(texts) >= KINDS.prose_line_words and lower >= KINDS.prose_line_lower_share * len(
        texts
    )


def runs_on(above: str, text: str) -> bool:
    """The line `text` goes on with the line `above`, both running text: a sentence broken
    mid-way, the next line starting in lower case, or a word broken by a hyphen."""
    if not above or not text or not prose_line(text.split()):
        return False
    if above.endswith("-") and text[0].isalpha():
        return True
    return prose_line(above.split()) and above[-1] not in ".:;!?" and text[0].islower()


def joined_lines(texts: list[str]) -> str:
    """Lines of one text joined by spaces, a word hyphenated at a line's end mended
    ("under-" / "graduate only": "undergraduate only")."""
    text = ""
    for line in texts:
        if text.endswith("-") and len(text) > 1 and text[-2].isalpha() and line[:1].islower():
            text = text[:-1] + line
        else:
            text = f"{text} {line}" if text else line
    return text


def reads_as_prose(text: str) -> bool:
    """A sentence or a lead-in, however it is set: words mostly in lower case, and a full stop
    after eight words or more ("You do not need to print and submit these guidelines with
    your application form."), or a colon after six or more ("This application is made up of
    four parts:"). A title's first line may end with a colon ("Employee's Perception of
    Fairness of Advancement:" over its subtitle), a title in capitals with a full stop."""
    words = [w for w in text.split() if not _SECTION_NUMBER.fullmatch(w)]
    if sum(w[0].islower() for w in words) < 0.5 * len(words):
        return False
    text = text.rstrip()
    sentence = text.endswith(".") and len(words) >= KINDS.prose_sentence_words
    # A sentence that ends inside the text, the next one going on ("... specify the right
    # attribute only. The same holds for": a side note's lines cut off mid-sentence).
    # A word in lower case ends it: "U.S." or "Vol." is no sentence's end.
    inside = (KINDS.prose_sentence_words - 1 <= k < len(words) - 1 and words[k].endswith(".")
              and words[k][:-1].isalpha() and words[k][:-1].islower()
              and words[k + 1][0].isupper() for k in range(len(words)))  # fmt: skip
    return (
        sentence or any(inside) or (text.endswith(":") and len(words) >= KINDS.prose_lead_in_words)
    )


def _known(word: Word) -> bool:
    """In the dictionary, or a word read with full confidence whose parts are words or numbers
    and one a word of four letters or more: a title's terms of art and compounds ("Pubertal
    development in TS", "2-Cube", "base-ionic") are no dictionary words, nor are codes of
    capitals and digits ("Hole U1503A"), and garbage is never read so surely."""
    if word.known:
        return True
    if word.confidence < KINDS.sure_word_confidence:
        return False
    stripped = word.text.strip(WORD_EDGE)
    if _CODE.fullmatch(stripped):
        return True  # "U1503A", "368X": a code read surely is no misreading
    parts = stripped.split("-")
    return all(_WORD.fullmatch(p) or p.isdigit() for p in parts) and any(
        len(p) >= KINDS.term_part_letters and p.isalpha() for p in parts
    )


def markup_line(text: str) -> bool:
    """A line of computer text: it prints a sign of MARKUP_SIGNS or an address, and a word of
    letters (a name, a command). Signs among letters or figures alone ("<g =", "2 = ge a 5")
    are what Tesseract reads in a chart's marks."""
    coded = any(c in MARKUP_SIGNS for c in text) or ADDRESS.search(text) is not None
    return coded and MARKUP_WORD.search(text) is not None


def tex_line(text: str) -> bool:
    """A line of TeX source ("\\documentclass [EJP] {ejpecp}", "103. ~=\\fp@cleanreg{#1}}"):
    words holding a control word (a backslash, then two letters or more) make
    KINDS.tex_command_share of its characters or more. Scraps of a drawing, a stamp or a
    script read with English seldom hold one, and never as most of a line."""
    words = text.split()
    chars = sum(map(len, words))
    commands = sum(len(w) for w in words if _CONTROL_WORD.search(w))
    return chars > 0 and commands >= KINDS.tex_command_share * chars


def is_figure(text: str) -> bool:
    """Digits and signs, no letter ("45.4", "1 000", "-73.5"): a figure, in no dictionary."""
    return any(c.isdigit() for c in text) and not any(c.isalpha() for c in text)


def math_signs(text: str) -> bool:
    """Signs enough for mathematics: an equals sign or two signs, and signs a share of the
    characters (a sentence with a dash or a bracket has few)."""
    chars = [c for c in text if not c.isspace()]
    signs = sum(c in MATH_SIGNS for c in chars)
    return ("=" in text or signs >= 2) and signs >= KINDS.math_sign_share * len(chars)


def figure_text(words: list[Word]) -> list[Word]:
    """The words printed inside a figure (a chart's axes and legend, a diagram's labels, an
    advertisement's lines) that read as text: read surely, with a letter or a digit. They stay
    the figure's, never lost: a screen reader reads them with it."""
    return [
        w for w in words
        if w.confidence >= KINDS.figure_text_confidence and any(c.isalnum() for c in w.text)
    ]  # fmt: skip
