"""Appends are merges by identity: (doc, seg) for segments, the system for candidates.

Each test builds its small input: an mt-metrics-eval directory, a WMT folder or a WMT XML
test set imported twice, or onto an overlapping test set; the database must hold every
segment and target once and every score on the segment its file names.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from evaltrans_qt.engine.data.database import REFERENCE_CLASS, Database
from evaltrans_qt.engine.measures.external import external_metrics
from evaltrans_qt.errors import InputFormatError
from evaltrans_qt.io.mtme import import_mtme
from evaltrans_qt.io.plaintext import import_text
from evaltrans_qt.io.wmt import import_wmt
from evaltrans_qt.io.wmtxml import import_wmtxml

LP = "en-de"


def _put(path: Path, lines: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{x}\n" for x in lines), encoding="utf-8")
    return path


def _mtme(root: Path, src: list[str], scores: list[str] | None = None,
          human: dict[str, list[str]] | None = None) -> Path:
    _put(root / "sources" / f"{LP}.txt", src)
    _put(root / "references" / f"{LP}.ref.txt", [f"R {x}" for x in src])
    _put(root / "system-outputs" / LP / "S.txt", [f"S {x}" for x in src])
    if scores is not None:
        _put(root / "metric-scores" / LP / "M-ref.seg.score", scores)
    for name, lines in (human or {}).items():
        _put(root / "human-scores" / f"{LP}.{name}.seg.score", lines)
    return root


def _counts(db: Database) -> tuple[int, int, int]:
    c = db.counts()
    return c["sources"], c["references"], c["candidates"]


def test_mtme_append_of_a_longer_set_puts_scores_on_their_segments(tmp_path):
    a = import_mtme(_mtme(tmp_path / "a", ["one", "two"]), LP)
    b = _mtme(tmp_path / "b", ["one", "two", "three", "four"],
              ["S 0.1", "S 0.2", "S None", "S None"])
    db = import_mtme(b, LP, a)
    assert _counts(db) == (4, 4, 4)
    assert [len(s.targets) for s in db.sources] == [2, 2, 2, 2]
    assert external_metrics(db)["M-ref"].segments["S"] == {0: 0.1, 1: 0.2}


def test_mtme_append_of_the_same_set_changes_nothing(tmp_path):
    root = _mtme(tmp_path / "a", ["one", "two"], ["S 0.1", "S 0.2"],
                 {"mqm": ["S -1", "S 0", "ref -0.5", "ref None"]})
    once = import_mtme(root, LP)
    twice = import_mtme(root, LP, import_mtme(root, LP))
    assert twice == once
    assert external_metrics(twice)["M-ref"].segments["S"] == {0: 0.1, 1: 0.2}
    assert [s.value for _, t in twice.iter_targets() for s in t.scores if s.cls == "mqm"] \
        == [-0.5, -1.0, 0.0]


def test_mtme_append_with_another_translation_is_refused_naming_file_and_line(tmp_path):
    a = import_mtme(_mtme(tmp_path / "a", ["one", "two"]), LP)
    b = _mtme(tmp_path / "b", ["one", "two"])
    _put(b / "system-outputs" / LP / "S.txt", ["S one", "S zwei"])
    with pytest.raises(InputFormatError) as err:
        import_mtme(b, LP, a)
    assert err.value.path == b / "system-outputs" / LP / "S.txt" and err.value.line == 2
    assert len(a.sources) == 2 and all(len(s.targets) == 2 for s in a.sources)


def test_mtme_human_scores_named_isreference_are_refused(tmp_path):
    root = _mtme(tmp_path / "a", ["one", "two"], human={REFERENCE_CLASS: ["S 1", "S 1"]})
    with pytest.raises(InputFormatError, match="marks references") as err:
        import_mtme(root, LP)
    assert Path(err.value.path).name == f"{LP}.{REFERENCE_CLASS}.seg.score"


def _wmt(root: Path, src: list[str], hyp: list[str] | None = None) -> Path:
    _put(root / "t.src.en", src)
    _put(root / "t.ref.A.de", [f"R {x}" for x in src])
    _put(root / "t.hyp.S.de", hyp if hyp is not None else [f"S {x}" for x in src])
    return root


def test_wmt_append_of_the_same_folder_changes_nothing(tmp_path):
    root = _wmt(tmp_path / "w", ["one", "two", "three"])
    scores = _put(tmp_path / "mqm.tsv", ["S\t1\t-1", "S\t3\t-2"])
    once = import_wmt(root, scores)
    twice = import_wmt(root, scores, db=import_wmt(root, scores))
    assert twice == once and _counts(twice) == (3, 3, 3)


def test_wmt_append_of_another_translation_is_refused(tmp_path):
    db = import_wmt(_wmt(tmp_path / "a", ["one", "two"]))
    other = _wmt(tmp_path / "b", ["one", "two"], ["S one", "S 2"])
    with pytest.raises(InputFormatError) as err:
        import_wmt(other, db=db)
    assert err.value.line == 2 and Path(err.value.path).name == "t.hyp.S.de"
    assert _counts(db) == (2, 2, 2)


def test_wmt_scores_into_the_reference_class_are_refused(tmp_path):
    root = _wmt(tmp_path / "w", ["one"])
    scores = _put(tmp_path / "s.tsv", ["S\t1\t1"])
    with pytest.raises(InputFormatError, match="marks references"):
        import_wmt(root, scores, score_class=REFERENCE_CLASS)


def test_text_append_twice_changes_nothing(tmp_path):
    src = _put(tmp_path / "src.txt", ["a", "b"])
    ref = _put(tmp_path / "ref.txt", ["A", "B"])
    hyp = _put(tmp_path / "hyp.txt", ["x", "y"])
    once = import_text(src, [ref], [("S", hyp)])
    assert import_text(src, [ref], [("S", hyp)], db=import_text(src, [ref], [("S", hyp)])) \
        == once


_XML = """<?xml version="1.0" encoding="utf-8"?>
<dataset id="t"><collection id="c"><doc id="d1" origlang="en">
<src lang="en"><p><seg id="1">The <i>Guardian</i> reported it.</seg><seg id="2">Two</seg></p></src>
<ref lang="de" translator="A"><p><seg id="1">Der <b>Guardian</b> berichtete.</seg><seg id="2">Zwei</seg></p></ref>
<hyp lang="de" system="S"><p><seg id="1">Guardian</seg><seg id="2">zwo</seg></p></hyp>
</doc></collection></dataset>
"""


def test_wmtxml_keeps_the_text_after_inline_markup(tmp_path):
    f = tmp_path / "t.xml"
    f.write_text(_XML, encoding="utf-8")
    db = import_wmtxml(f)
    assert [s.text for s in db.sources] == ["The Guardian reported it.", "Two"]
    assert db.sources[0].targets[0].text == "Der Guardian berichtete."


def test_wmtxml_append_twice_changes_nothing_and_refuses_other_text(tmp_path):
    f = tmp_path / "t.xml"
    f.write_text(_XML, encoding="utf-8")
    once = import_wmtxml(f)
    assert import_wmtxml(f, import_wmtxml(f)) == once
    g = tmp_path / "u.xml"
    g.write_text(_XML.replace(">zwo<", ">zwei<"), encoding="utf-8")
    with pytest.raises(InputFormatError, match="another translation") as err:
        import_wmtxml(g, import_wmtxml(f))
    assert err.value.line == 5


@pytest.mark.parametrize("name", ["a\x01b", "tab\there", "bad\udcff"])
def test_names_from_file_names_that_a_database_cannot_hold_are_refused(tmp_path, name):
    root = _mtme(tmp_path / "m", ["one"])
    (root / "system-outputs" / LP / f"{name}.txt").write_text("x\n")
    with pytest.raises(InputFormatError, match="from the file name") as err:
        import_mtme(root, LP)
    assert err.value.path == root / "system-outputs" / LP / f"{name}.txt"
    w = _wmt(tmp_path / "w", ["one"])
    (w / f"t.hyp.{name}.de").write_text("x\n")
    with pytest.raises(InputFormatError, match="from the file name"):
        import_wmt(w)
