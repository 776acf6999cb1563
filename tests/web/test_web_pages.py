"""The pages as the server renders them, without JavaScript, and the static site."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from urllib.parse import quote

from gpulane.queries.compare import compare
from gpulane.web.site import write_site


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.hrefs: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag in ("a", "link", "script") and (attrs.get("href") or attrs.get("src")):
            self.hrefs.append(attrs.get("href") or attrs.get("src"))


def _parse(html: str) -> _Links:
    p = _Links()
    p.feed(html)
    return p


def test_the_plain_answer_needs_no_script(server):
    status, html, headers = server.get("/explain?gpu=7900xtx&os=Windows%2011&app=vLLM")
    assert status == 200
    assert 'class="verdict not_supported ' in html
    assert "vLLM does not run on Windows 11" in html
    assert "/source/vllm-docs-gpu#fact-vllm-os-windows-native" in html
    assert "script-src 'self'" in headers["content-security-policy"]
    # Nothing is loaded from elsewhere: every script and stylesheet is this server's.
    assert re.findall(r'<(?:script|link)[^>]+(?:src|href)="([^"]+)"', html) == ["/static/style.css", "/static/app.js"]


def test_a_supported_configuration_shows_the_whole_chain(server):
    status, html, _ = server.get("/explain?gpu=RX%207900%20XTX&os=Ubuntu%2024.04&app=vLLM")
    assert status == 200 and 'class="verdict supported ' in html
    assert html.count('<li class="box ') == 7
    assert "Fixes" not in html


def test_workarounds_when_asked(server):
    plain = server.get("/explain?gpu=RTX%204090&os=Windows%2011&app=FlashAttention")[1]
    asked = server.get("/explain?gpu=RTX%204090&os=Windows%2011&app=FlashAttention&workarounds=1")[1]
    assert 'id="workarounds"' in plain and "Show them" in plain
    # FlashAttention's README: Windows might work from v2.3.2 on, from a few user reports.
    assert "fa2-os-windows" in asked and "community" in asked


def test_unknown_names_are_answered_with_the_caret(server):
    status, html, _ = server.get("/explain?gpu=" + quote("RX 7900XTXX"))
    assert status == 400
    assert "unknown gpu" in html and "^" in html and "Radeon RX 7900 XTX" in html


def test_compare_page_cells_open_their_explanation(server):
    status, html, _ = server.get("/compare?gpu=Radeon%20PRO%20W7900&gpu=RTX%20A6000")
    assert status == 200
    assert html.count('<td class="cell ') == 8 * 6
    links = [h for h in _parse(html).hrefs if h.startswith("/explain?")]
    absent = html.count('<th class="os absent"')  # an OS the knowledge base lacks has nothing to explain
    assert len(links) == 8 * (6 - absent)
    assert any("app=vLLM" in h and "os=Windows+11" in h for h in links)


def test_gpu_and_source_pages_list_every_fact(server):
    status, html, _ = server.get("/gpu/7900xtx")
    assert status == 200 and "<h1>Radeon RX 7900 XTX" in html
    assert "radeon-rx-7900-xtx-has-gfx1100" in html
    status, html, _ = server.get("/source/vllm-docs-gpu")
    assert status == 200 and 'id="fact-vllm-os-windows-native"' in html
    assert server.get("/source/no-such-source")[0] == 404
    assert server.get("/sources")[0] == 200


def test_query_box_answers_any_statement(server):
    status, html, _ = server.get("/query?q=" + quote('find gpu where vendor = AMD and app = vLLM and os = "Ubuntu 24.04"'))
    assert status == 200 and 'id="result"' in html and "gfx1100" in html
    status, html, _ = server.get("/query?q=" + quote('compare gpu in {"RX 7900 XTX", "RTX 4090"} where app = vLLM'))
    assert status == 200 and 'class="grid"' in html
    status, html, _ = server.get("/query?q=" + quote("fnd gpu"))
    assert status == 400 and "did you mean &#39;find&#39;?" in html


def test_static_site_links_only_to_pages_it_holds(shipped, tmp_path):
    written = write_site(shipped, tmp_path, [["RX 7900 XTX", "RTX 4090"]], apps=["vLLM", "Ollama"])
    names = {p.relative_to(tmp_path).as_posix() for p in written}
    assert "index.html" in names and any(n.startswith("compare/") for n in names)
    assert sum(n.startswith("node/") for n in names) == 2  # the two GPUs
    assert sum(n.startswith("source/") for n in names) == len(shipped.sources)
    present = [c for c in compare(shipped, ["RX 7900 XTX", "RTX 4090"], apps=["vLLM"]).columns if not c.absent]
    assert sum(n.startswith("explain/") for n in names) == 2 * len(present)  # rows × (GPU, OS) columns with an OS
    for page in written:
        html = page.read_text()
        parsed = _parse(html)
        for href in parsed.hrefs:
            if href.startswith(("http://", "https://")):
                continue
            target, _, anchor = href.partition("#")
            resolved = (page.parent / target).resolve()
            assert resolved.exists(), f"{page.name}: {href}"
            if anchor:
                assert f'id="{anchor}"' in resolved.read_text(), f"{page.name}: {href}"


def test_lower_stages_do_not_import_the_web_package():
    from pathlib import Path

    import gpulane

    package = Path(gpulane.__file__).parent
    for stage in ("graph", "loaders", "queries"):
        for module in (package / stage).rglob("*.py"):
            assert "gpulane.web" not in module.read_text(), module
