from mining.markdown import render_markdown


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
