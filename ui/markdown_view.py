"""Markdown shown safely: rendered with ``markdown``, cleaned with ``nh3``.

Memory files come from agents and imports, so they are untrusted: no scripts, no raw HTML
(it is shown escaped, as text), no images at all (so nothing remote is ever fetched), and
links open only when clicked and only for http/https.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from PySide6.QtCore import QUrl, Signal, Slot
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QTextBrowser

if TYPE_CHECKING:  # markdown and nh3 load on the first render, not with the app's tabs
    from xml.etree.ElementTree import Element

    import markdown as md

ALLOWED_TAGS = {
    "p",
    "br",
    "hr",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "ul",
    "ol",
    "li",
    "strong",
    "em",
    "b",
    "i",
    "code",
    "pre",
    "blockquote",
    "a",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "del",
    "span",
}
ALLOWED_ATTRS = {"a": ["href", "title"], "th": ["align"], "td": ["align"], "span": ["class"]}
SAFE_SCHEMES = ("http", "https")
CSS = """
body { line-height: 140%; }
h1, h2, h3 { margin-top: 10px; margin-bottom: 4px; }
code, pre { font-family: monospace; }
pre { padding: 6px; }
blockquote { margin-left: 12px; padding-left: 8px; }
td, th { padding: 2px 6px; }
"""


def render_markdown(text: str) -> str:
    """Markdown → sanitized HTML. Raw HTML in the source survives only as escaped text."""
    import nh3

    html = _converter().convert(text or "")
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes={tag: set(names) for tag, names in ALLOWED_ATTRS.items()},
        url_schemes=set(SAFE_SCHEMES),
        link_rel=None,  # the view opens links itself (MarkdownView._on_anchor)
    )


def _converter() -> md.Markdown:
    import markdown as md

    conv = md.Markdown(extensions=["tables", "fenced_code", "sane_lists"], output_format="html")
    # without these two, markdown copies the source's raw HTML through verbatim; with them
    # it is escaped and shown as text
    conv.preprocessors.deregister("html_block")
    conv.inlinePatterns.deregister("html")
    from markdown.treeprocessors import Treeprocessor

    class Links(Treeprocessor):
        def run(self, root: Element) -> None:
            _links(root)

    conv.treeprocessors.register(Links(conv), "engram-links", 15)  # after "inline" (20)
    return conv


# a bare http(s) address becomes a link ("memory.md" is a file name, not the Moldovan
# domain); its last character is not the sentence's punctuation
BARE_URL = re.compile(r"https?://[^\s<>\"'`]*[^\s<>\"'`.,;:!?)\]]")
NO_LINKS_IN = {"a", "pre", "code"}


def _safe(href: str) -> bool:
    return urlsplit(href.strip()).scheme.lower() in SAFE_SCHEMES


def _links(el: Element) -> None:
    """Links whose address is not http/https lose the link and keep their text; bare
    http(s) addresses in text (not in code) become links."""
    from xml.etree.ElementTree import Element as El

    def linkify(text: str | None) -> tuple[str | None, list[El]]:
        if not text or el.tag in NO_LINKS_IN or "://" not in text:
            return text, []
        made: list[El] = []
        head, pos = None, 0
        for m in BARE_URL.finditer(text):
            before = text[pos : m.start()]
            if made:
                made[-1].tail = before
            else:
                head = before
            a = El("a", {"href": m.group()})
            a.text = m.group()
            made.append(a)
            pos = m.end()
        if not made:
            return text, []
        made[-1].tail = text[pos:]
        return head, made

    el.text, new = linkify(el.text)
    for i, a in enumerate(new):
        el.insert(i, a)
    i = len(new)
    while i < len(el):
        child = el[i]
        if child.tag == "a" and not _safe(child.get("href", "")):
            i = _unwrap(el, i)
            continue
        _links(child)
        child.tail, new = linkify(child.tail)
        for j, a in enumerate(new, start=i + 1):
            el.insert(j, a)
        i += 1 + len(new)


def _unwrap(parent: Element, i: int) -> int:
    """Replace ``parent[i]`` by its content; returns where scanning goes on."""
    child = parent[i]
    inner = list(child)
    text, tail = child.text or "", child.tail or ""
    if i == 0:
        parent.text = (parent.text or "") + text
    else:
        parent[i - 1].tail = (parent[i - 1].tail or "") + text
    parent.remove(child)
    for k, sub in enumerate(inner):
        parent.insert(i + k, sub)
    if inner:
        inner[-1].tail = (inner[-1].tail or "") + tail
    elif i == 0:
        parent.text = (parent.text or "") + tail
    else:
        parent[i - 1].tail = (parent[i - 1].tail or "") + tail
    return i  # the moved-up children are scanned next


class MarkdownView(QTextBrowser):
    """A read-only view. Link clicks are reported and opened only for http/https."""

    link_opened = Signal(str)
    link_refused = Signal(str)

    def __init__(self, parent=None, open_links: bool = True):
        super().__init__(parent)
        self._open_links = open_links
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.document().setDefaultStyleSheet(CSS)
        self.anchorClicked.connect(self._on_anchor)

    def set_markdown_text(self, text: str) -> None:
        self.setHtml(render_markdown(text))

    @Slot(QUrl)
    def _on_anchor(self, url: QUrl) -> None:
        if url.scheme().lower() in SAFE_SCHEMES:
            self.link_opened.emit(url.toString())
            if self._open_links:
                QDesktopServices.openUrl(url)
        else:
            self.link_refused.emit(url.toString())
