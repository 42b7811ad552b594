"""Model package exporters (torch / transformers / mobius-onnx: export-time only)."""
