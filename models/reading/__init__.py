"""Page reading: words and lines in; blocks with their kinds, tables, lists, headings, math and
reading order out. What every engine's page goes through after its words are read, and the
born-digital reader (textlayer, math_text), which reads words from a PDF's text layer instead.

No engine below this package (models.ocr, models.gemma): an engine reads words, this package
makes a page of them; conversion.pipeline imports it, never an engine (pyproject's contracts).
Nothing is imported here, so that importing one module loads only what it needs.
"""
