from __future__ import annotations

from collections.abc import Iterable

from django import forms

from axiya.config import config
from conversion import selectors
from conversion.engines import ENGINES, available_engines, engine_label
from conversion.languages import clean_language, installed_languages
from conversion.models import JobStatus, ReviewState
from conversion.pipeline.errors import ConversionError


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    """Several files in one field (Django's documented pattern)."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("widget", MultipleFileInput())
        super().__init__(*args, **kwargs)

    def clean(self, data, initial=None):
        """Every chosen file, each checked later on its own (runner.job_create): an empty or
        broken file is reported by name beside the others, never instead of them."""
        files = [d for d in (data if isinstance(data, list | tuple) else [data]) if d]
        if not files:
            return super().clean(None, initial)  # "Choose at least one PDF file"
        return files


def _engine_choices(blank: str, engines: Iterable[str]) -> list[tuple[str, str]]:
    return [("", blank), *((e, engine_label(e)) for e in engines)]


def _engine_field(*, label: str, blank: str) -> forms.ChoiceField:
    """An optional choice of engine by its readable name; `blank` (the empty choice) for none."""
    return forms.ChoiceField(label=label, choices=_engine_choices(blank, ENGINES), required=False)


class UploadForm(forms.Form):
    files = MultipleFileField(
        label="PDF files",
        error_messages={"required": "Choose at least one PDF file to convert."},
        widget=MultipleFileInput(attrs={"accept": "application/pdf,.pdf"}),
    )
    engine = _engine_field(label="Reading engine", blank="Server default")
    language = forms.CharField(
        label="Language of the document",
        help_text="The languages this server reads. Leave it on “Detect” to find it out.",
        max_length=35,
        required=False,
    )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # Only what can run here is offered (an engine without its model is not).
        self.fields["engine"].choices = _engine_choices("Server default", available_engines())
        # A list of the installed Tesseract packs; a text box where none is found (any BCP 47
        # code is accepted then). A posted value is checked either way (clean_language).
        installed = installed_languages()
        attrs = {"aria-describedby": "language-help"}
        if installed:
            choices = [("", "Detect"), *((code, f"{name} ({code})") for code, name in installed)]
            self.fields["language"].widget = forms.Select(choices=choices, attrs=attrs)
        else:
            self.fields[
                "language"
            ].help_text = "A code such as en, fr or de. Leave empty to detect it."
            self.fields["language"].widget.attrs.update(attrs, autocomplete="off")

    def clean_language(self) -> str:
        try:
            return clean_language(self.cleaned_data.get("language")) or ""
        except ConversionError as exc:
            raise forms.ValidationError(exc.message, code=exc.code) from exc

    @property
    def files_help(self) -> str:
        return (
            "Choose one or more scanned PDFs, or drop them on this box. "
            f"Up to {config().limits.max_upload_mb} MiB and {config().limits.max_pages} pages each."
        )


class ReviewFilterForm(forms.Form):
    status = forms.ChoiceField(
        label="Status",
        choices=[
            ("needs_review", "Needs review"),
            ("done", "Done"),
            ("failed", "Failed"),
            ("all", "Any finished"),
        ],  # fmt: skip
        required=False,
        initial="needs_review",
    )
    engine = _engine_field(label="Engine", blank="Any")
    findings = forms.ChoiceField(
        label="Findings",
        choices=[
            ("", "Any"),
            ("errors", "With errors"),
            ("needs_review", "With items to review"),
            ("warnings", "With warnings"),
            ("none", "None"),
        ],  # fmt: skip
        required=False,
    )
    state = forms.ChoiceField(
        label="Review",
        choices=[
            ("pending", "Not reviewed"),
            (ReviewState.APPROVED, "Approved"),
            (ReviewState.REJECTED, "Rejected"),
            ("any", "Any"),
        ],  # fmt: skip
        required=False,
        initial="pending",
    )

    def queue(self):
        data = self.cleaned_data if self.is_valid() else {}
        state = data.get("state") or "pending"
        return selectors.review_queue(
            status=data.get("status") or JobStatus.NEEDS_REVIEW,
            engine=data.get("engine") or None,
            findings=data.get("findings") or None,
            state={"pending": "", "any": None}.get(state, state),
        )


class AltTextForm(forms.Form):
    figure = forms.CharField(max_length=120, widget=forms.HiddenInput)
    alt = forms.CharField(
        label="Alt text", max_length=2000, widget=forms.Textarea(attrs={"rows": 2})
    )
    # Set by the confirmation step: save even though the checks refuse the text.
    confirm = forms.BooleanField(required=False)


class PageHtmlForm(forms.Form):
    html = forms.CharField(
        label="Page HTML",
        help_text="Sanitized again on save: scripts, styles and outside links are removed.",
        widget=forms.Textarea(attrs={"rows": 14, "spellcheck": "false"}),
        strip=False,
    )
    # Set by the confirmation step: save even though the edit breaks the checks.
    confirm = forms.BooleanField(required=False)


class BlockEditForm(forms.Form):
    """One structured edit of one block (conversion.review_structure): which edit, the block
    as the person saw it, and the edit's own field."""

    op = forms.ChoiceField(
        choices=[(op, op) for op in ("level", "headers", "caption", "join", "split", "up", "down")]
    )
    fingerprint = forms.CharField(max_length=64)
    level = forms.TypedChoiceField(
        choices=[(0, "Paragraph")] + [(n, f"Heading level {n}") for n in range(1, 7)],
        coerce=int, required=False, empty_value=None,
    )  # fmt: skip
    header_row = forms.BooleanField(required=False)
    row_headers = forms.BooleanField(required=False)
    caption = forms.CharField(max_length=500, required=False)
    words = forms.CharField(max_length=500, required=False)
    confirm = forms.BooleanField(required=False)


class DecisionForm(forms.Form):
    decision = forms.ChoiceField(
        choices=[("approve", "Approve"), ("reject", "Reject"), ("rerun", "Re-run")]
    )
    note = forms.CharField(label="Note (optional)", max_length=2000, required=False)
    # Set by the confirmation step: approve even though findings are still open.
    confirm = forms.BooleanField(required=False)
