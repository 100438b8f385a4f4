"""Fuzzing the readers and writers.

Properties: generated databases round-trip through the one validated write path;
garbage and mutated files give a typed :class:`EvalTransError` (exit 2 on the command
line), never another exception; every import format (text, Aachen, SGML/XML, WMT), the
report reader and the journal replay likewise; whatever an import or a replay accepts
can be saved and loaded again.

Two budgets: the plain tests run in CI (together well under a minute); the
``_deep`` twins run 20 times as many examples and only on request::

    pytest -m fuzz tests/io/test_fuzz.py     # deselected by default (pyproject addopts)
"""

from __future__ import annotations

import json
import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evaltrans_qt.cli.main import main
from evaltrans_qt.engine.data.database import Database, Levels, Score
from evaltrans_qt.errors import EvalTransError
from evaltrans_qt.io import aachen, etdb, journal, plaintext, sgml, wmt
from evaltrans_qt.io.report import loads_report

CI_EXAMPLES = 40
DEEP_FACTOR = 20


def _budget(n: int, deep: bool = False):
    return settings(max_examples=n * (DEEP_FACTOR if deep else 1), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture,
                                           HealthCheck.filter_too_much])


def _twins(n: int, *strategies, **kw):
    """Decorate a property as (CI test, deep test marked ``fuzz``)."""
    def make(fn):
        ci = _budget(n)(given(*strategies, **kw)(fn))
        deep = pytest.mark.fuzz(_budget(n, deep=True)(given(*strategies, **kw)(fn)))
        return ci, deep
    return make


# ------------------------------------------------------------------ strategies
_XML_CHARS = st.characters(blacklist_categories=("Cs",), min_codepoint=9).filter(
    lambda c: (c in "\t\n\r" or ord(c) >= 32) and c not in "\ufffe\uffff")
sentences = st.text(_XML_CHARS, max_size=30)
names = st.from_regex(r"[a-z][a-z0-9_.-]{0,6}", fullmatch=True)
_KNOWN = {"doc", "seg", "sys", "class", "val", "evaluator", "time", "extrapolated", "count",
          "gray", "green", "perfect", "firstvalid", "continuous", "minimum", "maximum",
          "added", "judge"}
extra_attrs = st.dictionaries(names.filter(lambda n: n not in _KNOWN), sentences, max_size=2)
namespaced = st.sampled_from([{}, {"xml:lang": "de"}, {"xmlns:a": "urn:a", "a:b": "1"}])


def _note(text: str) -> str:
    """An unknown child element as the reader keeps it (lxml's serialisation)."""
    from lxml import etree
    el = etree.Element("note")
    el.text = text or None
    return etree.tostring(el, encoding="unicode")


children = st.lists(sentences.map(_note), max_size=2)


@st.composite
def levels(draw) -> list[Levels]:
    out = []
    for i in range(draw(st.integers(0, 3))):
        if draw(st.booleans()):
            lo = draw(st.integers(-30, 0))
            hi = draw(st.integers(lo, 100))
            out.append(Levels(f"c{i}", 0, lo, hi, hi, lo, True, float(lo), float(hi),
                              draw(extra_attrs)))
        else:
            count = draw(st.integers(2, 11))
            out.append(Levels(f"c{i}", count, 0, count - 1, count - 1,
                              draw(st.integers(0, 1)), extra_attrs=draw(extra_attrs)))
    out.append(Levels("isReference", 2, 0, 1, 1, 0))
    return out


def _value(draw, lv: Levels) -> float:
    if lv.continuous:
        return draw(st.floats(lv.minimum, lv.maximum, allow_nan=False))
    return float(draw(st.integers(0, lv.count - 1)))


