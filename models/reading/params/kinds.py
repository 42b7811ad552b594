"""What a run of text reads as (models.reading.kinds): real words, prose, mathematics."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class KindParams:
    sure_word_confidence: float = 90.0  # Tesseract's confidence of a word read without doubt
    heading_letter_share: float = 0.6  # letters among a heading's visible characters, at least
    heading_word_letters: int = 3  # a heading holds a word of this many letters or more
    capitals_word_letters: int = 4  # words in capitals without one this long are scraps ("PERS A")
    known_word_letters: int = 3  # a word this long or longer is looked up in the dictionary
    heading_confidence: float = 75  # the mean confidence of a heading's words, at least
    heading_known_share: float = 0.6  # dictionary words among a heading's looked-up words
    boxed_sure_share: float = 0.5  # ... or words read surely, in a layout model's heading box
    # ... or, in such a box, every looked-up word a dictionary word, read at this mean
    # confidence at least (Tesseract reads bold print less surely: "1 Introduction" at 74).
    boxed_known_confidence: float = 60.0
    prose_sentence_words: int = 8  # a full stop after this many words ends a sentence, no title
    prose_lead_in_words: int = 6  # a colon after this many words ends a lead-in, no title
    # A line of running text: this many words or more, this share of them with a lower-case
    # letter (a newspaper column's line holds six to eight; a table's row of figures none).
    prose_line_words: int = 5
    prose_line_lower_share: float = 0.6
    term_part_letters: int = 4  # a compound read surely has a part of this many letters
    math_sign_share: float = 0.12  # mathematics: signs at least this share of the characters
    # A line of TeX: words holding a control word ("\def", "\ekvo@loop") are at least this
    # share of its characters (a Chinese slide's "\section{ ik At 36 me *] AE TE}" has 0.38).
    tex_command_share: float = 0.5
    byline_max_words: int = 30  # a line of authors, affiliations or a date is at most this long
    affiliation_max_words: int = 16  # an affiliation, e-mail or date line under a name, at most
    name_max_words: int = 4  # one person's name: at most this many words ("Kola O. Odeku")
    names_listed: int = 3  # this many names in a row are a list of names, initials or not
    marked_name_max_words: int = 3  # one name with an affiliation's mark: at most this many words
    # A word inside a figure read at least this surely (Tesseract's 0-100; a text layer's are
    # 100) is the figure's text (a chart's labels), kept with it; less, a drawing's strokes.
    figure_text_confidence: float = 80


KINDS = KindParams()
