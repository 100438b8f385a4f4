"""The reader's fast paths give what the general ones give: attributes read without the
namespace check only where no namespace can occur, validated score values remembered per
file, spans checked once per ``<source>`` in the reported order, the first line of a
position looked up only for the message, and ErrorSpan's own ``__init__``."""

from __future__ import annotations

import dataclasses
import inspect

import pytest
from lxml import etree

from evaltrans_qt.engine.human.spans.model import ErrorSpan
from evaltrans_qt.errors import InputFormatError, SaveError, ScoreError
from evaltrans_qt.io.etdb import dumps, loads
from evaltrans_qt.io.limits import MAX_TEXT_CHARS
from evaltrans_qt.io.xmlsafe import attr_items, plain_attr_items, without_namespaces

HEAD = ('<?xml version="1.0" encoding="utf-8" ?>\n<database>\n'
        '  <levels class="esa" count="0" gray="33" green="66" perfect="100" firstvalid="0" '
        'continuous="1" minimum="0" maximum="100"/>\n'
        '  <levels class="isReference" count="2" gray="0" green="1" perfect="1" '
        'firstvalid="0"/>\n')


def _db(body: str, head: str = HEAD) -> bytes:
    return (head + body + "</database>\n").encode("utf-8")


def _source(seg: str, sent: str, target: str, inner: str = "", attrs: str = "") -> str:
    return (f'  <source seg="{seg}"{attrs}>\n    <s_sent>{sent}</s_sent>\n    <targets>\n'
            f'      <tgt sys="A">\n        <t_sent>{target}</t_sent>\n{inner}'
            f'      </tgt>\n    </targets>\n  </source>\n')


def test_error_span_init_is_the_dataclass_one():
    params = list(inspect.signature(ErrorSpan.__init__).parameters.values())[1:]
    fields = dataclasses.fields(ErrorSpan)
    assert [p.name for p in params] == [f.name for f in fields]
    assert [p.default for p in params] == [
        inspect.Parameter.empty if f.default is dataclasses.MISSING else f.default
        for f in fields]
    e = ErrorSpan("Minor", "Accuracy", 0, 5, comment="c")
    assert e == ErrorSpan("Minor", "Accuracy", 0, 5, "target", "c", None, None)
    assert hash(e) == hash(dataclasses.replace(e, comment="c"))
    assert dataclasses.replace(e, start=1).start == 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        e.start = 2  # type: ignore[misc]


def test_without_namespaces_only_when_no_namespace_can_occur():
    assert without_namespaces(b"<database><source seg='1'/></database>", "UTF-8")
    assert not without_namespaces(b'<database xmlns:a="u" a:b="1"/>', "UTF-8")
    assert not without_namespaces(b'<database><source xml:lang="de"/></database>', "utf-8")
    utf16 = '<database xmlns:a="u" a:b="1"/>'.encode("utf-16")
    assert not without_namespaces(utf16, "UTF-8")         # lxml's name for it
    assert not without_namespaces('<database/>'.encode("utf-16-be"), "UTF-8")
    assert not without_namespaces(b"<database/>", "shift_jis")
    assert not without_namespaces(b'<a xmlns:b="u" b:c="1"/>', "UTF-8")    # no declaration
    assert not without_namespaces(b'\xef\xbb\xbf<?xml version="1.0"?><a xml:lang="d"/>', "UTF-8")
    assert without_namespaces(b'\xef\xbb\xbf<?xml version="1.0"?><a/>', "UTF-8")
    assert without_namespaces(b'<?xml version="1.0"?><a>an xml file</a>', "UTF-8")


def test_plain_attr_items_is_attr_items_without_namespaces():
    many = " ".join(f'a{k}="{k}"' for k in range(40))
    for xml in ('<x/>', '<x b="1" a="2"/>', f"<x {many}/>"):
        el = etree.fromstring(xml)
        assert plain_attr_items(el) == attr_items(el) == [
            (k, v) for k, v in etree.fromstring(xml).items()]


def test_utf16_file_with_a_namespaced_attribute_keeps_it():
    text = (HEAD.replace('encoding="utf-8"', 'encoding="utf-16"')
            + _source("1", "a b", "x y", attrs=' xmlns:n="urn:n" n:note="kept"')
            + "</database>\n")
    db = loads(text.encode("utf-16"), "u16.etdb.xml")
    assert db.sources[0].extra_attrs == {"xmlns:n": "urn:n", "n:note": "kept"}
    assert loads(dumps(db)).sources[0].extra_attrs == db.sources[0].extra_attrs


