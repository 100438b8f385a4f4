"""Readers never crash and never truncate: each input is small, built here, and hostile in
one way (a 5000-digit or 400-digit number, JSON nested 100 000 deep, a CSV field over
131 072 characters, ``stats="nan"``, a tab in an id...). Every one must be refused with an
:class:`InputFormatError` naming the file (and line where there is one) -- never another
exception.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.human.segranks.extract import extract_database
from evaltrans_qt.engine.human.segranks.model import source_tokens
from evaltrans_qt.errors import InputFormatError
from evaltrans_qt.io import etdb, scores
from evaltrans_qt.io.limits import MAX_INT_DIGITS, load_json, parse_int, parse_number
from evaltrans_qt.io.plaintext import import_text
from evaltrans_qt.io.segranks import alignments, formats, trees
from evaltrans_qt.io.segranks.wmt_csv import read_judgements

BIG = "1" * 5000                       # beyond Python's 4300-digit int-string limit
EXAMPLE = Path(__file__).resolve().parents[2] / "resources" / "segranks_example"


def _db(tmp_path: Path) -> Database:
    src = tmp_path / "src.txt"
    src.write_text("a b c\nd e f\n")
    ref = tmp_path / "ref.txt"
    ref.write_text("a b c\nd e f\n")
    hyp = tmp_path / "hyp.txt"
    hyp.write_text("a b x\nd e f\n")
    hyp2 = tmp_path / "hyp2.txt"
    hyp2.write_text("a x x\nd x f\n")
    return import_text(src, [ref], [("S", hyp), ("T", hyp2)])


def _refused(fn, path: Path, line: int | None = -1) -> InputFormatError:
    with pytest.raises(InputFormatError) as err:
        fn()
    assert Path(err.value.path) == path
    if line != -1:
        assert err.value.line == line
    return err.value


# ------------------------------------------------------------------ the strict parsers
@pytest.mark.parametrize("text", [BIG, "1" * (MAX_INT_DIGITS + 1), "²", "٣", " 1", "1_0", "-1",
                                  "", "0x1"])
def test_parse_int_refuses_before_converting(text):
    with pytest.raises(ValueError):
        parse_int(text)


@pytest.mark.parametrize("text", [BIG, "1" * 400, "1" * 400 + ".0", "1e309", "nan", "inf",
                                  "٣", "1_0"])
def test_parse_number_refuses_huge_and_odd_numbers(text):
    with pytest.raises(ValueError):
        parse_number(text)


@pytest.mark.parametrize("text", ["[" * 100_000 + "]" * 100_000, '{"a": ' + BIG + "}",
                                  '{"a": 1' + "0" * 400 + ".5}", '{"a": NaN}', '{"a": Infinity}'])
def test_load_json_refuses_deep_nesting_and_huge_numbers(text):
    with pytest.raises(ValueError):
        load_json(text)


def test_load_json_reads_ordinary_json_and_brackets_inside_strings():
    assert load_json('{"s": "[[[[{{", "n": -12, "x": 0.5}', max_depth=1) == \
        {"s": "[[[[{{", "n": -12, "x": 0.5}


# ------------------------------------------------------------------ score files
@pytest.mark.parametrize("record", [
    '{"system": "S", "segment": 1, "score": ' + BIG + "}",
    '{"system": "S", "segment": 1, "score": 1' + "0" * 400 + "}",
    '{"system": "S", "segment": ' + BIG + ', "score": 1}',
    "[" * 100_000 + "]" * 100_000,
])
def test_jsonl_scores_with_huge_numbers_or_deep_nesting_are_refused(tmp_path, record):
    db = _db(tmp_path)
    f = tmp_path / "m.jsonl"
    f.write_text('{"system": "S", "segment": 2, "score": 0.5}\n' + record + "\n")
    _refused(lambda: scores.read_scores_file(f, db), f, 2)


def test_wmt_score_tsv_with_a_huge_segment_number_is_refused(tmp_path):
    from evaltrans_qt.io.wmt import import_wmt
    d = tmp_path / "w"
    d.mkdir()
    (d / "t.src.en").write_text("a\n")
    (d / "t.hyp.S.de").write_text("b\n")
    f = tmp_path / "s.tsv"
    f.write_text(f"S\t1\t0.5\nS\t{BIG}\t0.5\n")
    _refused(lambda: import_wmt(d, f), f, 2)


def test_external_metric_scores_with_huge_numbers_in_a_database_are_refused(tmp_path):
    db = _db(tmp_path)
    scores.import_scores(db, [_jsonl(tmp_path)])
    data = etdb.dumps(db).replace(b"\t0.5", b"\t" + BIG.encode())
    f = tmp_path / "d.etdb.xml"
    f.write_bytes(data)
    _refused(lambda: etdb.load_database(f), f)


def _jsonl(tmp_path: Path) -> Path:
    f = tmp_path / "m.jsonl"
    f.write_text('{"system": "S", "segment": 1, "score": 0.5}\n')
    return f


# ------------------------------------------------------------------ rankings (WMT CSV)
_HEAD = "srclang,trglang,srcIndex,documentId,segmentId,judgeId,system1Id,system1rank," \
        "system2Id,system2rank\n"


@pytest.mark.parametrize("row,line", [
    (f"en,de,{BIG},,,j,S,1,T,2\n", 2),
    (f"en,de,1,,,j,S,{BIG},T,2\n", 2),
    ("en,de,1,,,j,S,1000,T,2\n", 2),
    ("en,de,²,,,j,S,1,T,2\n", 2),
    ('en,de,1,,,j,S,1,T,"' + "x" * 140_000 + '"\n', 2),        # over Python's default
    ('en,de,1,"' + "x" * 1_000_001 + '",,j,S,1,T,2\n', 2),  # over MAX_CSV_FIELD
])
def test_ranking_csv_with_huge_numbers_or_fields_is_refused(tmp_path, row, line):
    db = _db(tmp_path)
    f = tmp_path / "r.csv"
    f.write_text(_HEAD + row)
    err = _refused(lambda: read_judgements(db, f), f, line)
    if len(row) > 1_000_000:
        assert "field larger than field limit" in err.problem


# ------------------------------------------------------------------ SegRanks files
def _segranks_db() -> Database:
    db = etdb.load_database(EXAMPLE / "campaign.etdb.xml")
    toks = [source_tokens(s) for s in db.sources]
    tr = trees.read_ptb(EXAMPLE / "sources.ptb", toks)
    al = {s: (alignments.read_pharaoh(EXAMPLE / f"{s}.pharaoh"), f"{s}.pharaoh")
          for s in ("sysA", "sysB", "sysC")}
    extract_database(db, tr, al)
    return db


def test_segranks_json_and_tsv_with_huge_ids_are_refused(tmp_path):
    db = _segranks_db()
    j = tmp_path / "r.json"
    j.write_text('{"' + BIG + ',a b": [{"x": 1}]}')
    _refused(lambda: formats.read_ranks_json(db, j), j)
    j.write_text("[" * 100_000 + "]" * 100_000)
    _refused(lambda: formats.read_ranks_json(db, j), j)
    tsv = tmp_path / "s.segments"
    tsv.write_text("\t".join([BIG, "a", "b", "c", "d", "0"]) + "\n")
    _refused(lambda: formats.read_segments(db, tsv), tsv, 1)
    tsv.write_text("\t".join(["1", db.sources[0].text, "b", "c", "d", BIG]) + "\n")
    _refused(lambda: formats.read_segments(db, tsv), tsv, 1)


@pytest.mark.parametrize("bad", [BIG, "²", "-1"])
def test_conllu_heads_and_ids_with_huge_numbers_are_refused(tmp_path, bad):
    f = tmp_path / "t.conllu"
    f.write_text(f"1\tA\ta\tX\t_\t_\t{bad}\troot\t_\t_\n\n")
    _refused(lambda: trees.read_conllu(f), f, 1)
    f.write_text(f"{bad}\tA\ta\tX\t_\t_\t0\troot\t_\t_\n\n")
    _refused(lambda: trees.read_conllu(f), f, 1)
    f.write_text(f"1-{bad}\tAB\t_\t_\t_\t_\t_\t_\t_\t_\n\n")
    _refused(lambda: trees.read_conllu(f), f, 1)


def test_pharaoh_links_with_huge_numbers_are_refused(tmp_path):
    f = tmp_path / "a.pharaoh"
    f.write_text(f"0-0 {BIG}-1\n")
    _refused(lambda: alignments.read_pharaoh(f), f, 1)


@pytest.mark.parametrize("old,new", [
    (b'max="6"', b'max="' + BIG.encode() + b'"'),
    (b'min="3"', b'min="7"'),
    (b'words="0', b'words="' + BIG.encode()),
])
def test_segranks_database_attributes_are_validated_on_load(tmp_path, old, new):
    data = etdb.dumps(_segranks_db())
    assert old in data
    f = tmp_path / "d.etdb.xml"
    f.write_bytes(data.replace(old, new, 1))
    _refused(lambda: etdb.load_database(f), f)


def test_segranks_ranks_of_5000_digits_are_refused_on_load(tmp_path):
    from evaltrans_qt.engine.human.segranks.sessions import record_segment_ranking
    db = _segranks_db()
    src = next(s for s in db.sources if s.segranks is not None and s.segranks.segments)
    record_segment_ranking(db, db.sources.index(src),
                           {k: [1] * len(seg.candidates)
                            for k, seg in enumerate(src.segranks.segments)}, "j")
    data = etdb.dumps(db)
    i = data.index(b"<ranks ")
    j = data.index(b">", i) + 1
    k = data.index(b"</ranks>", j)
    f = tmp_path / "d.etdb.xml"
    f.write_bytes(data[:j] + BIG.encode() + data[k:])
    _refused(lambda: etdb.load_database(f), f)


# ------------------------------------------------------------------ reports
def _report(tmp_path: Path) -> bytes:
    from evaltrans_qt.engine.options import EvalOptions
    from evaltrans_qt.engine.run.driver import evaluate
    from evaltrans_qt.io.report import build_report
    run = evaluate(_db(tmp_path), EvalOptions(), ["wer", "bleu"])
    return build_report(run, "S", sentences_in_detail=True)


def test_report_with_a_5000_digit_candidate_count_is_refused(tmp_path):
    from evaltrans_qt.io.report import loads_report
    data = _report(tmp_path)
    start = data.index(b"<candidates>") + len(b"<candidates>")
    end = data.index(b"</candidates>")
    f = tmp_path / "r.xml"
    _refused(lambda: loads_report(data[:start] + BIG.encode() + data[end:], f), f)


@pytest.mark.parametrize("stats", [b"nan", b"1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17",
                                   BIG.encode(), b"1e999 0"])
def test_report_sentence_with_bad_stats_is_refused(tmp_path, stats):
    from evaltrans_qt.io.report import loads_report
    data = _report(tmp_path)
    i = data.index(b"<candidate-evaluation")
    j = data.index(b'stats="', i) + len(b'stats="')
    k = data.index(b'"', j)
    f = tmp_path / "r.xml"
    err = _refused(lambda: loads_report(data[:j] + stats + data[k:], f), f)
    assert err.line is not None


# ------------------------------------------------------------------ ids
def test_a_document_id_with_a_tab_is_refused_on_import(tmp_path):
    from evaltrans_qt.io.wmtxml import import_wmtxml
    f = tmp_path / "t.xml"
    f.write_text('<dataset id="t"><collection id="c"><doc id="d&#9;1">'
                 '<src lang="en"><p><seg id="1">x</seg></p></src></doc></collection></dataset>')
    _refused(lambda: import_wmtxml(f), f, 1)
    g = tmp_path / "d.etdb.xml"
    g.write_text('<database><levels class="isReference" count="2" gray="0" green="1" '
                 'perfect="1" firstvalid="0"/><source doc="a&#10;b" seg="1"><s_sent>x</s_sent>'
                 '</source></database>')
    _refused(lambda: etdb.load_database(g), g, 1)


# ------------------------------------------------------------------ endless and huge inputs
@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_devices_are_refused_before_reading(tmp_path, device):
    import time

    from evaltrans_qt.io.report import read_report
    from evaltrans_qt.io.store import open_database
    from evaltrans_qt.io.wmtxml import import_wmtxml
    if not Path(device).exists():
        pytest.skip(f"no {device}")
    ref = tmp_path / "ref.txt"
    ref.write_text("a\n")
    t0 = time.monotonic()
    for read in (lambda: import_text(device, [ref]), lambda: import_wmtxml(device),
                 lambda: etdb.load_database(device), lambda: open_database(device),
                 lambda: read_report(device), lambda: trees.read_conllu(device),
                 lambda: scores.read_scores_file(device, _db(tmp_path), fmt="tsv")):
        with pytest.raises(InputFormatError, match="not a regular file") as err:
            read()
        assert str(err.value.path) == device
    assert time.monotonic() - t0 < 30


def test_an_input_over_the_size_limit_is_refused_naming_the_limit(tmp_path, monkeypatch):
    from evaltrans_qt.io.limits import INPUT_LIMIT_ENV
    monkeypatch.setenv(INPUT_LIMIT_ENV, "1")
    src = tmp_path / "src.txt"
    src.write_bytes(b"a b c\n" * 200_000)
    ref = tmp_path / "ref.txt"
    ref.write_text("a\n")
    with pytest.raises(InputFormatError, match=INPUT_LIMIT_ENV) as err:
        import_text(src, [ref])
    assert err.value.path == src
    monkeypatch.setenv(INPUT_LIMIT_ENV, "2")
    with pytest.raises(InputFormatError, match="line-aligned"):
        import_text(src, [ref])


# ------------------------------------------------------------------ the command line
def test_the_last_stderr_line_is_the_one_line_error_even_for_libxml2_messages(tmp_path,
                                                                               capsys):
    """libxml2 ends "Char 0x0 out of allowed range" with a line break."""
    from evaltrans_qt.cli.main import main
    f = tmp_path / "t.xml"
    f.write_bytes(b'<dataset id="t"><doc id="d">\x00</doc></dataset>')
    assert main(["import", "wmtxml", str(f), "-o", str(tmp_path / "o.etdb.xml")]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines[-1].startswith("evaltrans: error: ") and str(f) in lines[-1]
    assert sum(x.startswith("evaltrans: error:") for x in lines) == 1
    assert len([x for x in lines if x.strip()]) == 1


def test_too_many_segments_are_refused_before_the_lines_are_split(tmp_path, monkeypatch):
    from evaltrans_qt.io.limits import SEGMENT_LIMIT_ENV
    from evaltrans_qt.io.wmtxml import import_wmtxml
    monkeypatch.setenv(SEGMENT_LIMIT_ENV, "5")
    src = tmp_path / "src.txt"
    src.write_text("a\n" * 6)
    ref = tmp_path / "ref.txt"
    ref.write_text("b\n" * 3)
    with pytest.raises(InputFormatError, match=SEGMENT_LIMIT_ENV) as err:
        import_text(src, [ref])
    assert err.value.path == src and "6 segments" in err.value.problem
    src.write_text("a\n" * 3)
    with pytest.raises(InputFormatError, match="has 6 segments"):   # 3 sources + 3 refs
        import_text(src, [ref])
    x = tmp_path / "t.xml"
    x.write_text('<dataset id="t"><collection id="c"><doc id="d"><src lang="en"><p>'
                 + '<seg id="1">a</seg>' * 6 + "</p></src></doc></collection></dataset>")
    with pytest.raises(InputFormatError, match=SEGMENT_LIMIT_ENV):
        import_wmtxml(x)
    monkeypatch.setenv(SEGMENT_LIMIT_ENV, "6")
    assert len(import_text(src, [ref]).sources) == 3


def test_a_session_file_nested_100000_deep_is_refused(tmp_path):
    from evaltrans_qt.io.session import load_session, session_path
    db = tmp_path / "d.etdb.xml"
    session_path(db).write_text('{"runs": ' + "[" * 100_000 + "]" * 100_000 + "}")
    _refused(lambda: load_session(db), session_path(db))
    session_path(db).write_text('{"options": {}, "measures": ["wer"], "runs": []}')
    assert load_session(db).measures == ["wer"]
