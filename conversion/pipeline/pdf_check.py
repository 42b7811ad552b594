"""What a PDF/UA reader relies on, read back from a tagged PDF with pikepdf: a structure tree,
/Marked, /Lang, DisplayDocTitle and a title, the PDF/UA identification, every Figure with /Alt,
the headings (against the HTML outline), TH cells, page labels, a parent tree that maps each
page's content and each link annotation back to its structure element, and every internal
link's destination. What needs veraPDF or PAC is listed in the README.

Two halves, so that a PDF written run by run (pdf_join) is checked without reading the joined
file back (qpdf keeps an entry for every object of a file it opens: about 0.03 MiB a text
page): catalog_facts reads the catalog and the XMP, run_facts the structure elements, the
parent tree and the links, of one run as it is joined (merged_run_facts puts the runs' facts
together) or of a whole file; check_pdf does both on a file.
"""

from __future__ import annotations

from typing import IO

import pikepdf

_HEADING_TAGS = {f"/H{n}" for n in range(1, 7)}
_DICT = pikepdf.ObjectType.dictionary
_ARRAY = pikepdf.ObjectType.array


def check_pdf(data: IO[bytes], *, headings: list[str] | None = None) -> dict:
    """Every check on the PDF in data; `problems` lists what fails (headings: the HTML
    outline's h1..h6, when given)."""
    with pikepdf.open(data) as pdf:
        checked = {**catalog_facts(pdf), **run_facts(pdf)}
    checked["problems"] = problems_of(checked, headings)
    return checked


def catalog_facts(pdf: pikepdf.Pdf) -> dict:
    """The catalog's facts: marked, language, title shown, the XMP's title and PDF/UA part."""
    root = pdf.Root
    prefs = root.get("/ViewerPreferences") or {}
    # Read, not opened for editing: closing the editor rewrites the metadata, which made
    # qpdf load every object of the file.
    xmp = pdf.open_metadata(set_pikepdf_as_editor=False, update_docinfo=False)
    return {
        "marked": bool((root.get("/MarkInfo") or {}).get("/Marked", False)),
        "lang": str(root.get("/Lang") or ""),
        "display_doc_title": bool(prefs.get("/DisplayDocTitle", False)),
        "title": str(xmp.get("dc:title") or ""),
        "pdfua_part": str(xmp.get("pdfuaid:part") or ""),
        "page_labels": "/PageLabels" in root,
    }


def run_facts(pdf: pikepdf.Pdf, first_page: int = 1) -> dict:
    """The facts of the structure elements, the parent tree and the links (first_page: the
    number of pdf's first page in the whole document, for the problems' page numbers)."""
    tree = pdf.Root.get("/StructTreeRoot")
    elements = structure_elements(tree) if tree is not None else []
    figures = [e for e in elements if e.S == "/Figure"]
    return {
        "struct_tree": tree is not None and bool(elements),
        "figures": len(figures),
        "figures_with_alt": sum(1 for f in figures if str(f.get("/Alt") or "").strip()),
        "headings": [str(e.S)[1:] for e in elements if str(e.S) in _HEADING_TAGS],
        "table_headers": sum(1 for e in elements if e.S == "/TH"),
        "parent_tree": _parent_key_problems(pdf, first_page)
        + (_parent_tree_problems(pdf, tree, elements, first_page) if tree is not None else []),
        "unresolved_links": _unresolved_links(pdf),
    }


def merged_run_facts(runs: list[dict]) -> dict:
    """The run facts of PDFs joined in this order, as of the whole document."""
    return {
        "struct_tree": bool(runs) and all(run["struct_tree"] for run in runs),
        "figures": sum(run["figures"] for run in runs),
        "figures_with_alt": sum(run["figures_with_alt"] for run in runs),
        "headings": [h for run in runs for h in run["headings"]],
        "table_headers": sum(run["table_headers"] for run in runs),
        "parent_tree": [p for run in runs for p in run["parent_tree"]],
        "unresolved_links": [name for run in runs for name in run["unresolved_links"]],
    }


def problems_of(checked: dict, headings: list[str] | None) -> list[str]:
    needs = {
        "struct_tree": "no structure tree",
        "marked": "not marked (/MarkInfo /Marked)",
        "lang": "no /Lang",
        "display_doc_title": "the title is not shown (DisplayDocTitle)",
        "title": "no title in the XMP metadata",
        "page_labels": "no page labels",
    }
    found = [what for key, what in needs.items() if not checked[key]]
    if checked["pdfua_part"] != "1":
        found.append("no PDF/UA-1 identification (pdfuaid:part)")
    if checked["figures_with_alt"] != checked["figures"]:
        found.append(f"{checked['figures'] - checked['figures_with_alt']} figures without /Alt")
    if headings is not None and checked["headings"] != [h.upper() for h in headings]:
        found.append(f"headings {checked['headings']} are not the HTML's {headings}")
    found += checked["parent_tree"]
    found += [f"link to a missing destination {name}" for name in checked["unresolved_links"]]
    return list(dict.fromkeys(found))  # both parent tree checks name a page missing from it


