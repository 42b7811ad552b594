"""The structured editor (issue 33) through the review page's plain forms: a heading's level, a
table's header cells and caption, joining and splitting paragraphs, moving a block; every save
re-checked, an edit that breaks the document refused with what and where (saved only when
confirmed), the audit trail, the downloads (HTML, EPUB) carrying it; owners correct their own
documents and decide nothing. The document is the hand-made three-page one (tests/resources/
documents/handmade.py), stored as a finished job."""

from __future__ import annotations

import io
import json
import re
import zipfile

import pytest
from bs4 import BeautifulSoup
from django.contrib.auth import get_user_model
from django.test import Client

from conversion import storage
from conversion.models import JobReview, JobStatus, ReviewEvent, ReviewState
from tests.conftest import create_reviewer, handmade_job


@pytest.fixture
def owner(db):
    return get_user_model().objects.create_user("olga", password="pw-olga-123")


@pytest.fixture
def doc(owner):
    return handmade_job(owner)


@pytest.fixture
def rita(db):
    client = Client()
    client.force_login(create_reviewer())
    return client


@pytest.fixture
def olga(owner):
    client = Client()
    client.force_login(owner)
    return client


def _page(client: Client, job, number: int) -> BeautifulSoup:
    response = client.get(f"/review/{job.id}/pages/{number}/")
    assert response.status_code == 200
    return BeautifulSoup(response.content, "html.parser")


def _block(client: Client, job, number: int, text: str) -> tuple[str, dict]:
    """The action and fields of the block whose preview starts with `text` (as a person
    finds it on the page)."""
    soup = _page(client, job, number)
    for li in soup.select("ol.blocks > li"):
        preview = li.select_one(".block-preview")
        if preview is not None and preview.get_text().startswith(text):
            form = li.find("form")
            fingerprint = form.find("input", attrs={"name": "fingerprint"})["value"]
            return form["action"], {"fingerprint": fingerprint}
    raise AssertionError(f"no block {text!r} on page {number}")


def _edit(client: Client, job, number: int, text: str, **fields):
    action, data = _block(client, job, number, text)
    return client.post(action, {**data, **fields})


def _html(job) -> BeautifulSoup:
    return BeautifulSoup(storage.read_html(job.id), "html.parser")


def _main(job):
    return _html(job).find("main")


def _report(job) -> dict:
    return json.loads(storage.read_report_text(job.id))


def test_a_heading_level_changed_rebuilds_the_outline_and_reaches_the_epub(rita, doc):
    response = _edit(rita, doc, 1, "Regional detail", op="level", level="2")
    assert response.status_code == 302
    html = _html(doc)
    heading = html.find("main").find(string="Regional detail").parent
    assert heading.name == "h2"
    assert [a.get_text() for a in html.select("nav.toc a")][:3] == [
        "Annual report of the Example Society", "Membership", "Regional detail",
    ]  # fmt: skip
    event = ReviewEvent.objects.get(job=doc)
    assert event.action == "edit_structure" and event.page == 1
    assert event.note == "heading “Regional detail”: heading level 3 → heading level 2"
    # A paragraph becomes a heading, and back.
    assert _edit(rita, doc, 1, "Each region reports", op="level", level="3").status_code == 302
    assert _main(doc).find(string=re.compile("^Each region reports")).parent.name == "h3"
    # The EPUB is made from the same document: its outline has the new level.
    epub = rita.get(f"/jobs/{doc.id}/download.epub")
    archive = zipfile.ZipFile(io.BytesIO(b"".join(epub.streaming_content)))
    nav = next(n for n in archive.namelist() if n.endswith("nav.xhtml"))
    toc = BeautifulSoup(archive.read(nav), "html.parser").find("nav")
    detail = toc.find("a", string="Regional detail").find_parent("li")
    assert detail.find("a", string=re.compile("^Each region reports")) is not None


def test_an_edit_that_removes_the_h1_is_refused_with_what_and_where(rita, doc):
    before = storage.read_html(doc.id)
    response = _edit(rita, doc, 1, "Annual report of the Example Society", op="level", level="2")
    assert response.status_code == 409
    text = " ".join(BeautifulSoup(response.content, "html.parser").get_text().split())
    assert (
        "Page 1, heading “Annual report of the Example Society”: the document would have no "
        "level-1 heading" in text
    )
    assert storage.read_html(doc.id) == before and not ReviewEvent.objects.exists()
    # Confirmed ("Save anyway" posts the same form again): saved, the checks say so.
    form = BeautifulSoup(response.content, "html.parser").select_one("main form")
    fields = {i["name"]: i["value"] for i in form.find_all("input") if i.get("name")}
    button = form.find("button", string="Save anyway")
    assert (button["name"], button["value"]) == ("confirm", "on")
    assert rita.post(form["action"], {**fields, "confirm": "on"}).status_code == 302
    assert not _html(doc).find("main").find("h1")
    assert "H1_COUNT" in {f["code"] for f in _report(doc)["findings"]}
    assert "Saved although it breaks the checks" in ReviewEvent.objects.get(job=doc).note


