from models.ocr.engine import TesseractEngine

__all__ = ["TesseractEngine"]