@st.composite
def databases(draw) -> Database:
    db = Database(draw(levels()), draw(sentences))
    db.encoding = draw(st.sampled_from(["utf-8", "iso8859-1"]))
    db.extra_attrs = draw(extra_attrs) | draw(namespaced)
    db.extra_children = draw(children)
    positional = draw(st.booleans())
    texts = draw(st.lists(sentences, max_size=5, unique=not positional))
    for i, text in enumerate(texts):
        doc = draw(st.sampled_from([None, "d1"])) if positional else None
        src = db.add_source(text, doc, str(i + 1) if positional else None)
        src.extra_attrs = draw(extra_attrs) | draw(namespaced)
        src.extra_children = draw(children)
        for _ in range(draw(st.integers(0, 3))):
            t = db.add_target(src, draw(sentences), draw(st.sampled_from([None, "A", "ref-1"])))
            t.extra_attrs = draw(extra_attrs)
            t.extra_children = draw(children)
            for lv in db.levels:
                for judge in draw(st.lists(st.sampled_from([None, "anna", "b\u00f6b"]),
                                           max_size=2, unique=True)):
                    t.scores.append(Score(lv.name, _value(draw, lv), judge,
                                          draw(st.sampled_from([None, "2025-01-01T00:00:00"])),
                                          draw(st.booleans()), draw(extra_attrs)))
    return db


def _saves_and_loads_back(db: Database) -> None:
    data = etdb.checked_bytes(db)
    assert etdb.loads(data) == db
    assert etdb.dumps(etdb.loads(data)) == data


# ------------------------------------------------------------------ database reader/writer
def _roundtrip(db):
    _saves_and_loads_back(db)


test_database_round_trip, test_database_round_trip_deep = _twins(CI_EXAMPLES * 2, databases())(
    _roundtrip)

_TOKENS = [b"<", b">", b"/>", b'"', b"'", b"&", b"&amp;", b"&#0;", b"&#x110000;", b"<!ENTITY x 'y'>",
           b"<!DOCTYPE database [", b"]>", b"<!--", b"-->", b"<![CDATA[", b"]]>", b"xmlns:a=\"\"",
           b" a:b=\"1\"", b" val=\"1_0\"", b" val=\"nan\"", b" count=\"100000\"", b"<source>",
           b"<tgt>", b"<eval class=\"c0\" val=\"1\"/>", b"\x00", b"\xff\xfe", b"\r", b"9" * 30,
           b"<levels class=\"c0\" count=\"3\"/>", b"<s_sent>", b"</s_sent>", b"seg=\"1\"",
           b"encoding=\"latin-1\"", b"encoding=\"utf-16\""]


@st.composite
def mutated(draw, base: bytes) -> bytes:
    data = bytearray(base)
    for _ in range(draw(st.integers(1, 6))):
        pos = draw(st.integers(0, len(data)))
        op = draw(st.sampled_from(["insert", "delete", "replace"]))
        tok = draw(st.sampled_from(_TOKENS) | st.binary(max_size=4))
        if op == "insert":
            data[pos:pos] = tok
        elif op == "delete":
            data[pos:pos + draw(st.integers(1, 20))] = b""
        else:
            data[pos:pos + len(tok)] = tok
    return bytes(data)


_DEMO = etdb.demo_database_path().read_bytes()


def _garbage_loads(data):
    try:
        db = etdb.loads(data, "fuzz.etdb.xml")
    except EvalTransError:
        return
    try:
        data2 = etdb.checked_bytes(db)
    except EvalTransError:                 # e.g. a score the loader accepted but saving refuses
        return
    assert etdb.loads(data2) == db


test_database_garbage, test_database_garbage_deep = _twins(
    CI_EXAMPLES * 2, st.one_of(st.binary(max_size=300), mutated(_DEMO)))(_garbage_loads)


def _cli_garbage(tmp_path_factory, data):
    p = tmp_path_factory.mktemp("g") / "g.etdb.xml"
    p.write_bytes(data)
    try:
        rc = main(["info", str(p)])
    except SystemExit as exc:              # argparse never sees the file; kept for clarity
        rc = exc.code
    assert rc in (0, 2)


