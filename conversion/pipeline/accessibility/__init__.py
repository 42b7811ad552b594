from conversion.pipeline.accessibility.rules import check_document, check_html

__all__ = ["check_document", "check_html"]
