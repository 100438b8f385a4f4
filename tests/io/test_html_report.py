"""The HTML report parsed with lxml: every table and chart of the analysis is there, charts
are inline SVG, nothing refers outside the page, examples are highlighted by their edits,
every number has its signature, and sentence text is escaped."""

from __future__ import annotations

import re

import pytest
from lxml import html as lxml_html

from evaltrans_qt.engine.analysis.corpus import corpus_from_lists
from evaltrans_qt.engine.analysis.pairwise import AnalysisSettings, Labels, analyze_systems
from evaltrans_qt.io.html_report import bar_chart, render_html, write_html_report

REFS = ["the cat sat on the mat .", "a dog ran in the park today", "we meet at noon tomorrow .",
        "x < y & y > z holds", "one two three four five six seven eight nine ten eleven"]
OUTS = {"A": ["the cat is on the mat .", "a dog runs in park today", "we will meet at noon .",
              "x < y & y > z", "one two three four five six seven eight nine ten"],
        "B": ["cat sat on mat", "the dog ran in the park today", "<script>alert(1)</script>",
              "x < y and y > z holds", "one two three four five six seven eight nine ten eleven"]}
SECTIONS = ("summary", "scores", "word-accuracy", "label-accuracy", "length-buckets",
            "lengthdiff-buckets", "score-buckets", "error-classes", "ngrams", "examples",
            "signatures")


@pytest.fixture(scope="module")
def result():
    corpus = corpus_from_lists(REFS, OUTS)
    labels = Labels([["T"] * len(r) for r in corpus.ref])
    return analyze_systems(corpus, labels=labels, settings=AnalysisSettings(samples=30))


@pytest.fixture(scope="module")
def page(result, tmp_path_factory):
    path = tmp_path_factory.mktemp("html") / "report.html"
    write_html_report(result, path, title="A & B")
    text = path.read_text(encoding="utf-8")
    return text, lxml_html.fromstring(text.encode("utf-8"))


def test_every_section_table_and_chart(page):
    _, tree = page
    for ident in SECTIONS:
        assert tree.xpath(f"//section[@id='{ident}']"), ident
    for ident in ("scores", "word-accuracy", "label-accuracy", "length-buckets",
                  "lengthdiff-buckets", "score-buckets", "error-classes"):
        sec = tree.xpath(f"//section[@id='{ident}']")[0]
        assert sec.xpath(".//svg") and sec.xpath(".//table"), ident
        assert sec.xpath(".//svg//rect"), ident            # bars drawn
    # the word-accuracy table: one row per frequency bucket (compare-mt's nine) + header
    table = tree.xpath("//section[@id='word-accuracy']//table")[0]
    assert len(table.xpath(".//tr")) == 10
    assert tree.xpath("//title")[0].text == "A & B"


def test_bootstrap_whiskers_on_the_word_accuracy_chart(page, result):
    _, tree = page
    whiskers = tree.xpath("//section[@id='word-accuracy']//svg//path")
    finite = result.word_accuracy.fmeas_low.notna().sum()
    assert finite > 0 and len(whiskers) == finite


def test_nothing_leaves_the_page(page):
    text, tree = page
    for el in tree.iter():
        for attr in ("src", "href", "xlink:href", "action", "data"):
            v = el.get(attr)
            assert v is None or not re.match(r"\s*(https?:|//|file:)", v), (el.tag, v)
    assert not tree.xpath("//script | //link | //img | //iframe | //object | //embed")
    assert "@import" not in text and "url(" not in text


def test_examples_are_highlighted(page, result):
    _, tree = page
    ex = tree.xpath("//section[@id='examples']//table[@class='ex']")
    assert len(ex) == len(result.examples)
    spans = tree.xpath("//section[@id='examples']//table[@class='ex']//span")
    kinds = {c for s in spans for c in s.get("class").split() if c.startswith("e-")}
    assert {"e-m", "e-s", "e-d"} <= kinds
    first = result.examples.iloc[0]
    row_spans = ex[0].xpath(".//tr[3]//span")               # the first system's output
    assert [s.text for s in row_spans] == list(first.output_a)
    assert [s.get("class").split()[1] for s in row_spans] == \
        [{"=": "e-m", "S": "e-s", "I": "e-i"}[m] for m in first.edits_a]


def test_every_number_has_its_signature(page, result):
    _, tree = page
    for ident in SECTIONS[1:]:
        sec = tree.xpath(f"//section[@id='{ident}']")[0]
        sigs = sec.xpath(".//*[@data-signature]")
        assert sigs and all(s.get("data-signature") for s in sigs), ident
    scores = tree.xpath("//section[@id='scores']//*[@data-signature]")[0]
    assert scores.get("data-signature") == result.signatures["bootstrap"]
    errs = tree.xpath("//section[@id='error-classes']//*[@data-signature]")[0]
    assert errs.get("data-signature").startswith("errorclasses|")


