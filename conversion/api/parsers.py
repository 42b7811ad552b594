"""The API's JSON parser: a body nested deeper than Python's recursion limit (100,000 `[`) is
the client's mistake, a coded 400, never a 500 (issue 29)."""

from __future__ import annotations

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser


class JsonParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError as exc:
            raise ParseError("JSON parse error - the body is nested too deeply.") from exc
