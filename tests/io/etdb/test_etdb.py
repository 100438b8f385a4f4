"""EvalTrans database reader/writer (thesis Appendix A.2, Figure A.1)."""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaltrans_qt.engine.data import schemes
from evaltrans_qt.engine.data.database import REFERENCE_CLASS, Database, Levels, Score
from evaltrans_qt.errors import InputFormatError, SaveError, ScoreError
from evaltrans_qt.io import atomic, etdb

# Thesis Figure A.1 (Appendix A.2), filled in: isPerfect is the last class and decides references.
FIGURE_A1 = """<?xml version="1.0" encoding="utf-8" ?>
<!DOCTYPE etdb SYSTEM "etdb.dtd">
<database>
  <version_id>RCS version ID</version_id>
  <!-- Human evaluation score definition: -->
  <levels class="fluency" count="6" gray="2" green="5" perfect="5" firstvalid="1"/>
  <levels class="isPerfect" count="2" gray="0" green="1" perfect="1" firstvalid="0"/>
  <source doc="d1" seg="1">
    <s_sent>Guten Morgen .</s_sent>
    <targets>
      <tgt sys="human">
        <t_sent>good morning .</t_sent>
        <eval class="isPerfect" val="1"/>
      </tgt>
      <tgt sys="mt1">
        <t_sent>good tomorrow .</t_sent>
        <eval class="fluency" val="3"/>
        <eval class="isPerfect" val="0"/>
      </tgt>
    </targets>
  </source>
  <source doc="d1" seg="2">
    <s_sent>Guten Morgen .</s_sent>
    <targets>
      <tgt sys="mt2"><t_sent>good morning .</t_sent><eval class="fluency" val="5"/></tgt>
    </targets>
  </source>
</database>
"""


def test_figure_a1_references_by_last_class_and_sources_by_position():
    """Positional identity: <source> elements with seg attributes are identified by (doc, seg), so
    the figure's repeated sentence stays two sources, one per position."""
    db = etdb.loads(FIGURE_A1.encode())
    assert db.version_id == "RCS version ID"
    assert [lv.name for lv in db.levels] == ["fluency", "isPerfect"]
    assert [(s.doc, s.seg, s.text) for s in db.sources] == [
        ("d1", "1", "Guten Morgen ."), ("d1", "2", "Guten Morgen .")]
    src, second = db.sources
    assert [t.system for t in src.targets] == ["human", "mt1"]
    assert [t.system for t in db.references(src)] == ["human"]
    assert [t.system for t in db.candidates(src)] == ["mt1"]
    assert [t.system for t in second.targets] == ["mt2"] and db.references(second) == []
    assert src.targets[1].value("fluency") == 3
    assert etdb.loads(etdb.dumps(db)) == db and len(etdb.loads(etdb.dumps(db)).sources) == 2


def test_old_file_without_seg_merges_sources_by_text():
    """Thesis Appendix A.2: an old EvalTrans file (no seg attributes): same <s_sent>, one source."""
    old = FIGURE_A1.replace(' doc="d1" seg="1"', "").replace(' doc="d1" seg="2"', "")
    db = etdb.loads(old.encode())
    assert len(db.sources) == 1
    src = db.sources[0]
    assert (src.doc, src.seg, src.key, src.occurrences) == (None, None, None, 2)
    assert [t.system for t in src.targets] == ["human", "mt1", "mt2"]
    assert [t.system for t in db.candidates(src)] == ["mt1", "mt2"]
    assert b" seg=" not in etdb.dumps(db)


