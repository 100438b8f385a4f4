"""The ``<campaign-result>`` element written as text equals what lxml serialises for the
same tree, and reads back to the same data (io/campaign_qc.py)."""

from __future__ import annotations

import pytest
from lxml import etree

from evaltrans_qt.engine.campaign.definition import parse_qc
from evaltrans_qt.engine.campaign.qc import Judged
from evaltrans_qt.errors import SaveError
from evaltrans_qt.io.campaign_qc import TAG, VERSION, AnnotatorRecord, ResultData, result_of
from evaltrans_qt.io.xmlsafe import format_number, safe_parser


def _lxml(data: ResultData) -> str:
    """The element built with lxml's tree API (the serialisation the text must equal)."""
    qc = {k.replace("_", "-"): format_number(float(v)) for k, v in data.qc.to_dict().items()}
    root = etree.Element(TAG, version=VERSION, campaign=data.campaign, protocol=data.protocol,
                         classes=" ".join(data.classes), scale=format_number(data.scale), **qc)
    for a in data.annotators.values():
        el = etree.SubElement(root, "annotator", name=a.name)
        if a.file is not None:
            el.set("file", a.file)
            el.set("sha256", a.sha256)
            el.set("checksum", a.checksum)
            el.set("positions", str(a.positions))
        el.set("real", str(a.real))
        for j in a.judged:
            je = etree.SubElement(el, "j", n=str(j.n), kind=j.kind, item=str(j.item))
            if j.value is not None:
                je.set("value", format_number(j.value))
            if j.seconds is not None:
                je.set("seconds", format_number(j.seconds))
            if j.injected is not None:
                je.set("injected", f"{j.injected[0]}:{j.injected[1]}")
            if j.spans:
                je.set("spans", " ".join(f"{s}:{e}" for s, e in j.spans))
    return etree.tostring(root, encoding="unicode")


def _data(annotators: dict[str, AnnotatorRecord]) -> ResultData:
    return ResultData('c&<1>"\t\n\r', "esa", ("esa", "x>y"), 100.0,
                      parse_qc("bad-refs=0.1,injected=0.1,repeats=0.05"), annotators)


TRICKY = 'Ann "a" & <b>\tc\nd\re é \u4e2d'


@pytest.mark.parametrize("annotators", [
    {},
    {"carl": AnnotatorRecord("carl", None, "", "", 0, 30)},
    {TRICKY: AnnotatorRecord(TRICKY, "f&<>.etdb.xml", "ab" * 32, "c\"d", 5, 4, (
        Judged(1, "real", 17, 80.0, 12.5),
        Judged(2, "injected", 5, -2.5, None, ((10, 17), (0, 3)), (10, 17)),
        Judged(3, "bad-ref", 0, None, 1e-7))),
     "carl": AnnotatorRecord("carl", None, "", "", 0, 30)},
])
def test_element_text_equals_lxml_serialisation(annotators):
    data = _data(annotators)
    text = data.element()
    assert text == _lxml(data)
    back = result_of(etree.fromstring(text.encode("utf-8"), safe_parser()), None)
    assert back is not None and back.campaign == data.campaign
    assert back.annotators == data.annotators




def test_attrs_checks_names_and_lengths_on_every_call():
    """Names found valid are remembered; a bad name is refused every time, and a value
    over the length limit is refused under a valid (remembered) name."""
    from evaltrans_qt.io.limits import MAX_TEXT_CHARS
    from evaltrans_qt.io.xmlsafe import attrs
    assert attrs([("a-b", 'x"<'), ("c", None), ("d", 3)]) == ' a-b="x&quot;&lt;" d="3"'
    for _ in range(2):
        with pytest.raises(SaveError, match="not a valid XML attribute name"):
            attrs([("bad name", "1")])
    with pytest.raises(SaveError):
        attrs([("a-b", "x" * (MAX_TEXT_CHARS + 1))])
