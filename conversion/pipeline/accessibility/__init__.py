from conversion.pipeline.accessibility.locate import locate, locate_dicts
from conversion.pipeline.accessibility.rules import check_document, check_html, parse_output

__all__ = ["check_document", "check_html", "locate", "locate_dicts", "parse_output"]
