"""Markdown from GitHub (issue bodies, comments) to safe HTML: rendered, then sanitised.

Raw HTML is rendered within an allow-list like GitHub's: the tags of `_ALLOWED_TAGS` stay
tags (`<details>`, `<kbd>`, …) and HTML comments (issue templates are full of them) are
dropped. Any other tag is shown as the text that was typed, where GitHub would drop it, so that
`Tensor<float>` or a pasted `<script>` stays readable. Whatever that step lets through, nh3
then sanitises: only allowed tags and attributes, links only to http(s), mailto or relative
addresses (study guidelines link to the app's own pages).

Images, Markdown or HTML, become links: an image loaded from a third-party host would tell
that host who reads which report, and when.
"""

import html
import re

import nh3
from markdown_it import MarkdownIt
from markdown_it.common.html_re import attr_name, attr_value, attribute
from markdown_it.common.utils import escapeHtml

_ALLOWED_TAGS = {
    "a", "b", "blockquote", "br", "caption", "code", "del", "details", "em", "h1", "h2", "h3",
    "h4", "h5", "h6", "hr", "i", "kbd", "li", "ol", "p", "pre", "strong", "sub", "summary",
    "sup", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul",
}  # fmt: skip
_ALLOWED_ATTRIBUTES = {
    "a": {"href", "title"},
    "code": {"class"},
    "details": {"open"},
    "ol": {"start"},
    "td": {"align", "colspan", "rowspan"},
    "th": {"align", "colspan", "rowspan"},
}
# The class Markdown gives a fenced block (`language-python`): other classes could borrow
# the page's own styles.
_CODE_CLASS = re.compile(r"language-[A-Za-z0-9_+#.-]+")
# A whole tag as CommonMark reads one: `<name attributes>`, `<name/>` or `</name>`.
_TAG = re.compile(rf"<(/?)([A-Za-z][A-Za-z0-9-]*)((?:{attribute})*)\s*/?>")
_ATTRIBUTE = re.compile(rf"({attr_name})(?:\s*=\s*({attr_value}))?")


def _image_link(source: str, alt: str) -> str:
    return f'<a href="{escapeHtml(source)}">[image: {escapeHtml(alt or source)}]</a>'


def _image_as_link(renderer, tokens, idx, options, env) -> str:
    token = tokens[idx]
    source = str(token.attrGet("src") or "")
    alt = renderer.renderInlineAsText(token.children or [], options, env)
    return _image_link(source, alt)


def _html_image_as_link(attributes: str) -> str:
    values = {}
    for match in _ATTRIBUTE.finditer(attributes):
        value = match[2] or ""
        if value[:1] in ("'", '"'):
            value = value[1:-1]
        values.setdefault(match[1].lower(), html.unescape(value))
    source = values.get("src", "")
    if not source:
        return escapeHtml(f"[image: {values.get('alt', '')}]")
    return _image_link(source, values.get("alt", ""))


def _raw_html(content: str) -> str:
    """Raw HTML with comments dropped, images as links, allowed tags kept and anything else
    starting with `<` escaped, so that it reads as the text that was typed."""
    out = []
    position = 0
    while (start := content.find("<", position)) != -1:
        out.append(content[position:start])
        if content.startswith("<!--", start):
            # Unclosed, a comment runs to the end, as in a browser.
            end = content.find("-->", start + 2)
            position = len(content) if end == -1 else end + 3
            continue
        tag = _TAG.match(content, start)
        name = tag[2].lower() if tag else ""
        if name in _ALLOWED_TAGS:
            out.append(tag[0])
        elif name == "img":
            out.append("" if tag[1] else _html_image_as_link(tag[3]))
        else:
            out.append("&lt;")
            position = start + 1
            continue
        position = tag.end()
    out.append(content[position:])
    return "".join(out)


def _raw_html_token(renderer, tokens, idx, options, env) -> str:
    return _raw_html(tokens[idx].content)


def _keep_code_language(tag: str, attribute: str, value: str) -> str | None:
    if tag == "code" and attribute == "class":
        return value if _CODE_CLASS.fullmatch(value) else None
    return value


_renderer = MarkdownIt("commonmark", {"html": True, "linkify": False}).enable("table")
_renderer.add_render_rule("image", _image_as_link)
_renderer.add_render_rule("html_block", _raw_html_token)
_renderer.add_render_rule("html_inline", _raw_html_token)


def render_markdown(text: str, *, heading_offset: int = 0) -> str:
    """Safe HTML for untrusted Markdown: raw HTML within the allow-list, then sanitised.

    `heading_offset` moves the Markdown's headings down that many levels (to h6 at most), for
    a document shown under a page's own headings: `# Rules` in guidelines under the page's
    `<h2>Guidelines</h2>` is an `<h3>` with an offset of 2, so a page keeps one `<h1>`."""
    env: dict = {}
    tokens = _renderer.parse((text or "").replace("\x00", ""), env)
    if heading_offset:
        for token in tokens:
            if token.type in ("heading_open", "heading_close"):
                token.tag = f"h{min(int(token.tag[1]) + heading_offset, 6)}"
    rendered = _renderer.renderer.render(tokens, _renderer.options, env)
    return nh3.clean(
        rendered,
        tags=_ALLOWED_TAGS,
        attributes=_ALLOWED_ATTRIBUTES,
        attribute_filter=_keep_code_language,
        strip_comments=True,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
    )
