from conversion.pipeline.accessibility.rules import check_html

__all__ = ["check_html"]
