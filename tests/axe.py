"""axe-core in headless Chromium: the WCAG 2.2 AA rule set run against a rendered output file.
Tests only (the product never runs a browser): tests/browser and tests/pipeline use it.

One browser per process (launching Chromium costs ~1 s); each check gets a fresh context so pages
never share state. axe's `violations` become errors and its `incomplete` results needs-review
findings: a machine could not decide them, a person must (../shared/docs/accessibility.md).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

from conversion.pipeline.document import Finding

AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]
# Experimental rules axe leaves off by default; the target enables them.
EXPERIMENTAL_RULES = ["p-as-heading", "td-has-header", "table-fake-caption"]
AXE_OPTIONS: dict[str, Any] = {
    "runOnly": {"type": "tag", "values": AXE_TAGS},
    "rules": {rule: {"enabled": True} for rule in EXPERIMENTAL_RULES},
    "resultTypes": ["violations", "incomplete"],
}
CHROMIUM = os.environ.get("AXIYA_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
# WCAG criterion from axe's tags: "wcag143" -> "1.4.3".
_SC_TAG_PREFIX = "wcag"


def _axe_source() -> str:
    from axe_playwright_python.base import AXE_FILE_PATH

    return Path(AXE_FILE_PATH).read_text(encoding="utf-8")


def _criterion(tags: list[str]) -> str | None:
    for tag in tags:
        digits = tag[len(_SC_TAG_PREFIX) :]
        if tag.startswith(_SC_TAG_PREFIX) and digits.isdigit() and len(digits) >= 3:
            return f"{digits[0]}.{digits[1]}.{digits[2:]}"
    return None


@dataclass
class AxeResult:
    url: str
    violations: list[dict] = field(default_factory=list)
    incomplete: list[dict] = field(default_factory=list)
    rules_run: list[str] = field(default_factory=list)

    @property
    def violation_count(self) -> int:
        return sum(len(v["nodes"]) for v in self.violations)

    def summary(self) -> str:
        return "; ".join(
            f"{v['id']} ({v.get('impact')}): "
            + ", ".join(
                " ".join(n["target"]) if isinstance(n["target"], list) else str(n["target"])
                for n in v["nodes"][:3]
            )
            for v in self.violations
        )

    def findings(self) -> list[Finding]:
        out: list[Finding] = []
        for level, results in (("error", self.violations), ("needs_review", self.incomplete)):
            for rule in results:
                for node in rule["nodes"]:
                    target = node.get("target") or []
                    out.append(
                        Finding(
                            code=f"AXE_{rule['id'].upper().replace('-', '_')}",
                            level=level,  # type: ignore[arg-type]
                            message=f"axe {rule['id']}: {rule.get('help', '')}",
                            criterion=_criterion(rule.get("tags", [])),
                            element=" ".join(str(t) for t in target) or None,
                        )
                    )
        return out


class AxeRunner:
    """`with AxeRunner() as axe: axe.check(path)`; also measures reflow at a given width."""

    def __init__(self, *, executable: str = CHROMIUM, browser: Any = None) -> None:
        """browser: a Playwright Browser already running (the tests' session one), used and
        left open; without it the runner launches its own and closes it on exit."""
        self.executable = executable
        self._pw = None
        self._browser = browser
        self._owned = browser is None
        self._axe = _axe_source()

    def __enter__(self) -> Self:
        if self._owned:
            from playwright.sync_api import sync_playwright

            self._pw = sync_playwright().start()
            self._browser = self._pw.chromium.launch(
                executable_path=self.executable, args=CHROMIUM_ARGS, headless=True
            )
        return self

    def __exit__(self, *exc: object) -> None:
        if self._owned and self._browser is not None:
            self._browser.close()
        if self._pw is not None:
            self._pw.stop()

    def _page(self, url: str, width: int, height: int):
        # bypass_csp: the output forbids every script by CSP; axe is injected by the test only.
        context = self._browser.new_context(  # type: ignore[union-attr]
            viewport={"width": width, "height": height}, bypass_csp=True, java_script_enabled=True
        )
        page = context.new_page()
        page.goto(url, wait_until="load")
        return context, page

    def check(self, target: str | Path, *, width: int = 1280, height: int = 900) -> AxeResult:
        url = _url(target)
        context, page = self._page(url, width, height)
        try:
            page.evaluate(self._axe)
            raw = page.evaluate(f"axe.run(document, {json.dumps(AXE_OPTIONS)})")
        finally:
            context.close()
        rules_run = [
            r["id"]
            for key in ("passes", "violations", "incomplete", "inapplicable")
            for r in raw.get(key, [])
        ]
        return AxeResult(
            url=url,
            violations=raw["violations"],
            incomplete=raw["incomplete"],
            rules_run=rules_run,
        )

    def overflow(self, target: str | Path, *, width: int = 320, height: int = 640) -> dict:
        """Horizontal overflow at `width` CSS px: the page's and any element's outside tables."""
        return self.evaluate(target, OVERFLOW_JS, width=width, height=height)

    def evaluate(self, target: str | Path, script: str, *, width: int = 1280, height: int = 900):
        """Run a JavaScript expression in the loaded page (tests measure layout with it)."""
        context, page = self._page(_url(target), width, height)
        try:
            return page.evaluate(script)
        finally:
            context.close()


def _url(target: str | Path) -> str:
    if str(target).startswith(("file:", "http:", "https:")):
        return str(target)
    return Path(target).resolve().as_uri()


# Elements wider than the viewport that are not inside a scroll container of their own.
OVERFLOW_JS = """
() => {
  const root = document.documentElement;
  const vw = root.clientWidth;
  const offenders = [];
  for (const el of document.body.querySelectorAll('*')) {
    if (el.closest('.table-scroll, .formula')) continue;
    const r = el.getBoundingClientRect();
    if (r.right > vw + 1 || r.left < -1) {
      if (el.classList.contains('skip-link')) continue;
      offenders.push(el.tagName.toLowerCase() + (el.id ? '#' + el.id : ''));
    }
  }
  return {scrollWidth: root.scrollWidth, clientWidth: vw, offenders: offenders.slice(0, 10)};
}
"""


def run_axe(paths: list[Path]) -> dict[str, AxeResult]:
    with AxeRunner() as runner:
        return {str(p): runner.check(p) for p in paths}
