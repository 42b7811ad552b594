"""python manage.py convert IN.pdf [IN2.pdf ...] --out DIR [--engine ocr|gemma] [--formats LIST]

No server, no database: the conversion flow (conversion.pipeline.flow) runs in this process, the
PDF opened only in isolated children as on the site. Writes DIR/<stem>.html, <stem>_files/,
<stem>.report.json and <stem>.report.html; `--formats html,epub,pdf` adds <stem>.epub and
<stem>.pdf beside them (made from the HTML; report.json's `formats` says what each holds).
Exit 0 when every document converted; otherwise the exit code of the first failure and one line
per failed document.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from urllib.parse import quote

from django.core.management.base import BaseCommand, CommandParser
from tqdm import tqdm

from conversion.engines import ENGINES, get_engine
from conversion.languages import clean_language
from conversion.notice import notice_html, with_notice
from conversion.options import convert_options
from conversion.pipeline.convert import convert_pdf
from conversion.pipeline.errors import ConversionError
from conversion.pipeline.formats import FORMATS, parse_formats, write_formats

WARN_CODES = ("BLANK_DOCUMENT", "PDF_REPAIRED")


class Command(BaseCommand):
    help = "Convert scanned PDFs into accessible HTML (DIR/<stem>.html, _files/, .report.json)."
    requires_system_checks: list = []
    requires_migrations_checks = False

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("pdfs", nargs="+", type=Path, metavar="IN.pdf")
        parser.add_argument("--out", type=Path, required=True, metavar="DIR")
        parser.add_argument("--engine", choices=ENGINES, default=None)
        parser.add_argument("--language", default=None, help="BCP 47 code; detected if unset")
        parser.add_argument(
            "--formats",
            default="html",
            help=f"comma-separated, of {','.join(FORMATS)} (html is always written)",
        )
        parser.add_argument("--no-progress", action="store_true")

    def handle(self, *args, **options) -> None:
        out_dir: Path = options["out"]
        first_failure = 0
        try:
            language = clean_language(options["language"])  # as the site checks it
            engine = get_engine(options["engine"])
        except ConversionError as exc:
            self.stderr.write(f"error {exc.code}: {exc.message}")
            sys.exit(exc.exit_code)
        try:
            formats = parse_formats(options["formats"])
        except ConversionError as exc:
            self.stderr.write(f"error {exc.code}: {exc.message}")
            sys.exit(exc.exit_code)
        opts = convert_options(language=language, engine=engine.name)
        for pdf in options["pdfs"]:
            bar = None
            if not options["no_progress"]:
                bar = tqdm(total=None, desc=pdf.name, unit="page", file=sys.stderr, leave=True)

            def on_page(done: int, total: int, bar=bar) -> None:
                if bar is not None:
                    bar.total = total
                    bar.update(done - bar.n)

            try:
                if not pdf.is_file():
                    raise ConversionError(f"{pdf} does not exist or is not a file.")
                result = convert_pdf(pdf, out_dir, engine, opts, on_page=on_page)
                made = write_formats(out_dir, pdf.stem, formats)
            except ConversionError as exc:
                if bar is not None:
                    bar.close()
                self.stderr.write(f"{pdf}: error {exc.code}: {exc.message}")
                first_failure = first_failure or exc.exit_code
                continue
            if bar is not None:
                bar.close()
            _add_notice(result.html_path, result.report)
            summary = result.report["summary"]
            pages, errors = result.report["pages"], summary["errors"]
            self.stdout.write(
                f"{pdf} -> {result.html_path} ({pages} page{'s' if pages != 1 else ''}, "
                f"{errors} error{'s' if errors != 1 else ''}, "
                f"{summary['needs_review']} to review)"
            )
            for fmt in made:
                self.stdout.write(f"  {fmt}: {out_dir / f'{pdf.stem}.{fmt}'}")
            for finding in result.report["findings"]:
                if finding["code"] in WARN_CODES:
                    self.stdout.write(f"  warning {finding['code']}: {finding['message']}")
        if first_failure:
            sys.exit(first_failure)


def _add_notice(html_path: Path, report: dict) -> None:
    """Nobody reviews on the command line: a document with open findings opens with the notice
    the site's downloads carry (conversion/notice.py), so both give the same bytes."""
    report_href = quote(html_path.with_suffix(".report.html").name)
    notice = notice_html(report.get("findings", []), report_href=report_href)
    if not notice:
        return
    staged = html_path.with_name(html_path.name + ".tmp")
    staged.write_text(with_notice(html_path.read_text(encoding="utf-8"), notice), encoding="utf-8")
    os.replace(staged, html_path)
