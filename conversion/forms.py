from django import forms

from conversion.engines import ENGINES


class UploadForm(forms.Form):
    file = forms.FileField(
        label="PDF file",
        help_text="A scanned PDF. Bad files are refused with a reason.",
        widget=forms.ClearableFileInput(attrs={"accept": "application/pdf,.pdf"}),
    )
    engine = forms.ChoiceField(
        label="Reading engine", choices=[(e, e) for e in ENGINES], required=False
    )
    language = forms.CharField(
        label="Language (optional, e.g. en, fr)", max_length=35, required=False
    )
