"""Markdown from GitHub (issue bodies, comments) to safe HTML: rendered, then sanitised."""

import nh3
from markdown_it import MarkdownIt

_renderer = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")
_ALLOWED_TAGS = {
    "a", "blockquote", "br", "code", "del", "em", "h1", "h2", "h3", "h4", "h5", "h6", "hr",
    "img", "li", "ol", "p", "pre", "strong", "table", "tbody", "td", "th", "thead", "tr", "ul",
}  # fmt: skip
_ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "img": {"src", "alt", "title"}, "code": {"class"}}


def render_markdown(text: str) -> str:
    """Safe HTML for untrusted Markdown: raw HTML is escaped, and the result sanitised."""
    html = _renderer.render((text or "").replace("\x00", ""))
    return nh3.clean(
        html,
        tags=_ALLOWED_TAGS,
        attributes=_ALLOWED_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
    )