def test_sentence_text_is_escaped(page):
    text, tree = page
    assert "<script>alert(1)</script>" not in text
    words = tree.xpath("//section[@id='examples']//span/text()")
    assert "alert(1)</script>" in " ".join(words) or "<script>alert(1)</script>" in words


def test_chart_of_nothing_and_of_negative_values():
    svg = bar_chart(["a", "b"], {"S": [float("nan"), -2.0]}, {"S": [(float("nan"), 1.0),
                                                                    (-3.0, -1.0)]})
    tree = lxml_html.fromstring(svg)
    assert len(tree.xpath("//rect")) == 2              # one bar + the legend's box
    assert len(tree.xpath("//path")) == 1              # only the finite interval


def test_one_system_report(result):
    corpus = corpus_from_lists(REFS, {"A": OUTS["A"]})
    single = analyze_systems(corpus, settings=AnalysisSettings(samples=10, error_classes=False))
    tree = lxml_html.fromstring(render_html(single).encode("utf-8"))
    assert "nothing to compare" in tree.xpath("//section[@id='ngrams']")[0].text_content()
    assert not tree.xpath("//section[@id='error-classes']")


# --------------------------------------------------------------------------- a real browser
def _proxy() -> tuple[object, int, list[bytes]]:
    """A TCP listener that records the first bytes of every connection (Chromium's proxy:
    any request the page made would arrive here)."""
    import socket
    import threading
    seen: list[bytes] = []
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen()

    def serve() -> None:
        while True:
            try:
                conn, _ = srv.accept()
            except OSError:
                return
            with conn:
                conn.settimeout(2)
                try:
                    seen.append(conn.recv(200))
                except OSError:
                    seen.append(b"?")
    threading.Thread(target=serve, daemon=True).start()
    return srv, srv.getsockname()[1], seen


#: Chromium's own background services (clock, updates, sign-in): requests to these are the
#: browser's, whatever page it shows.
CHROMIUM_SERVICES = {"clients2.google.com", "update.googleapis.com", "accounts.google.com",
                     "optimizationguide-pa.googleapis.com", "safebrowsing.googleapis.com",
                     "content-autofill.googleapis.com", "clientservices.googleapis.com",
                     "redirector.gvt1.com", "edgedl.me.gvt1.com", "android.clients.google.com"}


def _hosts(seen: list[bytes]) -> set[str]:
    """The hosts of the proxied requests (``GET http://host/...`` or ``CONNECT host:443``)."""
    out = set()
    for s in seen:
        line = s.split(b"\r\n")[0].decode("latin-1").split()
        if len(line) >= 2:
            target = line[1].removeprefix("http://").removeprefix("https://")
            out.add(target.split("/")[0].split(":")[0])
    return out


def _render(browser: str, src, png, tmp) -> set[str]:
    import subprocess
    srv, port, seen = _proxy()
    try:
        subprocess.run([browser, "--headless=new", "--no-sandbox", "--disable-gpu",
                        f"--user-data-dir={tmp}", "--no-first-run",
                        "--disable-background-networking", "--disable-component-update",
                        "--disable-sync", "--disable-default-apps", "--disable-extensions",
                        f"--proxy-server=127.0.0.1:{port}", "--proxy-bypass-list=<-loopback>",
                        "--window-size=1000,2500", f"--screenshot={png}", src.as_uri()],
                       check=True, capture_output=True, timeout=120)
    finally:
        srv.close()                                                  # type: ignore[attr-defined]
    return _hosts(seen) - CHROMIUM_SERVICES


def test_chromium_renders_it_without_a_request(page, tmp_path):
    """With headless Chromium installed (not in CI: scripts/render_html.sh documents the
    same check), the report renders to a picture that is not blank, and no request of the
    page reaches the proxy every request has to go through -- where a page with one
    external image does reach it."""
    import shutil
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("no chromium installed")
    from PIL import Image
    text, _ = page
    src = tmp_path / "r.html"
    src.write_text(text, encoding="utf-8")
    png = tmp_path / "r.png"
    assert _render(browser, src, png, tmp_path / "p1") == set()
    im = Image.open(png).convert("L")
    colours = im.getcolors(maxcolors=1 << 16) or []
    assert len(colours) > 50                   # text, bars and highlights: not a blank page
    assert min(c for _, c in colours) < 60     # dark text somewhere
    leaky = tmp_path / "leaky.html"
    leaky.write_text('<html><body><img src="http://example.invalid/x.png"></body></html>',
                     encoding="utf-8")
    assert _render(browser, leaky, tmp_path / "l.png", tmp_path / "p2") == {"example.invalid"}
