"""Markdown from GitHub (issue bodies, comments) to safe HTML: rendered, then sanitised.

Images become links: an image loaded from a third-party host would tell that host who reads
which report, and when.
"""

import nh3
from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml

_ALLOWED_TAGS = {
    "a", "blockquote", "br", "code", "del", "em", "h1", "h2", "h3", "h4", "h5", "h6", "hr",
    "li", "ol", "p", "pre", "strong", "table", "tbody", "td", "th", "thead", "tr", "ul",
}  # fmt: skip
_ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "code": {"class"}}


def _image_as_link(renderer, tokens, idx, options, env) -> str:
    token = tokens[idx]
    source = str(token.attrGet("src") or "")
    alt = renderer.renderInlineAsText(token.children or [], options, env)
    return f'<a href="{escapeHtml(source)}">[image: {escapeHtml(alt or source)}]</a>'


_renderer = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")
_renderer.add_render_rule("image", _image_as_link)


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
