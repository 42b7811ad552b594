"""The ConversionError family: every refusal has a code, an exit status and a message that says
what the person can do about it (after OCRmyPDF's exceptions.py)."""

from __future__ import annotations

import errno


class ConversionError(Exception):
    code = "CONVERSION_FAILED"
    exit_code = 1
    http_status = 422
    default_message = "The document could not be converted."
    # Whose problem it is: True when the file itself is at fault (the person fixes the file),
    # False when the server or an engine failed on a good file (try again, tell the admin).
    caused_by_file = False

    def __init__(self, message: str | None = None, *, page: int | None = None) -> None:
        self.message = message or self.default_message
        self.page = page
        super().__init__(self.message)

    def as_dict(self) -> dict:
        data = {"code": self.code, "message": self.message}
        if self.page is not None:
            data["page"] = self.page
        return data

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


class FileRefused(ConversionError):
    """The file itself is at fault: the person fixes the file (exit status 2 on the command
    line unless a refusal has its own)."""

    caused_by_file = True
    exit_code = 2


class EmptyFile(FileRefused):
    code = "EMPTY_FILE"
    default_message = "The file is empty (0 bytes). Upload the PDF again."


class NotAPdf(FileRefused):
    code = "NOT_A_PDF"
    http_status = 415
    default_message = "The file is not a PDF. Scan or export the document to PDF and try again."


class DamagedPdf(FileRefused):
    code = "PDF_DAMAGED"
    default_message = (
        "The PDF is damaged or truncated and could not be repaired. "
        "Download or export it again and retry."
    )


class EncryptedPdf(FileRefused):
    code = "PDF_ENCRYPTED"
    exit_code = 8  # OCRmyPDF's
    default_message = (
        "The PDF is protected by a password. Remove the password (for example with "
        "the command qpdf --decrypt) and upload it again."
    )


class NoPages(FileRefused):
    code = "NO_PAGES"
    default_message = "The PDF has no pages."


class TooManyPages(FileRefused):
    code = "TOO_MANY_PAGES"
    http_status = 413
    default_message = "The PDF has more pages than this server accepts. Split it and retry."


class FileTooLarge(FileRefused):
    code = "FILE_TOO_LARGE"
    http_status = 413
    default_message = "The file is larger than this server accepts. Split or compress it."


class PageTooLarge(FileRefused):
    code = "PAGE_TOO_LARGE"
    http_status = 413
    default_message = "A page holds an image too large to decode safely."


class InvalidLanguage(ConversionError):
    code = "LANGUAGE_INVALID"
    exit_code = 2
    http_status = 400
    default_message = "The language is not a BCP 47 code such as en, fr or pt-BR."


class LanguageNotInstalled(InvalidLanguage):
    code = "LANGUAGE_NOT_INSTALLED"
    default_message = "This server has no reading model for that language."


class CallbackRefused(ConversionError):
    """A callback URL this server will not call: not http(s), a host not in
    AXIYA_WEBHOOK_ALLOWED_HOSTS, or one that resolves to a private address (no SSRF)."""

    code = "CALLBACK_URL_REFUSED"
    exit_code = 2
    http_status = 400
    default_message = "This server does not call that callback URL."


class EngineUnavailable(ConversionError):
    code = "ENGINE_UNAVAILABLE"
    exit_code = 3
    http_status = 503
    default_message = "The requested reading engine is not available on this server."


class EngineNotOffered(EngineUnavailable):
    """An engine asked for at submission that cannot run here: refused then (422), never
    accepted and failed later."""

    http_status = 422


class EngineFailed(ConversionError):
    code = "ENGINE_FAILED"
    exit_code = 15
    http_status = 500
    default_message = "The reading engine failed on a page. The page was not converted."


class OutputFailed(ConversionError):
    code = "OUTPUT_FAILED"
    exit_code = 5
    http_status = 500
    default_message = "The result could not be written. Check free disk space and permissions."


class PageTimeout(ConversionError):
    code = "PAGE_TIMEOUT"
    exit_code = 16
    http_status = 500
    default_message = "A page took longer than this server allows and was stopped."


class JobTimeout(ConversionError):
    code = "JOB_TIMEOUT"
    exit_code = 17
    http_status = 500
    default_message = "The conversion took longer than this server allows and was stopped."


class EngineCrashed(ConversionError):
    code = "ENGINE_CRASHED"
    exit_code = 18
    http_status = 500
    default_message = (
        "Reading this page stopped the worker several times; the page was given up on."
    )


class DecompressionBomb(FileRefused):
    code = "PDF_BOMB"
    http_status = 413
    default_message = (
        "The PDF holds data that expands to far more than its size allows; it was refused."
    )


class PageTooComplex(FileRefused):
    code = "PAGE_TOO_COMPLEX"
    http_status = 422
    default_message = (
        "A page draws far more nested graphics than any real document; it was refused."
    )


class ServerFault(ConversionError):
    """A failure of this server, not of the file (a reader process that could not start, a
    module that would not load): reported as such, never as a damaged PDF."""

    code = "SERVER_ERROR"
    exit_code = 19
    http_status = 503
    default_message = (
        "The server failed while reading this file; the file is not at fault. Try again later."
    )


class StorageUnavailable(ConversionError):
    """The file store (local disk or S3-compatible object store) failed after its retries:
    the file is not at fault, and nothing half-written is left to serve."""

    code = "STORAGE_UNAVAILABLE"
    exit_code = 20
    http_status = 503
    default_message = (
        "The file store could not be reached; the file is not at fault. Try again later."
    )


class StorageFull(StorageUnavailable):
    """This host's disk (or its quota) is full: an upload could not be kept, and nothing of it
    was."""

    code = "STORAGE_FULL"
    default_message = (
        "The server's disk is full, so the upload could not be kept; the file is not at fault "
        "and nothing of it was kept. Try again later; an administrator frees space in the data "
        "folder (AXIYA_DATA_DIR)."
    )


# The errors a write gets from a full disk, a full quota, or a file size limit (RLIMIT_FSIZE).
DISK_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})


def storage_error(exc: OSError) -> StorageUnavailable:
    """What a failed local write means to the user: a full disk, or a store that failed."""
    return StorageFull() if exc.errno in DISK_FULL_ERRNOS else StorageUnavailable()


def error_class(code: str) -> type[ConversionError]:
    """The error class of a stored error code; ConversionError itself for an unknown code (an
    INTERNAL_ERROR, say), which is never blamed on the file."""
    todo: list[type[ConversionError]] = [ConversionError]
    while todo:
        cls = todo.pop()
        if cls.code == code:
            return cls
        todo.extend(cls.__subclasses__())
    return ConversionError
