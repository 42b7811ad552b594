"""Page reading: words and lines in; blocks with their kinds, tables, lists, headings, math and
reading order out. What every engine's page goes through after its words are read, and the
born-digital reader (textlayer, math_text), which reads words from a PDF's text layer instead.

No engine below this package: an engine reads words, this package makes a page of them. Its one
Tesseract call, a few crops that check an old OCR layer, goes through models.ocr.lines, which
builds no engine. conversion.pipeline imports this package, never an engine (models.ocr,
models.gemma): pyproject's import-linter contracts.
Nothing is imported here, so that importing one module loads only what it needs.
"""
