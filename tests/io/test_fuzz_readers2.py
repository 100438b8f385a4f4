"""Fuzzing the readers added since the first fuzzers: mt-metrics-eval directories, WMT XML,
score files (JSON Lines, TSV, mt-metrics-eval, WMT), ranking CSV, SegRanks trees,
alignments, extracted segments, JSON exports and the ``<segranks>`` database element.

Properties: any input gives a typed :class:`EvalTransError` or a database that saves and
loads back; an import appended onto itself changes nothing (appends merge by identity).
Hostile pieces are mixed in: 5000-digit and 400-digit numbers, ``nan``, deep nesting,
non-ASCII digits, tabs and NUL in ids, inline markup.

The plain tests run in CI on a small budget; the ``_deep`` twins run 20 times as many
examples only on request: ``pytest -m fuzz tests/io/test_fuzz_readers2.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.errors import EvalTransError
from evaltrans_qt.io import etdb, scores
from evaltrans_qt.io.mtme import import_mtme
from evaltrans_qt.io.segranks import alignments, formats, trees
from evaltrans_qt.io.segranks.wmt_csv import read_judgements
from evaltrans_qt.io.wmtxml import import_wmtxml

CI_EXAMPLES = 25
DEEP_FACTOR = 20
EXAMPLE = Path(__file__).resolve().parents[2] / "resources" / "segranks_example"


def _settings(n: int, deep: bool):
    return settings(max_examples=n * (DEEP_FACTOR if deep else 1), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture,
                                           HealthCheck.filter_too_much])


def _twins(n: int, *strategies):
    """(CI test, deep test marked ``fuzz``) of one property."""
    def make(fn):
        ci = _settings(n, False)(given(*strategies)(fn))
        deep = pytest.mark.fuzz(_settings(n, True)(given(*strategies)(fn)))
        return ci, deep
    return make


HOSTILE = ["1" * 5000, "1" * 400, "nan", "inf", "-1", "0", "\u0663", "\u00b2", "1e309", "",
           " 1", "1_0", "None", "\t", "\x00", "../x", "a b", "isReference", "[" * 200]
word = st.sampled_from(["one", "two", "a", "b", "S", "T", "ref", "x", "<i>", "&amp;"])
token = st.one_of(word, st.sampled_from(HOSTILE))
line = st.lists(token, max_size=4).map(" ".join)


def _saves_and_loads_back(db: Database) -> None:
    data = etdb.checked_bytes(db)
    assert etdb.loads(data) == db


def _typed(fn):
    """``fn()``'s result, or None when it raised an :class:`EvalTransError` (anything else
    fails the test)."""
    try:
        return fn()
    except EvalTransError:
        return None


# ------------------------------------------------------------------ mt-metrics-eval
def _mtme(tmp_path_factory, src, hyp, seg_scores, human_name, human):
    root = tmp_path_factory.mktemp("m")
    lp = "en-de"
    for rel, lines in ((f"sources/{lp}.txt", src), (f"system-outputs/{lp}/S.txt", hyp),
                       (f"references/{lp}.ref.txt", hyp),
                       (f"metric-scores/{lp}/M-ref.seg.score", [f"S {v}" for v in seg_scores]),
                       (f"human-scores/{lp}.{human_name}.seg.score", [f"S {v}" for v in human])):
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("".join(f"{x}\n" for x in lines), encoding="utf-8", errors="surrogatepass")
    db = _typed(lambda: import_mtme(root, lp))
    if db is None:
        return
    _saves_and_loads_back(db)
    again = _typed(lambda: import_mtme(root, lp, etdb.loads(etdb.checked_bytes(db))))
    assert again == db


test_mtme, test_mtme_deep = _twins(
    CI_EXAMPLES, st.lists(line, min_size=1, max_size=3), st.lists(line, max_size=3),
    st.lists(st.sampled_from(["0.5", "None", "-1"] + HOSTILE), max_size=4),
    st.sampled_from(["mqm", "isReference", "da", "a.b"]),
    st.lists(st.sampled_from(["1", "None", "-25"] + HOSTILE), max_size=4))(_mtme)


# ------------------------------------------------------------------ WMT XML
@st.composite
def wmt_xml(draw) -> bytes:
    def segs(n: int) -> str:
        return "".join(f'<seg id="{draw(st.sampled_from([str(i + 1), str(i + 1), "x", "1"]))}">'
                       f"{draw(line)}{draw(st.sampled_from(['', '<i>it</i> more', '<b/>']))}"
                       "</seg>" for i in range(n))
    n = draw(st.integers(0, 3))
    doc_id = draw(st.sampled_from(["d1", "d1", "d&#9;1", "", "d 2"]))
    body = f'<src lang="en"><p>{segs(n)}</p></src>'
    if draw(st.booleans()):
        body += f'<ref lang="de" translator="A"><p>{segs(draw(st.integers(0, n + 1)))}</p></ref>'
    if draw(st.booleans()):
        body += f'<hyp lang="de" system="S"><p>{segs(draw(st.integers(0, n + 1)))}</p></hyp>'
    text = f'<dataset id="t"><collection id="c"><doc id="{doc_id}">{body}</doc></collection>' \
           "</dataset>"
    if draw(st.booleans()):
        pos = draw(st.integers(0, len(text)))
        text = text[:pos] + draw(st.sampled_from(["<", "&", "\x00", "]]>", "</seg>"])) + text[pos:]
    return text.encode("utf-8")


def _wmtxml(tmp_path_factory, data):
    f = tmp_path_factory.mktemp("x") / "t.xml"
    f.write_bytes(data)
    db = _typed(lambda: import_wmtxml(f))
    if db is None:
        return
    _saves_and_loads_back(db)
    assert import_wmtxml(f, etdb.loads(etdb.checked_bytes(db))) == db


test_wmtxml, test_wmtxml_deep = _twins(CI_EXAMPLES * 2, wmt_xml())(_wmtxml)


# ------------------------------------------------------------------ score files
def _score_db() -> Database:
    db = Database()
    for i, text in enumerate(["one", "two"]):
        src = db.add_source(text, None, str(i + 1))
        db.add_target(src, f"r{i}", "ref", reference=True)
        db.add_target(src, f"s{i}", "S")
    return db


value = st.one_of(st.sampled_from(HOSTILE), st.integers(-10**6, 10**6).map(str),
                  st.floats(allow_nan=True).map(repr))
jsonl_record = st.one_of(
    st.fixed_dictionaries({"system": st.sampled_from(["S", "ref", "X"]),
                           "segment": st.sampled_from([1, 2, 3, "1", "1" * 5000]),
                           "score": st.one_of(st.floats(allow_nan=False), st.none(),
                                              st.integers(-10**500, 10**500))}).map(json.dumps),
    value, st.sampled_from(["[" * 100_000 + "]" * 100_000, '{"system": "S"']))


def _score_file(tmp_path_factory, fmt, rows):
    d = tmp_path_factory.mktemp("s")
    name = {"jsonl": "m.jsonl", "tsv": "m.tsv", "mtme": "M-ref.seg.score",
            "wmt": "m.seg.score"}[fmt]
    f = d / name
    f.write_text("\n".join(rows) + "\n", encoding="utf-8", errors="surrogatepass")
    db = _score_db()
    got = _typed(lambda: scores.import_scores(db, [f], fmt=fmt))
    if got is not None:
        _saves_and_loads_back(db)


tsv_row = st.tuples(st.sampled_from(["S", "ref", "X", ""]), value, value).map("\t".join)
mtme_row = st.tuples(st.sampled_from(["S", "ref", "X"]), value).map(" ".join)
wmt_row = st.tuples(st.just("M en-de t S"), value, value).map(" ".join)
test_score_files, test_score_files_deep = _twins(
    CI_EXAMPLES * 2, st.sampled_from(["jsonl", "tsv", "mtme", "wmt"]),
    st.lists(st.one_of(jsonl_record, tsv_row, mtme_row, wmt_row), max_size=5))(_score_file)


# ------------------------------------------------------------------ ranking CSV
_HEAD = "srclang,trglang,srcIndex,documentId,segmentId,judgeId,system1Id,system1rank," \
        "system2Id,system2rank"
csv_row = st.tuples(st.just("en,de"), value, st.sampled_from(["", "d"]), value,
                    st.sampled_from(["j", ""]), st.sampled_from(["S", "ref", "X"]), value,
                    st.sampled_from(["S", "T"]), value).map(",".join)


def _ranking_csv(tmp_path_factory, rows, long_field):
    f = tmp_path_factory.mktemp("r") / "r.csv"
    f.write_text("\n".join([_HEAD, *rows]) + ("\n" + "x" * long_field if long_field else "")
                 + "\n", encoding="utf-8", errors="surrogatepass")
    db = _score_db()
    t = db.add_target(db.sources[0], "t0", "T")
    assert t
    if _typed(lambda: read_judgements(db, f)) is not None:
        _saves_and_loads_back(db)


test_ranking_csv, test_ranking_csv_deep = _twins(
    CI_EXAMPLES, st.lists(csv_row, max_size=4),
    st.sampled_from([0, 0, 140_000]))(_ranking_csv)


# ------------------------------------------------------------------ SegRanks files
def _segranks_db() -> Database:
    from evaltrans_qt.engine.human.segranks.extract import extract_database
    from evaltrans_qt.engine.human.segranks.model import source_tokens
    db = etdb.load_database(EXAMPLE / "campaign.etdb.xml")
    toks = [source_tokens(s) for s in db.sources]
    tr = trees.read_ptb(EXAMPLE / "sources.ptb", toks)
    al = {s: (alignments.read_pharaoh(EXAMPLE / f"{s}.pharaoh"), f"{s}.pharaoh")
          for s in ("sysA", "sysB", "sysC")}
    extract_database(db, tr, al)
    return db


_SEGRANKS = etdb.dumps(_segranks_db())


def _mutate(draw, base: bytes, tokens: list[bytes]) -> bytes:
    data = bytearray(base)
    for _ in range(draw(st.integers(1, 4))):
        pos = draw(st.integers(0, len(data)))
        tok = draw(st.sampled_from(tokens))
        if draw(st.booleans()):
            data[pos:pos] = tok
        else:
            data[pos:pos + len(tok)] = tok
    return bytes(data)


_SEGRANKS_TOKENS = [t.encode() for t in HOSTILE if t.isascii()] + [
    b' max="99"', b' min="9"', b'<ranks segment="1">1 2</ranks>', b' words="0 1"', b'"', b"<"]


def _segranks_element(data):
    raw = _mutate(data.draw, _SEGRANKS, _SEGRANKS_TOKENS)
    db = _typed(lambda: etdb.loads(raw, "fuzz.etdb.xml"))
    if db is None:
        return
    try:
        data2 = etdb.checked_bytes(db)
    except EvalTransError:
        return
    assert etdb.loads(data2) == db


test_segranks_element, test_segranks_element_deep = _twins(CI_EXAMPLES, st.data())(
    _segranks_element)

segranks_field = st.one_of(st.sampled_from(HOSTILE), line)


def _segranks_files(tmp_path_factory, kind, fields):
    d = tmp_path_factory.mktemp("g")
    db = etdb.loads(_SEGRANKS)
    if kind == "tsv":
        f = d / "x.segments"
        f.write_text("\t".join(fields) + "\n", encoding="utf-8", errors="surrogatepass")
        read = lambda: formats.read_segments(db, f)
    elif kind == "json":
        f = d / "x.json"
        f.write_text(json.dumps({",".join(fields[:2]): [dict.fromkeys(fields[2:], 1)]})
                     if fields else "[" * 100_000, encoding="utf-8", errors="surrogatepass")
        read = lambda: formats.read_ranks_json(db, f, judge="j")
    elif kind == "conllu":
        f = d / "x.conllu"
        f.write_text("\t".join((fields + ["_"] * 10)[:10]) + "\n\n", encoding="utf-8",
                     errors="surrogatepass")
        read = lambda: trees.read_conllu(f)
    elif kind == "ptb":
        f = d / "x.ptb"
        f.write_text("(S " + " ".join(f"(X {w or 'w'})" for w in fields) + ")\n",
                     encoding="utf-8", errors="surrogatepass")
        read = lambda: trees.read_ptb(f)
    else:
        f = d / "x.pharaoh"
        f.write_text(" ".join(f"{a}-{b}" for a, b in zip(fields, fields[1:])) + "\n",
                     encoding="utf-8", errors="surrogatepass")
        read = lambda: alignments.read_pharaoh(f)
    _typed(read)
    if kind in ("tsv", "json"):
        _saves_and_loads_back(db)


test_segranks_files, test_segranks_files_deep = _twins(
    CI_EXAMPLES * 2, st.sampled_from(["tsv", "json", "conllu", "ptb", "pharaoh"]),
    st.lists(segranks_field, max_size=8))(_segranks_files)