def test_a_skipped_level_is_refused(rita, doc):
    response = _edit(rita, doc, 1, "Membership", op="level", level="4")
    assert response.status_code == 409
    assert "heading “Membership”: the heading levels would skip from 1 to 4" in (
        response.content.decode()
    )


def test_a_raw_html_edit_that_removes_the_h1_asks_first(rita, doc):
    fragment = rita.get(f"/review/{doc.id}/pages/1/")
    html = BeautifulSoup(fragment.content, "html.parser").find("textarea", id="id_html").string
    response = rita.post(
        f"/review/{doc.id}/pages/1/html", {"html": html.replace("<h1", "<h2").replace("h1>", "h2>")}
    )
    assert response.status_code == 409
    assert "the document would have no level-1 heading" in response.content.decode()
    # The HTML comes back to be corrected there, and checked again.
    form = BeautifulSoup(response.content, "html.parser").select_one("main form")
    assert "<h2" in form.find("textarea", attrs={"name": "html"}).string
    assert form.find("button", string="Check again and save").get("name") is None
    response = rita.post(form["action"], {"html": html})  # corrected: the h1 as it was
    assert response.status_code == 302  # nothing changed, nothing broken


def test_table_header_row_row_headers_and_caption(rita, doc):
    guessed = "Opening hours"  # page 3's table: no header cells read, the first row guessed
    assert _edit(rita, doc, 3, guessed, op="caption", caption="Opening hours of the office")
    table = _html(doc).find(id="table-3")
    assert table.caption.get_text() == "Opening hours of the office"
    assert table.parent["aria-labelledby"] == "table-3-caption"
    # Unmarking the only header row leaves a table without header cells: refused.
    response = _edit(rita, doc, 3, "Opening hours of the office", op="headers")
    assert response.status_code == 409
    assert "table “Opening hours of the office”: the table would have no header cells" in (
        response.content.decode()
    )
    # The header row confirmed and the days marked as row headers: the guess is settled.
    response = _edit(
        rita, doc, 3, "Opening hours of the office", op="headers", header_row="on", row_headers="on"
    )
    assert response.status_code == 302
    table = _html(doc).find(id="table-3")
    assert table.get("data-review") is None
    assert [th.get_text() for th in table.thead.find_all("th", scope="col")] == [
        "Day", "Opens", "Closes",
    ]  # fmt: skip
    assert [th.get_text() for th in table.tbody.find_all("th", scope="row")] == [
        "Monday", "Saturday", "Sunday",
    ]  # fmt: skip
    assert "TABLE_HEADERS_GUESSED" not in {f["code"] for f in _report(doc)["findings"]}
    # An empty caption removes it; the scroll box is then named by the table's number.
    assert _edit(rita, doc, 3, "Opening hours of the office", op="caption", caption=" ")
    table = _html(doc).find(id="table-3")
    assert table.caption is None and table.parent["aria-label"] == "Table 3"


def test_join_and_split_paragraphs_keep_their_markup_and_language(rita, doc):
    assert _edit(rita, doc, 2, "Notre section", op="join").status_code == 302
    joined = _main(doc).find(string=re.compile("Notre section")).parent
    assert joined.name == "p" and joined.find("span", lang="fr").get_text().startswith("« Nous")
    # Split inside a paragraph holding a note reference and an uncertain word.
    response = _edit(rita, doc, 1, "The society grew", op="split", words="; see the  tables")
    assert response.status_code == 302
    first = _main(doc).find(string=re.compile("The society grew")).parent
    second = first.find_next_sibling("p")
    assert first.find("mark").get_text() == "balanced" and first.find("a", class_="noteref")
    assert first.get_text().endswith("balanced") and second.get_text() == "; see the tables below."
    # Words that are not there are said, nothing is written.
    before = storage.read_html(doc.id)
    rita.post(*_split(rita, doc, "Each region reports", "no such words"))
    assert storage.read_html(doc.id) == before


def _split(client, job, text, words):
    action, data = _block(client, job, 1, text)
    return action, {**data, "op": "split", "words": words}


def test_move_down_and_a_stale_form_is_refused(rita, doc):
    action, data = _block(rita, doc, 1, "Each region reports")
    response = _edit(rita, doc, 1, "Regional detail", op="down")
    assert response.status_code == 302
    # Back at the block where it is now, its outcome said there too.
    back = rita.get(response["Location"])
    at = re.search(r"#(block-\d+)$", response["Location"]).group(1)
    block = BeautifulSoup(back.content, "html.parser").find(id=at)
    assert block.select_one(".block-preview").get_text() == "Regional detail"
    assert "Structure saved." in block.get_text()
    main = _html(doc).find("main")
    assert main.find(string=re.compile("^Each region")).parent.find_next_sibling("h3")
    # The paragraph moved up: a form shown before the move names its old place, where the
    # heading is now. Nothing is changed there.
    before = storage.read_html(doc.id)
    response = rita.post(action, {**data, "op": "level", "level": "2"}, follow=True)
    assert storage.read_html(doc.id) == before
    assert "This block has changed since the page was opened" in response.content.decode()


