"""The one XML escaper (io/xmlsafe.py): what it writes, lxml reads back unchanged."""

from __future__ import annotations

import pytest
from lxml import etree

from evaltrans_qt.io import report
from evaltrans_qt.io import xmlsafe as xmltext

CASES = ["", "plain", "a & b", "<s> x </s>", 'say "hi"', "it's", "tab\there", "two\nlines",
         "cr\rlf\r\n", "&amp; already", "]]>", "Ünïcödé ẞ 汉字 😀", "  lead and trail  "]


@pytest.mark.parametrize("s", CASES)
def test_round_trip_through_lxml(s):
    doc = etree.fromstring(f'<a x="{xmltext.escape_attr(s)}">{xmltext.escape_text(s)}</a>'
                           .encode())
    assert doc.get("x") == s
    assert (doc.text or "") == s


def test_invalid_characters_are_found_and_replaced():
    bad = "a\x00b\x0bc\ufffed"
    assert xmltext.INVALID_XML_CHARS.search(bad).group() == "\x00"
    assert xmltext.replace_invalid(bad) == "a\ufffdb\ufffdc\ufffdd"
    assert xmltext.replace_invalid("ok\ttab\nnl") == "ok\ttab\nnl"   # allowed controls stay
    with pytest.raises(etree.XMLSyntaxError):
        etree.fromstring(f"<a>{xmltext.escape_text(bad)}</a>".encode())


def test_database_and_report_use_the_one_escaper():
    from evaltrans_qt.io.etdb import writer
    assert writer.escape_text is xmltext.escape_text
    assert writer.INVALID_XML_CHARS is xmltext.INVALID_XML_CHARS
    s = 'x "q" <&>\t\n\r'
    assert writer.checked_attr(s) == xmltext.escape_attr(s)
    assert report._esc_attr(s + "\x01") == xmltext.escape_attr(s + "\ufffd")
    assert report._esc(s + "\x01") == xmltext.escape_text(s + "\ufffd")
