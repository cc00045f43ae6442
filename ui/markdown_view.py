"""Markdown shown safely: rendered with ``markdown``, cleaned with ``bleach``.

Memory files come from agents and imports, so they are untrusted: no scripts, no raw HTML
(it is shown escaped, as text), no images at all (so nothing remote is ever fetched), and
links open only when clicked and only for http/https.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from PySide6.QtCore import QUrl, Signal, Slot
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QTextBrowser

if TYPE_CHECKING:  # markdown and bleach load on the first render, not with the app's tabs
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
    import bleach
    from bleach.linkifier import LinkifyFilter

    html = _converter().convert(text or "")
    cleaner = bleach.Cleaner(
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRS,
        protocols=list(SAFE_SCHEMES),
        strip=True,
        filters=[partial(LinkifyFilter, callbacks=[_only_safe_links], skip_tags={"pre", "code"})],
    )
    return cleaner.clean(html)


def _converter() -> md.Markdown:
    import markdown as md

    conv = md.Markdown(extensions=["tables", "fenced_code", "sane_lists"], output_format="html")
    # without these two, markdown copies the source's raw HTML through verbatim; with them
    # it is escaped and shown as text
    conv.preprocessors.deregister("html_block")
    conv.inlinePatterns.deregister("html")
    return conv


def _only_safe_links(attrs, new=False):
    href = attrs.get((None, "href"), "")
    if new and not attrs.get("_text", "").lower().startswith(("http://", "https://")):
        return None  # "memory.md" is a file name, not the Moldovan domain
    if QUrl(href).scheme().lower() not in SAFE_SCHEMES:
        return None  # drop the link, keep its text
    return attrs


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