def test_same_doc_and_seg_with_different_sentences_is_an_error():
    bad = FIGURE_A1.replace('seg="2">\n    <s_sent>Guten Morgen .', 'seg="1">\n    <s_sent>Guten Tag .')
    assert bad != FIGURE_A1
    with pytest.raises(InputFormatError) as exc:
        etdb.loads(bad.encode(), "x.etdb.xml")
    first, second = [i + 1 for i, ln in enumerate(bad.splitlines()) if "<source" in ln]
    assert exc.value.line == second and str(exc.value.path) == "x.etdb.xml"
    assert 'doc="d1" seg="1"' in exc.value.problem and "'Guten Tag .'" in exc.value.problem
    assert f"at line {first}" in exc.value.problem
    assert "'Guten Morgen .'" in exc.value.problem
    # the same doc/seg with the same sentence is the same segment: targets are joined
    same = FIGURE_A1.replace('seg="2"', 'seg="1"')
    db = etdb.loads(same.encode())
    assert len(db.sources) == 1 and [t.system for t in db.sources[0].targets] == ["human", "mt1", "mt2"]


def test_latin1_file_loads_and_is_saved_as_latin1(tmp_path):
    text = FIGURE_A1.replace("utf-8", "iso8859-1").replace("Guten Morgen", "Schöne Grüße")
    path = tmp_path / "latin1.etdb.xml"
    path.write_bytes(text.encode("iso-8859-1"))
    db = etdb.load_database(path)
    assert db.sources[0].text == "Schöne Grüße ."
    assert db.encoding == "iso8859-1"
    db.sources[0].targets[0].text = "kind regards – €"  # not in latin-1: character references
    out = etdb.dumps(db)
    assert out.startswith(b'<?xml version="1.0" encoding="iso8859-1"')
    assert "Schöne".encode("iso-8859-1") in out and b"&#8364;" in out
    assert etdb.loads(out) == db


def test_wrong_encoding_names_file_and_line(tmp_path):
    path = tmp_path / "bad.etdb.xml"
    body = FIGURE_A1.replace("Guten Morgen", "Schöne Grüße")
    path.write_bytes(body.encode("iso-8859-1"))  # declared utf-8
    with pytest.raises(InputFormatError) as exc:
        etdb.load_database(path)
    assert exc.value.path == str(path) and exc.value.line == 9
    assert "UTF-8" in exc.value.problem or "utf-8" in exc.value.problem.lower()


def test_doctype_is_never_fetched(tmp_path, monkeypatch):
    """A DOCTYPE pointing at a local DTD and one at a URL: neither is read, no socket opened."""
    def no_network(*a, **k):
        raise AssertionError("network access attempted")
    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    # if this DTD were loaded, the root would get a defaulted attribute fetched="yes"
    (tmp_path / "etdb.dtd").write_text('<!ATTLIST database fetched CDATA "yes">')
    for system_id in ("etdb.dtd", "http://example.invalid/etdb.dtd"):
        path = tmp_path / "db.etdb.xml"
        path.write_text(FIGURE_A1.replace('SYSTEM "etdb.dtd"', f'SYSTEM "{system_id}"'))
        db = etdb.load_database(path)
        assert "fetched" not in db.extra_attrs
        assert len(db.sources) == 2


