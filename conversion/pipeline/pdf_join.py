"""The tagged PDF written as its runs come (tagged_pdf renders a long document in runs of print
pages): each run's pages, structure elements, parent tree entries and named destinations are
written to the file and the run is closed before the next one is rendered. qpdf keeps every
object of an open PDF in memory (about 0.08 MiB a text page, most of it the structure
elements), so joining the runs in one pikepdf.Pdf made memory grow with the page count; here
only one run is open at a time and what is kept per page is a few numbers.

The file's own parts are written at the end from those numbers: the page tree, the structure
tree root with one Document element holding every run's elements in order, one parent tree
(each page's key, then one per link annotation, numbered as they come), the named
destinations of all runs, bookmarks nested from the HTML's headings, the page labels, and the
catalog (the first run's: /Lang, /MarkInfo, /ViewerPreferences, the XMP metadata). A link to
an element of another run (ANCHOR_URL, set by tagged_pdf) becomes a link to its named
destination. Objects are written uncompressed, then packed into compressed object streams
(PDF 1.5) with a cross-reference stream.
"""

from __future__ import annotations

import functools
import re
import zlib
from array import array
from collections import deque
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import IO

import pikepdf

from conversion.pipeline.pdf_check import kids_of

# A link to an element rendered in another run of pages, until the runs are joined.
ANCHOR_URL = "https://anchor.invalid/#"
# Objects packed into one compressed object stream (a stream's own objects are never packed).
OBJECTS_PER_STREAM = 200

_DICT = pikepdf.ObjectType.dictionary
_ARRAY = pikepdf.ObjectType.array
_STREAM = pikepdf.ObjectType.stream
# What the first run's catalog and structure tree root keep; the rest is the whole file's.
_OWN_CATALOG_KEYS = {"/Pages", "/StructTreeRoot", "/Names", "/Outlines", "/PageLabels"}
_OWN_TREE_KEYS = {"/K", "/ParentTree", "/ParentTreeNextKey", "/IDTree"}

Ref = Callable[[pikepdf.Object], bytes]
# Structure element identifiers (WeasyPrint's TH cells, numbered per run) and the TD cells'
# references to them: made unique across runs by a prefix of the run's number.
_IDENTIFIER_KEYS = {"/ID", "/Headers"}
# An indirect reference in qpdf's syntax of an object, and the start of a hex string.
_REFERENCE = re.compile(rb"(?<![\d.])(\d+) (\d+) R(?![\w#])")
_HEX_STRING = re.compile(rb"<[0-9A-Fa-f]")