def test_owner_corrects_their_own_document_and_decides_nothing(olga, owner, doc, db):
    response = olga.get(f"/jobs/{doc.id}/")
    link = BeautifulSoup(response.content, "html.parser").find("a", href=f"/review/{doc.id}/")
    assert link is not None  # the owner who sees items to review can fix them
    page = _page(olga, doc, 2)
    assert page.find("textarea", id="alt-figure-2") is not None
    assert page.find("button", string="Approve document") is None
    alt = "The new meeting hall: a brick building with a pointed roof"
    response = olga.post(f"/review/{doc.id}/pages/2/alt", {"figure": "figure-2", "alt": alt})
    assert response.status_code == 302 and f'alt="{alt}"' in storage.read_html(doc.id)
    assert _edit(olga, doc, 1, "Regional detail", op="level", level="2").status_code == 302
    assert olga.post(f"/review/{doc.id}/decision", {"decision": "approve"}).status_code == 403
    response = olga.post(f"/review/{doc.id}/pages/1/decision", {"decision": "approve"})
    assert response.status_code == 403
    assert olga.get("/review/").status_code == 403
    # Someone else's document: not there.
    other = Client()
    other.force_login(get_user_model().objects.create_user("oscar", password="pw-oscar-123"))
    assert other.get(f"/review/{doc.id}/pages/1/").status_code == 404
    assert other.post(f"/review/{doc.id}/pages/2/alt", {"figure": "figure-2", "alt": "x y"})
    assert alt in storage.read_html(doc.id)


def test_an_owners_edit_withdraws_an_approval_a_reviewers_keeps_it(rita, olga, doc):
    rita.post(f"/review/{doc.id}/decision", {"decision": "approve", "confirm": "on"})
    _edit(rita, doc, 1, "Regional detail", op="level", level="2")
    assert JobReview.objects.get(job=doc).state == ReviewState.APPROVED
    page = _page(rita, doc, 3)
    assert page.find(id="page-state").get_text() == "(Approved with the document)"
    _edit(olga, doc, 1, "Each region reports", op="level", level="3")
    assert JobReview.objects.get(job=doc).state == ReviewState.PENDING
    last = ReviewEvent.objects.filter(job=doc).order_by("id").last()
    assert "approval was withdrawn" in last.note
    assert "review" not in _report(doc)
    doc.refresh_from_db()
    assert doc.status == JobStatus.NEEDS_REVIEW  # the evidence again: figure 2 has no alt


def test_an_uncertain_word_is_shown_in_the_page(rita, doc):
    page = _page(rita, doc, 1)
    links = [
        a
        for a in page.find_all("a", href=re.compile(r"\?show="))
        if "uncertain" in a.get_text() and a.get_text().startswith("Show it in the page")
    ]
    assert links, "an uncertain-text finding has a link to its spot"
    link = links[0]
    assert link["href"].endswith("#axiya-shown") and link["target"] == "page-frame"
    frame = BeautifulSoup(rita.get(link["href"].split("#")[0]).content, "html.parser")
    anchor = frame.find(id="axiya-shown")
    shown = anchor.find_next_sibling()
    assert "axiya-shown" in shown["class"] and shown.get_text() == "balanced"
    # A selector is data: a bad one shows nothing and breaks nothing.
    url = link["href"].split("?")[0]
    assert rita.get(url + "?show=%3A%3A%3Ahas(").status_code == 200


def test_an_alt_text_the_checks_refuse_asks_first_and_a_missing_level_changes_nothing(rita, doc):
    before = storage.read_html(doc.id)
    response = rita.post(f"/review/{doc.id}/pages/2/alt", {"figure": "figure-2", "alt": "image"})
    assert response.status_code == 409
    said = BeautifulSoup(response.content, "html.parser").find(role="alert").get_text()
    assert "Page 2, figure 2: alt text 'image' describes nothing" in said
    assert storage.read_html(doc.id) == before
    response = rita.post(
        f"/review/{doc.id}/pages/2/alt", {"figure": "figure-2", "alt": "image", "confirm": "on"}
    )
    assert response.status_code == 302 and 'alt="image"' in storage.read_html(doc.id)
    # A kind-of-block form posted without its choice: nothing is demoted.
    before = storage.read_html(doc.id)
    action, data = _block(rita, doc, 1, "Membership")
    response = rita.post(action, {**data, "op": "level"}, follow=True)
    assert storage.read_html(doc.id) == before
    assert "Choose what the block is" in response.content.decode()