XXE = """<?xml version="1.0"?>
<!DOCTYPE database [
  <!ENTITY xxe SYSTEM "file:///etc/passwd">
]>
<database><version_id>&xxe;</version_id></database>
"""
PARAM_XXE = """<?xml version="1.0"?>
<!DOCTYPE database [<!ENTITY % p SYSTEM "http://example.invalid/x.dtd"> %p;]>
<database/>
"""
LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<database><version_id>&lol9;</version_id></database>
"""


@pytest.mark.parametrize("doc,line", [(XXE, 3), (PARAM_XXE, 2), (LAUGHS, 3)])
def test_entity_declarations_are_refused(tmp_path, doc, line):
    path = tmp_path / "evil.etdb.xml"
    path.write_text(doc)
    t = time.perf_counter()
    with pytest.raises(InputFormatError) as exc:
        etdb.load_database(path)
    assert time.perf_counter() - t < 1.0
    assert "ENTITY" in exc.value.problem
    assert exc.value.path == str(path) and exc.value.line == line and exc.value.column is not None


BAD = {
    "malformed": ("<database><source><s_sent>x</source></database>", InputFormatError, 1),
    "not a database": ("<report/>", InputFormatError, 1),
    "no s_sent": ("<database>\n<source><targets/></source></database>", InputFormatError, 2),
    "no t_sent": ('<database>\n<source><s_sent>a</s_sent><targets>\n<tgt sys="x"/></targets></source>'
                  "</database>", InputFormatError, 3),
    "undeclared class": ("<database>\n<source><s_sent>a</s_sent><targets><tgt><t_sent>b</t_sent>\n"
                         '<eval class="fluency" val="3"/></tgt></targets></source></database>',
                         ScoreError, 3),
    "score outside levels": ('<database><levels class="fluency" count="6" perfect="5" firstvalid="1"/>\n'
                             "<source><s_sent>a</s_sent><targets><tgt><t_sent>b</t_sent>\n\n"
                             '<eval class="fluency" val="7"/></tgt></targets></source></database>',
                             ScoreError, 4),
    "val not a number": ('<database><levels class="f" count="6"/><source><s_sent>a</s_sent><targets>'
                         '<tgt><t_sent>b</t_sent><eval class="f" val="good"/></tgt></targets></source>'
                         "</database>", InputFormatError, 1),
    "levels without count": ('<database>\n<levels class="f"/></database>', InputFormatError, 2),
    "class declared twice": ('<database><levels class="f" count="2"/>\n<levels class="f" count="3"/>'
                             "</database>", InputFormatError, 2),
}


@pytest.mark.parametrize("name", list(BAD))
def test_bad_input_names_file_line_and_problem(tmp_path, name):
    text, err, line = BAD[name]
    path = tmp_path / f"{name}.etdb.xml"
    path.write_text(text)
    with pytest.raises(err) as exc:
        etdb.load_database(path)
    assert exc.value.path == str(path)
    assert exc.value.line == line
    assert str(path) in str(exc.value)


def test_unknown_declared_encoding(tmp_path):
    path = tmp_path / "k.etdb.xml"
    path.write_text('<?xml version="1.0" encoding="klingon"?>\n<database/>')
    with pytest.raises(InputFormatError, match="utf-8 or iso8859-1") as exc:
        etdb.load_database(path)
    assert exc.value.line == 1


def test_malformed_xml_has_column(tmp_path):
    path = tmp_path / "m.etdb.xml"
    path.write_text("<database>\n  <source><s_sent>x</s_sent>\n  </oops>\n</database>")
    with pytest.raises(InputFormatError) as exc:
        etdb.load_database(path)
    assert exc.value.line == 3 and exc.value.column is not None
    assert "malformed XML" in exc.value.problem


@pytest.mark.parametrize("content", [b"", b"  \n"])
def test_empty_and_missing_files(tmp_path, content):
    path = tmp_path / "e.etdb.xml"
    path.write_bytes(content)
    with pytest.raises(InputFormatError, match="empty"):
        etdb.load_database(path)
    with pytest.raises(InputFormatError, match="not found"):
        etdb.load_database(tmp_path / "missing.etdb.xml")


EXTENDED = """<?xml version="1.0" encoding="utf-8" ?>
<!DOCTYPE etdb SYSTEM "etdb.dtd">
<database owner="lab">
  <version_id>v1</version_id>
  <levels class="adequacy" count="6" gray="2" green="5" perfect="5" firstvalid="1" colour="blue"/>
  <levels class="da" count="0" gray="0" green="100" perfect="100" firstvalid="0" continuous="1" minimum="0" maximum="100"/>
  <levels class="isReference" count="2" gray="0" green="1" perfect="1" firstvalid="0"/>
  <project name="x"><note>kept</note></project>
  <source doc="d" seg="3" topic="sport">
    <s_sent>A &amp; B &lt; C</s_sent>
    <comment>hard one</comment>
    <targets>
      <tgt sys="sysA" seg="7" engine="v2">
        <t_sent>a "quoted" &gt; text</t_sent>
        <eval class="adequacy" val="3" evaluator="anna" time="2025-01-01T10:00:00" confidence="low"/>
        <eval class="adequacy" val="4" evaluator="ben"/>
        <eval class="adequacy" val="2" extrapolated="1"/>
        <eval class="da" val="72.25" evaluator="anna"/>
        <alignment>0-0 1-1</alignment>
      </tgt>
    </targets>
  </source>