def test_remembered_score_values_still_validated_per_class():
    body = (_source("1", "a", "b", '        <eval class="esa" val="2"/>\n')
            + _source("2", "c", "d", '        <eval class="isReference" val="2"/>\n'))
    with pytest.raises(ScoreError) as exc:
        loads(_db(body), "f.etdb.xml")
    assert exc.value.line == 19 and "not one of its levels" in exc.value.problem
    ok = _db(body.replace('"isReference" val="2"', '"isReference" val="1"')
             + _source("3", "e", "f", '        <eval class="esa" val="2"/>\n'))
    assert [t.scores[0].value for s in loads(ok).sources for t in s.targets] == [2, 1, 2]


def test_bad_error_reported_before_bad_rejected_span():
    inner = ('        <errors judge="j" protocol="esa">\n'
             '          <rejected machine="m" start="0" end="9" severity="Minor" '
             'category="Other">?</rejected>\n'
             '          <error start="0" end="1" severity="Minor" category="Other">z</error>\n'
             '        </errors>\n')
    with pytest.raises(InputFormatError) as exc:
        loads(_db(_source("1", "a b", "x y", inner)), "f.etdb.xml")
    assert exc.value.line == 12 and "says 'z'" in exc.value.problem


def test_bad_span_of_a_merged_source_is_found():
    good = '        <errors judge="j">\n          <error start="0" end="1" severity="Minor" ' \
           'category="Other">x</error>\n        </errors>\n'
    body = (_source("1", "a", "x y", good).replace(' seg="1"', "")
            + _source("1", "a", "x y", good.replace("Minor", "Huge")).replace(' seg="1"', ""))
    with pytest.raises(InputFormatError) as exc:
        loads(_db(body), "f.etdb.xml")
    assert exc.value.line == 22 and "unknown severity 'Huge'" in exc.value.problem
    db = loads(_db(body.replace("Huge", "minor")))
    assert len(db.sources) == 1 and len(db.sources[0].targets) == 2


def test_position_conflict_names_the_first_line():
    body = (_source("1", "a", "x") + '  <source doc="d" seg="1">\n    <s_sent>b</s_sent>\n'
            '  </source>\n' + _source("1", "c", "y"))
    with pytest.raises(InputFormatError) as exc:
        loads(_db(body), "f.etdb.xml")
    assert exc.value.line == 16
    assert "at line 5 has 'a'" in exc.value.problem


@pytest.mark.parametrize("bad, code", [("\x01", "0001"), ("\ud800", "D800"),
                                       ("\ufffe", "FFFE"), ("\uffff", "FFFF")])
@pytest.mark.parametrize("other", ["plain", "Grüße", "한국어 텍스트"])
def test_writer_refuses_characters_xml_cannot_hold(bad, code, other):
    db = loads(_db(_source("1", "a", "b") + _source("2", other, "c")))
    db.sources[1].targets[0].text = f"x{bad}y"
    with pytest.raises(SaveError) as exc:
        dumps(db)
    assert f"U+{code}" in exc.value.problem and "output line 19" in exc.value.problem
    db.sources[1].targets[0].text = "x\ty\r"
    assert loads(dumps(db)).sources[1].targets[0].text == "x\ty\r"


def test_writer_bytes_per_encoding():
    db = loads(_db(_source("1", "Grüße €", "한국어")))
    text = dumps(db).decode("utf-8")
    assert "<s_sent>Grüße €</s_sent>" in text and "<t_sent>한국어</t_sent>" in text
    db.encoding = "iso8859-1"
    data = dumps(db)
    assert data.startswith(b'<?xml version="1.0" encoding="iso8859-1" ?>')
    assert "Grüße &#8364;".encode("iso-8859-1") in data and b"&#54620;" in data
    assert loads(data).sources[0].text == "Grüße €"


def test_repeated_attribute_values_escaped_every_time():
    db = loads(_db(_source("1", "a", "b") + _source("2", "c", "d")))
    for src in db.sources:
        src.targets[0].system = 'S&"<x>\n\t'
        src.extra_attrs["note"] = 'S&"<x>\n\t'
    data = dumps(db)
    assert data.count(b'sys="S&amp;&quot;&lt;x&gt;&#10;&#9;"') == 2
    assert data.count(b'note="S&amp;&quot;&lt;x&gt;&#10;&#9;"') == 2
    assert [s.targets[0].system for s in loads(data).sources] == ['S&"<x>\n\t'] * 2
    db.sources[0].targets[0].system = "s" * (MAX_TEXT_CHARS + 1)
    with pytest.raises(SaveError):
        dumps(db)


def test_severity_in_any_case_and_spacing_is_read_as_written():
    inner = ('        <errors judge="j">\n'
             '          <error start="0" end="1" severity=" mAjor " category="Other">x</error>\n'
             '          <error start="2" end="3" severity="CRITICAL" category="Other">y</error>\n'
             '        </errors>\n')
    db = loads(_db(_source("1", "a", "x y", inner)))
    errors = db.sources[0].targets[0].span_annotations[0].errors
    assert [e.severity for e in errors] == [" mAjor ", "CRITICAL"]
    assert loads(dumps(db)).sources[0].targets[0].span_annotations[0].errors == errors
