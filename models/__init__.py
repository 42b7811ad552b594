"""Axiya's ML runtime: page engines, the Gemma 4 onnxruntime runtime, the exporter.

No Django imports anywhere below this package: it must import and benchmark on a bare GPU host.
"""