class JoinedPdf:
    """A tagged PDF written into `out` run by run: add(part) for each run's PDF in order
    (the part may be closed as soon as add returns), then finish(labels, headings)."""

    def __init__(self, out: IO[bytes]) -> None:
        self.out = out
        self.offsets = array("q")  # each object's (number - 1) file offset, or its stream
        self.packed: list[tuple[int, bytes]] = []  # objects waiting for an object stream
        self.pages: array = array("q")  # our page objects, in order
        self.kids: array = array("q")  # the Document element's children
        self.parent_tree: array = array("q")  # key, object number, key, object number...
        self.dests: list[tuple[str, int]] = []  # named destinations (name, object number)
        self.anchor_links: list[str] = []  # links into another run, by destination name
        self.first: dict[str, bytes] | None = None  # the first run's catalog parts
        self.keys = 0  # parent tree keys given out
        self.runs = 0  # runs added
        self.pages_ref, self.tree_ref, self.document_ref = (self._reserve() for _ in range(3))
        out.write(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")

    def add(self, part: pikepdf.Pdf) -> None:
        """Write one run's PDF: its pages and all they use, its structure elements under the
        Document element, its parent tree entries renumbered, its named destinations."""
        copier = _Copier(self, part, f"run{self.runs}-" if self.runs else "")
        self.runs += 1
        tree = part.Root.StructTreeRoot
        document = kids_of(tree)[0]
        copier.known[document.objgen] = self.document_ref
        copier.known[tree.objgen] = self.tree_ref
        if self.first is None:
            self.first = _first_parts(part, tree, document, copier.ref)
        entries = _parent_entries(tree)
        for page in part.pages:
            self._add_page(page.obj, entries, copier)
        for kid in kids_of(document):
            copier.overrides.setdefault(kid.objgen, {})["/P"] = _ref_bytes(self.document_ref)
            self.kids.append(copier.number(kid))
        for name, dest in _named_dests(part):
            number = self._reserve()
            self._write(number, copier.serialized(dest))
            self.dests.append((name, number))
        copier.drain()

    def _add_page(self, page, entries: dict, copier: _Copier) -> None:
        key = self._next_key()
        content = entries.get(int(page.get("/StructParents", -1)))
        if content is not None:
            number = self._reserve()
            self._write(number, copier.serialized(content))
            self.parent_tree.extend((key, number))
        copier.overrides[page.objgen] = {
            "/Parent": _ref_bytes(self.pages_ref),
            "/StructParents": str(key).encode(),
        }
        for annot in page.get("/Annots", []):
            changes = _link_changes(annot)
            if changes:
                self.anchor_links.append(_anchor_name(annot))
            if "/StructParent" in annot:
                annot_key = self._next_key()
                element = entries.get(int(annot.StructParent))
                if element is not None:
                    self.parent_tree.extend((annot_key, copier.number(element)))
                changes["/StructParent"] = str(annot_key).encode()
            if changes and annot.is_indirect:
                copier.overrides[annot.objgen] = changes
            if annot.is_indirect:
                copier.loose.add(annot.objgen)
        copier.loose.add(page.objgen)
        self.pages.append(copier.number(page))

    def _next_key(self) -> int:
        self.keys += 1
        return self.keys - 1

    def finish(self, labels: list[str], headings: list[tuple[int, str, str]]) -> None:
        """The page tree, structure tree root, Document element, parent tree, names,
        bookmarks, page labels and catalog; then the cross-reference stream."""
        if self.first is None:
            raise ValueError("No run was added.")
        pages = b" ".join(_ref_bytes(n) for n in self.pages)
        self._write(self.pages_ref, b"<< /Type /Pages /Kids [%s] /Count %d >>"
                    % (pages, len(self.pages)))  # fmt: skip
        kids = b" ".join(_ref_bytes(n) for n in self.kids)
        self._write(self.document_ref, b"<< %s /K [%s] /P %s >>"
                    % (self.first["document"], kids, _ref_bytes(self.tree_ref)))  # fmt: skip
        nums = b" ".join(
            b"%d %s" % (self.parent_tree[i], _ref_bytes(self.parent_tree[i + 1]))
            for i in range(0, len(self.parent_tree), 2)
        )
        parent_tree = self._object(b"<< /Nums [%s] >>" % nums)
        self._write(self.tree_ref, b"<< %s /K [%s] /ParentTree %s /ParentTreeNextKey %d >>" % (
            self.first["tree"], _ref_bytes(self.document_ref), _ref_bytes(parent_tree), self.keys,
        ))  # fmt: skip
        catalog = self._object(b"<< %s /Pages %s /StructTreeRoot %s /Names %s /Outlines %s "
                               b"/PageLabels %s >>" % (  # fmt: skip
            self.first["catalog"], _ref_bytes(self.pages_ref), _ref_bytes(self.tree_ref),
            _ref_bytes(self._names()), _ref_bytes(self._outline(headings)),
            _page_labels(labels),
        ))  # fmt: skip
        self._flush_packed()
        self._xref(catalog)

    def unresolved_links(self) -> list[str]:
        """The links into another run whose named destination no run has."""
        names = {name for name, _ in self.dests}
        return [name for name in self.anchor_links if name not in names]

    def _names(self) -> int:
        pairs = b" ".join(
            pikepdf.String(name).unparse() + b" " + _ref_bytes(number)
            for name, number in sorted(self.dests)
        )
        return self._object(b"<< /Dests << /Names [%s] >> >>" % pairs)

    def _outline(self, headings: list[tuple[int, str, str]]) -> int:
        """Bookmarks nested by heading level, each opening its heading's named destination."""
        root = _Item(self._reserve(), 0, b"", b"")
        stack = [root]
        for level, text, ident in headings:
            while len(stack) > 1 and stack[-1].level >= level:
                stack.pop()
            item = _Item(self._reserve(), level, pikepdf.String(text).unparse(),
                         pikepdf.String(ident).unparse())  # fmt: skip
            stack[-1].children.append(item)
            stack.append(item)
        self._write(root.number, root.serialized(None, None, None))
        for item, parent, previous, following in _walk(root):
            self._write(item.number, item.serialized(parent, previous, following))
        return root.number

    def _reserve(self) -> int:
        self.offsets.append(0)
        return len(self.offsets)

    def _object(self, body: bytes) -> int:
        number = self._reserve()
        self._write(number, body)
        return number

    def _write(
        self, number: int, body: bytes, stream: bytes | None = None, *, packed: bool = True
    ) -> None:
        """An object: a stream or a loose object now, in the file; any other into the next
        object stream."""
        if stream is None and packed:
            self.offsets[number - 1] = -len(self.packed) - 1  # placed when packed
            self.packed.append((number, body))
            if len(self.packed) == OBJECTS_PER_STREAM:
                self._flush_packed()
            return
        self.offsets[number - 1] = self.out.tell()
        if stream is None:
            self.out.write(b"%d 0 obj\n%s\nendobj\n" % (number, body))
            return
        self.out.write(b"%d 0 obj\n%s\nstream\n" % (number, body))
        self.out.write(stream)
        self.out.write(b"\nendstream\nendobj\n")

    def _flush_packed(self) -> None:
        if not self.packed:
            return
        packed, self.packed = self.packed, []
        number = self._reserve()
        header, bodies, at = [], [], 0
        for index, (member, body) in enumerate(packed):
            self.offsets[member - 1] = -(number << 16 | index) - 1  # in stream `number`
            header.append(b"%d %d" % (member, at))
            bodies.append(body)
            at += len(body) + 1
        head = b" ".join(header) + b"\n"
        data = zlib.compress(head + b"\n".join(bodies))
        self._write(number, b"<< /Type /ObjStm /N %d /First %d /Filter /FlateDecode /Length %d >>"
                    % (len(packed), len(head), len(data)), data)  # fmt: skip

    def _xref(self, catalog: int) -> None:
        """The cross-reference stream (the file's last object) and the trailer."""
        xref = self._reserve()
        self.offsets[xref - 1] = self.out.tell()
        rows = [b"\x00" + (0).to_bytes(4, "big") + b"\xff\xff"]
        for offset in self.offsets:
            if offset == 0:  # reserved, never written
                rows.append(b"\x00" + (0).to_bytes(4, "big") + b"\x00\x00")
            elif offset > 0:
                rows.append(b"\x01" + offset.to_bytes(4, "big") + b"\x00\x00")
            else:
                stream, index = divmod(-offset - 1, 1 << 16)
                rows.append(b"\x02" + stream.to_bytes(4, "big") + index.to_bytes(2, "big"))
        data = zlib.compress(b"".join(rows))
        info = self.first["info"]
        self.out.write(b"%d 0 obj\n<< /Type /XRef /Size %d /W [1 4 2] /Root %s %s "
                       b"/Filter /FlateDecode /Length %d >>\nstream\n"
                       % (xref, xref + 1, _ref_bytes(catalog), info, len(data)))  # fmt: skip
        self.out.write(data)
        self.out.write(b"\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n" % self.offsets[xref - 1])


class _Copier:
    """One run's objects written into the joined PDF, each indirect object once, under a
    new number; `overrides` replaces some keys of some objects (a page's parent, ...)."""

    def __init__(self, joined: JoinedPdf, part: pikepdf.Pdf, prefix: str) -> None:
        self.joined = joined
        self.part = part
        self.prefix = prefix  # before each structure element identifier of this run
        self.known: dict[tuple[int, int], int] = {}
        self.overrides: dict[tuple[int, int], dict[str, bytes | None]] = {}
        self.queue: deque = deque()
        # Pages and annotations stay out of object streams: the check reads them back, and
        # qpdf would parse (and keep) a whole object stream for each.
        self.loose: set[tuple[int, int]] = set()
        pages_root = part.Root.Pages
        self.known[pages_root.objgen] = joined.pages_ref

    def number(self, obj) -> int:
        """Our number for the part's indirect obj (written when the run is drained)."""
        key = obj.objgen
        if key not in self.known:
            self.known[key] = self.joined._reserve()
            self.queue.append(obj)
        return self.known[key]

    def ref(self, obj) -> bytes:
        return _ref_bytes(self.number(obj))

    def serialized(self, obj) -> bytes:
        chunks: list[bytes] = []
        _serialize(obj, self.ref, chunks, self.overrides, self.prefix)
        return b"".join(chunks)

    def drain(self) -> None:
        """Write every object the run's pages and elements reach."""
        while self.queue:
            obj = self.queue.popleft()
            number = self.known[obj.objgen]
            if obj._type_code == _STREAM:
                data = obj.read_raw_bytes()
                changes = {**self.overrides.get(obj.objgen, {}),
                           "/Length": str(len(data)).encode()}  # fmt: skip
                chunks: list[bytes] = []
                _serialize_dict(obj.stream_dict, self.ref, chunks, self.overrides, changes,
                                self.prefix)  # fmt: skip
                self.joined._write(number, b"".join(chunks), data)
            else:
                self.joined._write(number, self._body(obj), packed=obj.objgen not in self.loose)

    def _body(self, obj) -> bytes:
        """An object's PDF syntax with our numbers: qpdf's own, its references renumbered,
        where it holds no string (a reference's pattern could be a string's text); else
        walked (_serialize)."""
        if obj.objgen not in self.overrides:
            raw = obj.unparse(resolved=True)
            if b"(" not in raw and not _HEX_STRING.search(raw):
                return _REFERENCE.sub(self._renumbered, raw)
        chunks: list[bytes] = []
        _serialize(obj, self.ref, chunks, self.overrides, self.prefix, top=True)
        return b"".join(chunks)

    def _renumbered(self, match: re.Match) -> bytes:
        return self.ref(self.part.get_object(int(match[1]), int(match[2])))


def _serialize(
    obj, ref: Ref, chunks: list[bytes], overrides: dict, prefix: str = "", top: bool = False
) -> None:
    """obj as PDF syntax; an indirect object it contains as a reference (ref); a structure
    element identifier (/ID, and the /Headers naming them) with prefix before it."""
    if obj is None:
        chunks.append(b"null")
    elif obj is True or obj is False:
        chunks.append(b"true" if obj else b"false")
    elif isinstance(obj, int):
        chunks.append(b"%d" % obj)
    elif isinstance(obj, Decimal | float):
        chunks.append(format(obj, "f").encode())
    elif not top and obj.is_indirect:
        chunks.append(ref(obj))
    elif obj._type_code == _DICT:
        changes = overrides.get(obj.objgen, {}) if obj.is_indirect else {}
        _serialize_dict(obj, ref, chunks, overrides, changes, prefix)
    elif obj._type_code == _ARRAY:
        chunks.append(b"[")
        for item in obj:
            _serialize(item, ref, chunks, overrides, prefix)
            chunks.append(b" ")
        chunks.append(b"]")
    else:  # a name, a string
        chunks.append(obj.unparse())


def _serialize_dict(
    obj, ref: Ref, chunks: list[bytes], overrides: dict, changes: dict, prefix: str = ""
) -> None:
    chunks.append(b"<<")
    for key, value in obj.items():
        if key in changes:
            continue
        chunks.append(_name(key))
        if prefix and key in _IDENTIFIER_KEYS:
            value = _prefixed(value, prefix)
        _serialize(value, ref, chunks, overrides, prefix)
        chunks.append(b" ")
    for key, value in changes.items():
        if value is not None:
            chunks.append(_name(key) + value + b" ")
    chunks.append(b">>")


def _prefixed(value, prefix: str):
    """An identifier, or an array of them, with prefix before each."""
    if isinstance(value, pikepdf.Object) and value._type_code == _ARRAY:
        return pikepdf.Array([_prefixed(item, prefix) for item in value])
    return pikepdf.String(prefix + str(value))


@functools.lru_cache(maxsize=1024)
def _name(key: str) -> bytes:
    """A dictionary key as PDF syntax, and a space (a few dozen keys, asked for thousands of
    times)."""
    return pikepdf.Name(key).unparse() + b" "


class _Item:
    """A bookmark: its object number, heading level, title and named destination."""

    def __init__(self, number: int, level: int, title: bytes, dest: bytes) -> None:
        self.number, self.level, self.title, self.dest = number, level, title, dest
        self.children: list[_Item] = []

    def serialized(self, parent: _Item | None, previous: _Item | None,
                   following: _Item | None) -> bytes:  # fmt: skip
        parts = [b"<<"]
        if parent is None:
            parts.append(b"/Type /Outlines")
        else:
            parts.append(b"/Title %s /Dest %s /Parent %s" % (self.title, self.dest,
                                                            _ref_bytes(parent.number)))  # fmt: skip
        if previous is not None:
            parts.append(b"/Prev " + _ref_bytes(previous.number))
        if following is not None:
            parts.append(b"/Next " + _ref_bytes(following.number))
        if self.children:
            first, last = self.children[0].number, self.children[-1].number
            parts.append(b"/First %s /Last %s" % (_ref_bytes(first), _ref_bytes(last)))
        parts.append(b"/Count %d >>" % _open_count(self))
        return b" ".join(parts)


def _open_count(item: _Item) -> int:
    """Every bookmark shown open: the items under it, at any depth."""
    return sum(1 + _open_count(child) for child in item.children)


def _walk(parent: _Item) -> Iterator[tuple[_Item, _Item, _Item | None, _Item | None]]:
    """Every bookmark under parent with its parent and its siblings before and after."""
    kids = [None, *parent.children, None]
    for at in range(1, len(kids) - 1):
        yield kids[at], parent, kids[at - 1], kids[at + 1]
        yield from _walk(kids[at])


def _first_parts(part: pikepdf.Pdf, tree, document, ref: Ref) -> dict[str, bytes]:
    """What the joined file keeps of the first run: its catalog's keys (language, marked,
    viewer preferences, metadata), its structure tree root's and Document element's, its
    document information."""

    def kept(obj, dropped) -> bytes:
        chunks: list[bytes] = []
        _serialize_dict(obj, ref, chunks, {}, dict.fromkeys(dropped))
        return b"".join(chunks)[2:-2]

    info = part.trailer.get("/Info")
    return {
        "catalog": kept(part.Root, _OWN_CATALOG_KEYS),
        "tree": kept(tree, _OWN_TREE_KEYS),
        "document": kept(document, {"/K", "/P"}),
        "info": b"/Info " + ref(info) if info is not None else b"",
    }


def _parent_entries(tree) -> dict:
    parent_tree = tree.get("/ParentTree")
    nums = parent_tree.get("/Nums", []) if parent_tree is not None else []
    return {int(nums[i]): nums[i + 1] for i in range(0, len(nums), 2)}


def _named_dests(part: pikepdf.Pdf) -> Iterator[tuple[str, object]]:
    names = part.Root.get("/Names", {}).get("/Dests", {}).get("/Names", [])
    for i in range(0, len(names), 2):
        yield str(names[i]), names[i + 1]


def _anchor_name(annot) -> str | None:
    """The element a link into another run (ANCHOR_URL, from tagged_pdf) names, else None."""
    action = annot.get("/A")
    uri = str(action.get("/URI", "")) if action is not None else ""
    return uri[len(ANCHOR_URL) :] if uri.startswith(ANCHOR_URL) else None


def _link_changes(annot) -> dict[str, bytes | None]:
    """A link into another run as a link to its named destination."""
    name = _anchor_name(annot)
    if name is None:
        return {}
    dest = pikepdf.String(name).unparse()
    return {"/A": None, "/Dest": dest, "/Contents": dest}


def _page_labels(labels: list[str]) -> bytes:
    """/PageLabels: one range per change of label, each labelled by its prefix alone."""
    nums = []
    previous = None
    for index, label in enumerate(labels):
        if label != previous:
            nums.append(b"%d << /P %s >>" % (index, pikepdf.String(label).unparse()))
            previous = label
    return b"<< /Nums [%s] >>" % b" ".join(nums)


def _ref_bytes(number: int) -> bytes:
    return b"%d 0 R" % number