def kids_of(node) -> list:
    """A structure node's /K as a list (one kid, an array of them, or none)."""
    kids = node.get("/K")
    if kids is None:
        return []
    if isinstance(kids, pikepdf.Object) and kids._type_code == _ARRAY:
        return list(kids)
    return [kids]


def structure_elements(node) -> list:
    """The structure elements under node, in document order."""
    out = []
    for kid in kids_of(node):
        if _is_dict(kid) and "/S" in kid:
            out.append(kid)
            out.extend(structure_elements(kid))
    return out


def _parent_entries(tree) -> dict | None:
    parent_tree = tree.get("/ParentTree") if tree is not None else None
    nums = parent_tree.get("/Nums") if parent_tree is not None else None
    if nums is None:
        return None
    keys = [int(nums[i]) for i in range(0, len(nums), 2)]
    if len(set(keys)) != len(keys):
        return {}  # repeated keys: _parent_key_problems says so
    return dict(zip(keys, [nums[i + 1] for i in range(0, len(nums), 2)], strict=True))


def _parent_key_problems(pdf: pikepdf.Pdf, first_page: int) -> list[str]:
    """Each page's /StructParents and each link annotation's /StructParent is a key of the
    parent tree (a flat /Nums, as WeasyPrint and pdf_join write it), each key once."""
    tree = pdf.Root.get("/StructTreeRoot")
    parent_tree = tree.get("/ParentTree") if tree is not None else None
    nums = parent_tree.get("/Nums") if parent_tree is not None else None
    if nums is None:
        return ["no parent tree (/ParentTree /Nums)"]
    keys = [int(nums[i]) for i in range(0, len(nums), 2)]
    found = ["parent tree keys repeat"] if len(set(keys)) != len(keys) else []
    known = set(keys)
    for n, page in enumerate(pdf.pages, start=first_page):
        key = page.obj.get("/StructParents")
        if key is None or int(key) not in known:
            found.append(f"page {n}: no parent tree entry")
        for annot in page.obj.get("/Annots", []):
            if "/StructParent" in annot and int(annot.StructParent) not in known:
                found.append(f"page {n}: a link annotation is not in the parent tree")
    return found


def _parent_tree_problems(pdf: pikepdf.Pdf, tree, elements: list, first_page: int) -> list[str]:
    """Each page's marked content and each link annotation found again through the parent
    tree on its own page."""
    entries = _parent_entries(tree)
    if not entries:
        return []  # no parent tree, or keys repeated: _parent_key_problems says so
    found = []
    pages = {page.obj.objgen for page in pdf.pages}
    for n, page in enumerate(pdf.pages, start=first_page):
        key = page.obj.get("/StructParents")
        content = entries.get(int(key)) if key is not None else None
        if content is None:
            found.append(f"page {n}: no parent tree entry")
            continue
        if any("/Pg" in e and e.Pg.objgen != page.obj.objgen for e in content if _is_dict(e)):
            found.append(f"page {n}: its content's structure elements name another page")
        for annot in page.obj.get("/Annots", []):
            if "/StructParent" not in annot:
                continue
            element = entries.get(int(annot.StructParent))
            kids = kids_of(element) if _is_dict(element) else []
            if not any(_is_dict(k) and k.get("/Obj") == annot for k in kids):
                found.append(f"page {n}: a link annotation is not its structure element's")
    if any("/Pg" in e and e.Pg.objgen not in pages for e in elements):
        found.append("structure elements on a page that is not in the document")
    return found


def _unresolved_links(pdf: pikepdf.Pdf) -> list[str]:
    names = pdf.Root.get("/Names", {}).get("/Dests", {}).get("/Names", [])
    known = {str(names[i]) for i in range(0, len(names), 2)}
    return [
        str(annot.Dest)
        for page in pdf.pages
        for annot in page.obj.get("/Annots", [])
        if isinstance(annot.get("/Dest"), pikepdf.String) and str(annot.Dest) not in known
    ]


def _is_dict(obj) -> bool:
    return isinstance(obj, pikepdf.Object) and obj._type_code == _DICT
