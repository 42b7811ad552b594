"""Gemma 4 E2B IT on onnxruntime: package loading, image processing, prompt, batched generation.

Runtime dependencies: onnxruntime, numpy, tokenizers, Pillow. Nothing here downloads anything.
"""

from models.gemma.decoder import Decoder, Generation, PageRequest
from models.gemma.package import Package, PackageError, load_package
from models.gemma.runtime import GemmaRuntime

__all__ = [
    "Decoder",
    "GemmaRuntime",
    "Generation",
    "Package",
    "PackageError",
    "PageRequest",
    "load_package",
]