test_cli_info_garbage, test_cli_info_garbage_deep = _twins(
    CI_EXAMPLES // 2, data=mutated(_DEMO))(_cli_garbage)


# ------------------------------------------------------------------ imports
lines = st.lists(st.text(_XML_CHARS | st.sampled_from(["\x00", "\x0b", "\u2028", "\x85"]),
                         max_size=12), max_size=5)
line_end = st.sampled_from(["\n", "\r\n", "\r"])


def _import_text(tmp_path_factory, src, hyp, end):
    d = tmp_path_factory.mktemp("t")
    (d / "s.txt").write_bytes(end.join(src).encode("utf-8", "surrogatepass"))
    (d / "h.txt").write_bytes(end.join(hyp).encode("utf-8", "surrogatepass"))
    try:
        db = plaintext.import_text(d / "s.txt", [d / "h.txt"], [("A", d / "h.txt")])
    except EvalTransError:
        return
    _saves_and_loads_back(db)


test_import_text, test_import_text_deep = _twins(CI_EXAMPLES, lines, lines, line_end)(_import_text)

aachen_lines = st.lists(st.one_of(
    sentences.map(lambda t: "SOURCE " + t),
    st.tuples(st.sampled_from(["10", "3", "-", "2.5", "1_0", "\u0663", "", "11", "-1", "nan"]),
              sentences).map(lambda p: f"TARGET {p[0]} {p[1]}"),
    sentences), max_size=8)


def _import_aachen(tmp_path_factory, rows, end):
    p = tmp_path_factory.mktemp("a") / "db.txt"
    p.write_bytes(end.join(rows).encode("utf-8"))
    try:
        db = aachen.import_aachen(p)
    except EvalTransError:
        return
    _saves_and_loads_back(db)


test_import_aachen, test_import_aachen_deep = _twins(CI_EXAMPLES, aachen_lines, line_end)(
    _import_aachen)

sgml_parts = st.lists(st.one_of(
    st.sampled_from(["<srcset setid=t>", "</srcset>", '<refset sysid="r">', "</refset>",
                     '<tstset sysid="A">', "</tstset>", '<doc docid="d">', "</doc>",
                     '<seg id="1">', '<seg id="2">', "<seg id=3>", "</seg>", "<p>", "</p>",
                     "&amp;", "&lt;", "&#12;", "<", ">", "\n"]),
    st.text(string.ascii_letters + " ", max_size=5)), max_size=25)


def _import_sgml(tmp_path_factory, src, ref, xml):
    d = tmp_path_factory.mktemp("s")
    ext = ".xml" if xml else ".sgm"
    head = '<?xml version="1.0"?>\n<mteval>' if xml else ""
    tail = "</mteval>" if xml else ""
    (d / f"s{ext}").write_text(head + "".join(src) + tail)
    (d / f"r{ext}").write_text(head + "".join(ref) + tail)
    try:
        db = sgml.import_sgml(d / f"s{ext}", [d / f"r{ext}"], [])
    except EvalTransError:
        return
    _saves_and_loads_back(db)


test_import_sgml, test_import_sgml_deep = _twins(CI_EXAMPLES, sgml_parts, sgml_parts,
                                                 st.booleans())(_import_sgml)

tsv_rows = st.lists(st.tuples(st.sampled_from(["A", "ref-A", "B", "system", ""]),
                              st.sampled_from(["1", "2", "0", "x", "1_0", "\u0661", " 1"]),
                              st.sampled_from(["-5", "3.5", "", " 3 ", "1_0", "inf", "1e400",
                                               "\u0663", "x", "-0"])),
                    max_size=6)


def _import_wmt(tmp_path_factory, rows, names):
    d = tmp_path_factory.mktemp("w")
    (d / "t.src.en").write_text("a\nb\n")
    for n in names:
        (d / n).write_text("x\ny\n")
    (d / "s.tsv").write_text("\n".join("\t".join(r) for r in rows) + "\n")
    try:
        db = wmt.import_wmt(d, d / "s.tsv")
    except EvalTransError:
        return
    _saves_and_loads_back(db)


test_import_wmt, test_import_wmt_deep = _twins(
    CI_EXAMPLES, tsv_rows,
    st.lists(st.sampled_from(["t.hyp.A.de", "t.ref.A.de", "t.hyp.ref-A.de", "t.hyp.B.de",
                              "t.hyp.A.fr"]), min_size=1, max_size=3, unique=True))(_import_wmt)


# ------------------------------------------------------------------ report reader
def _report_bytes() -> bytes:
    from evaltrans_qt.engine.options import EvalOptions
    from evaltrans_qt.engine.run.driver import evaluate
    from evaltrans_qt.engine.run.executors.local import SerialExecutor
    from evaltrans_qt.io.report import build_report
    db = Database()
    for i, (s, r, h) in enumerate([("a b", "x y z", "x y"), ("c", "u v", "v u w")]):
        src = db.add_source(s, None, str(i + 1))
        db.add_target(src, r, "ref-1", reference=True)
        db.add_target(src, h, "A")
    run = evaluate(db, EvalOptions(), ["wer", "bleu", "cder"], executor=SerialExecutor(),
                   reference_distances=True)
    return build_report(run, "A", sentences_in_detail=True, include_sentences=True)


_REPORT = _report_bytes()
_REPORT_TOKENS = [b' nr="x"', b' nr="-1"', b' nr="99999999999"', b">nan<", b">abc<", b">1e400<",
                  b' stats="1 x"', b' stats=""', b"<reference-distance nr=\"3\">1</reference-distance>",
                  b"<candidate nr=\"0\">", b"</candidate>", b"<!ENTITY a 'b'>", b"<!-- <report -->"]


@st.composite
def mutated_report(draw) -> bytes:
    data = bytearray(_REPORT)
    for _ in range(draw(st.integers(1, 5))):
        pos = draw(st.integers(0, len(data)))
        tok = draw(st.sampled_from(_REPORT_TOKENS + _TOKENS))
        if draw(st.booleans()):
            data[pos:pos] = tok
        else:
            data[pos:pos + len(tok)] = tok
    return bytes(data)


def _report(data):
    try:
        loads_report(data, "fuzz.xml")
    except EvalTransError:
        pass


test_report_reader, test_report_reader_deep = _twins(CI_EXAMPLES * 2, mutated_report())(_report)


# ------------------------------------------------------------------ journal replay
json_values = st.one_of(st.none(), st.booleans(), st.integers(-3, 10**30),
                        st.floats(allow_nan=True), st.sampled_from(["s", "t", "A", "c0", "1", ""]),
                        st.lists(st.integers(0, 3), max_size=2))
entries = st.lists(st.one_of(
    st.fixed_dictionaries({"source": st.just("s"), "target": st.just("t"), "system": st.just("A"),
                           "cls": st.just("c0"), "value": st.integers(0, 2), "seg": st.just("1")},
                          optional={k: json_values for k in ("seq", "target_index", "judge",
                                                             "time", "extrapolated", "doc")}),
    st.dictionaries(st.sampled_from(["source", "target", "cls", "value", "seq", "type",
                                     "system", "judge"]), json_values, max_size=6)),
    max_size=6)


def _journal(tmp_path_factory, rows, torn):
    d = tmp_path_factory.mktemp("j")
    db = Database([Levels("c0", 3), Levels("isReference", 2, perfect=1)])
    src = db.add_source("s", None, "1")
    db.add_target(src, "t", "A")
    text = '{"evaltrans-journal": 1}\n' + "".join(
        json.dumps(r, allow_nan=True) + "\n" for r in rows) + torn
    (d / "db.etdb.xml.journal").write_text(text)
    j = journal.Journal(d / "db.etdb.xml.journal")
    changes = j.entries()
    journal.replay(db, changes)
    etdb.save_database(db, d / "db.etdb.xml")
    assert etdb.load_database(d / "db.etdb.xml") == db


test_journal_replay, test_journal_replay_deep = _twins(
    CI_EXAMPLES * 2, entries, st.sampled_from(["", '{"source": "s", "tar', "[1,\n", "\x00\n"]))(
    _journal)