</database>
"""


def test_extensions_and_unknowns_round_trip():
    db = etdb.loads(EXTENDED.encode())
    t = db.sources[0].targets[0]
    assert [(s.judge, s.value, s.extrapolated) for s in t.scores_of("adequacy")] == [
        ("anna", 3, False), ("ben", 4, False), (None, 2, True)]
    assert t.scores[0].time == "2025-01-01T10:00:00" and t.scores[0].extra_attrs == {"confidence": "low"}
    assert t.value("da") == 72.25 and db.level("da").continuous
    assert db.sources[0].text == "A & B < C" and t.text == 'a "quoted" > text'
    assert (t.seg, t.extra_attrs) == ("7", {"engine": "v2"})
    out = etdb.dumps(db)
    for kept in (b'owner="lab"', b'colour="blue"', b"<note>kept</note>", b'topic="sport"',
                 b"<comment>hard one</comment>", b'engine="v2"', b'confidence="low"',
                 b"<alignment>0-0 1-1</alignment>", b'evaluator="anna"', b'extrapolated="1"',
                 b'val="72.25"', b'val="3"', b'continuous="1"'):
        assert kept in out
    assert b'val="3.0"' not in out
    again = etdb.loads(out)
    assert again == db
    assert etdb.dumps(again) == out


def test_demo_round_trip_byte_identical(tmp_path):
    db = etdb.load_database(etdb.demo_database_path())
    a, b = tmp_path / "a.etdb.xml", tmp_path / "b.etdb.xml"
    etdb.save_database(db, a)
    db2 = etdb.load_database(a)
    assert db2 == db
    etdb.save_database(db2, b)
    assert a.read_bytes() == b.read_bytes()


def test_demo_database_content():
    db = etdb.load_database(etdb.demo_database_path())
    c = db.counts()
    assert c["sources"] == 20
    assert db.levels[-1].name == REFERENCE_CLASS
    assert db.human_classes == ["fluency", "adequacy", "sser", "esa"]
    # every human-evaluation protocol at once: SSER scores, items with marks, post-edits, an
    # added reference, MQM spans by two judges, ESA spans and scores by a third
    assert db.level("sser").count == 11 and schemes.score_count(db, "sser") == 20
    assert sum(bool(s.items) for s in db.sources) == 2
    assert sum(len(t.item_marks) for _, t in db.iter_candidates()) == 4
    assert sum(len(t.postedits) for _, t in db.iter_candidates()) == 3
    assert [t.added_by for _, t in db.iter_targets() if t.added] == ["anna"]
    spans = [(si, a) for si, s in enumerate(db.sources) for t in db.candidates(s)
             for a in t.span_annotations]
    assert {a.judge for si, a in spans if si < 3} == {"anna", "ben"}
    assert {a.judge for si, a in spans if si >= 3} == {"eva"}
    assert sum(len(a.errors) for _, a in spans) > 20
    assert schemes.score_count(db, "esa") == 8
    for name in ("fluency", "adequacy"):
        lv = db.level(name)
        assert (lv.count, lv.gray, lv.green, lv.perfect, lv.firstvalid) == (6, 2, 5, 5, 1)
        assert 0 < c["unscored"][name] < c["candidates"]
    assert len(c["systems"]) == 4 and sorted(c["judges"]) == ["anna", "ben", "eva"]
    assert all(2 <= len(db.references(s)) <= 3 for s in db.sources)
    # the judges disagree somewhere, and some candidate text is shared by two systems
    assert any(len({x.value for x in t.scores_of("fluency")}) > 1 for _, t in db.iter_candidates())
    texts = [t.text for _, t in db.iter_candidates()]
    assert len(set(texts)) < len(texts)
    # systems differ in quality: mean adequacy is strictly ordered
    means = {s: sum(t.value("adequacy") for _, t in db.candidates_by_system(s) if t.value("adequacy"))
             for s in c["systems"]}
    assert len(set(means.values())) == 4


def _old_file(tmp_path: Path) -> tuple[Path, bytes]:
    path = tmp_path / "keep.etdb.xml"
    path.write_bytes(FIGURE_A1.encode())
    return path, path.read_bytes()


@pytest.mark.parametrize("fail_at", ["fsync", "replace", "write"])
def test_failed_save_leaves_old_file_intact(tmp_path, monkeypatch, fail_at):
    path, before = _old_file(tmp_path)
    db = etdb.load_database(etdb.demo_database_path())

    def boom(*a, **k):
        raise OSError(28, "No space left on device")
    if fail_at == "fsync":
        monkeypatch.setattr(atomic.os, "fsync", boom)
    elif fail_at == "replace":
        monkeypatch.setattr(atomic.os, "replace", boom)
    else:
        real_open = open

        class Failing:
            def __init__(self, fh):
                self.fh = fh

            def __enter__(self):
                return self

            def __exit__(self, *a):
                self.fh.close()

            def write(self, data):
                self.fh.write(data[:100])
                boom()
        monkeypatch.setattr(atomic, "open", lambda *a, **k: Failing(real_open(*a, **k)), raising=False)
    with pytest.raises(SaveError) as exc:
        etdb.save_database(db, path)
    assert "No space left" in exc.value.problem and exc.value.path == path
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == [path.name]  # no temp file left behind


def test_unsavable_database_is_refused_before_writing(tmp_path):
    path, before = _old_file(tmp_path)
    db = etdb.loads(FIGURE_A1.encode())
    db.sources[0].targets[0].text = "bell \x07 char"
    with pytest.raises(SaveError, match="U\\+0007"):
        etdb.save_database(db, path)
    db.sources[0].targets[0].text = "ok"
    db.sources[0].targets[0].scores.append(Score("fluency", 9))
    with pytest.raises(SaveError, match="not one of its levels"):
        etdb.save_database(db, path)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == [path.name]


def test_atomic_writer_context_manager(tmp_path):
    path = tmp_path / "x.txt"
    path.write_text("old")
    with pytest.raises(RuntimeError):
        with atomic.atomic_writer(path, "w", encoding="utf-8") as fh:
            fh.write("new, half")
            raise RuntimeError("interrupted")
    assert path.read_text() == "old"
    with atomic.atomic_writer(path, "w", encoding="utf-8") as fh:
        fh.write("new")
    assert path.read_text() == "new" and os.listdir(tmp_path) == ["x.txt"]


# property: any database we can build round-trips exactly and re-saves byte-identically
_text = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00\ufffe\uffff",
                              min_codepoint=9).filter(lambda c: c in "\t\n\r" or ord(c) >= 32),
                max_size=20)
_name = st.text(st.sampled_from("abcXYZ-_ äö&<\"'"), min_size=1, max_size=8)


@st.composite
def databases(draw):
    db = Database([Levels("fluency", 6, 2, 5, 5, 1),
                   Levels("mqm", 0, -25, 0, 0, -25, True, -25.0, 0.0)],
                  version_id=draw(_text))
    for k in range(draw(st.integers(0, 4))):
        # a (doc, seg) position holds one sentence (Database.add_source): distinct seg ids
        seg = draw(st.none() | _name)
        src = db.add_source(draw(_text), draw(st.none() | _name),
                            None if seg is None else f"{seg}.{k}")
        for _ in range(draw(st.integers(0, 3))):
            t = db.add_target(src, draw(_text), draw(st.none() | _name),
                              reference=draw(st.booleans()))
            if draw(st.booleans()):
                t.scores.append(Score("fluency", draw(st.integers(0, 5)), draw(st.none() | _name),
                                      draw(st.none() | _name), draw(st.booleans())))
            if draw(st.booleans()):
                t.scores.append(Score("mqm", draw(st.floats(-25, 0)), draw(st.none() | _name)))
    return db


@settings(max_examples=60, deadline=None)
@given(databases())
def test_round_trip_property(db):
    data = etdb.dumps(db)
    again = etdb.loads(data)
    assert again == db
    assert etdb.dumps(again) == data
