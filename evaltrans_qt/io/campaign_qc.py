"""The quality-control extension of a campaign's result database and its report
(``evaltrans campaign qc``; ``docs/campaigns.md``).

``evaltrans campaign collect`` keeps every judged bundle position here -- quality-control
copies (BAD references, injected errors, repeats) are never scores of real candidates --
as a top-level element the reader keeps as an unknown element (the ``<typology>`` way); a
database without it is read and written as before::

    <campaign-result version="1" campaign="ID" protocol="esa" classes="esa" scale="100"
                     bad-refs="0.1" injected="0.1" repeats="0.05" straight-line="10"
                     time-floor="2" max-fast-share="0.2" min-detected="0.5"
                     repeat-tolerance="0.2" alpha="0.05">
      <annotator name="anna" file="anna.etdb.xml" sha256="…" checksum="…"
                 positions="440" real="400">
        <j n="1" kind="real" item="17" value="80" seconds="12.5"/>
        <j n="9" kind="injected" item="5" value="55" seconds="30" injected="10:17"
           spans="10:17 0:3"/>
      </annotator>
      <annotator name="carl" real="400"/>            no bundle collected yet
    </campaign-result>

``n`` is the position in the bundle, ``item`` the campaign item (index into the campaign
file's ``items``), ``value`` the protocol's score (the first class; MQM: minus the
penalty), ``spans`` the target spans marked, ``injected`` the span of an injected error.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from lxml import etree

from evaltrans_qt.engine.campaign.assignment import AnnotatorPlan
from evaltrans_qt.engine.campaign.definition import (
    PROTOCOLS,
    CampaignError,
    Definition,
    QCPlan,
)
from evaltrans_qt.engine.campaign.qc import AnnotatorQC, Judged, annotator_qc
from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.errors import InputFormatError
from evaltrans_qt.io.plaintext import read_input_bytes
from evaltrans_qt.io.xmlsafe import (
    attrs,
    escape_attr,
    format_number,
    refuse_entities,
    safe_parser,
)

PathLike = str | os.PathLike[str]
TAG = "campaign-result"
VERSION = "1"


@dataclass(frozen=True)
class AnnotatorRecord:
    """One annotator's collected bundle (``file`` None: not collected yet)."""

    name: str
    file: str | None
    sha256: str
    checksum: str
    positions: int
    real: int
    judged: tuple[Judged, ...] = ()


@dataclass
class ResultData:
    """The ``<campaign-result>`` element (module doc)."""

    campaign: str
    protocol: str
    classes: tuple[str, ...]
    scale: float
    qc: QCPlan
    annotators: dict[str, AnnotatorRecord] = field(default_factory=dict)

    @classmethod
    def empty(cls, d: Definition, scale: float, plans: Mapping[str, AnnotatorPlan]
              ) -> ResultData:
        """Nothing collected yet: every annotator (``plans``: the campaign's assignment)
        listed without a bundle."""
        return cls(d.campaign_id, d.protocol, d.classes, scale, d.qc,
                   {a: AnnotatorRecord(a, None, "", "", len(plans[a].slots),
                                       len(plans[a].real_items)) for a in d.annotators})

    def element(self) -> str:
        """The element as text, built as strings (the bytes lxml's ``tostring`` gives for
        the same tree: attributes escaped as XML 1.0 §2.4/§3.3.3, no whitespace between
        elements); names are checked and values escaped by :func:`xmlsafe.attrs`."""
        qc = [(k.replace("_", "-"), format_number(float(v)))
              for k, v in self.qc.to_dict().items()]
        head = attrs((("version", VERSION), ("campaign", self.campaign),
                      ("protocol", self.protocol), ("classes", " ".join(self.classes)),
                      ("scale", format_number(self.scale)), *qc))
        if not self.annotators:
            return f"<{TAG}{head}/>"
        out = [f"<{TAG}{head}>"]
        add = out.append
        for a in self.annotators.values():
            pairs: list[tuple[str, str | None]] = [("name", a.name)]
            if a.file is not None:
                pairs += [("file", a.file), ("sha256", a.sha256), ("checksum", a.checksum),
                          ("positions", str(a.positions))]
            pairs.append(("real", str(a.real)))
            if not a.judged:
                add(f"<annotator{attrs(pairs)}/>")
                continue
            add(f"<annotator{attrs(pairs)}>")
            for j in a.judged:        # numbers need no escaping; the kind is escaped
                x = f'<j n="{int(j.n)}" kind="{escape_attr(j.kind)}" item="{int(j.item)}"'
                if j.value is not None:
                    x += f' value="{format_number(j.value)}"'
                if j.seconds is not None:
                    x += f' seconds="{format_number(j.seconds)}"'
                if j.injected is not None:
                    x += f' injected="{int(j.injected[0])}:{int(j.injected[1])}"'
                if j.spans:
                    x += ' spans="' + " ".join(f"{int(s)}:{int(e)}" for s, e in j.spans) + '"'
                add(x + "/>")
            add("</annotator>")
        add(f"</{TAG}>")
        return "".join(out)


def _is_result_element(x: str) -> bool:
    return x.startswith(f"<{TAG}") and x[len(TAG) + 1:][:1] in (" ", ">", "/")


def _span(text: str) -> tuple[int, int]:
    a, _, b = text.partition(":")
    return int(a), int(b)


def read_result(db: Database, path: PathLike | None = None) -> ResultData | None:
    """The ``<campaign-result>`` of ``db``, None without one; :class:`CampaignError`
    naming ``path`` when it is malformed."""
    for x in db.extra_children:
        if _is_result_element(x):
            return result_of(etree.fromstring(x.encode("utf-8"), safe_parser()), path)
    return None


def read_result_file(path: PathLike) -> ResultData | None:
    """The ``<campaign-result>`` of the database file at ``path`` (None without one), read
    without building the database (what ``campaign qc`` needs, fast on a WMT-sized
    result); the file is parsed as safely as the database reader parses it."""
    data = read_input_bytes(path, "a campaign result database (.etdb.xml)")
    refuse_entities(data, str(path))
    try:
        root = etree.fromstring(data, safe_parser())
    except etree.XMLSyntaxError as exc:
        raise InputFormatError(f"malformed XML: {exc.msg}", path, exc.lineno or None) from None
    el = root.find(TAG)
    return None if el is None else result_of(el, path)


def result_of(el: Any, path: PathLike | None = None) -> ResultData:
    """The :class:`ResultData` of a parsed ``<campaign-result>`` element."""
    try:
        if el.get("version") != VERSION:
            raise ValueError(f"version {el.get('version')!r} is not {VERSION}")
        fields = QCPlan().to_dict()
        values: dict[str, Any] = {
            k: (int(float(el.get(k.replace('_', '-'), v))) if k == "straight_line"
                else float(el.get(k.replace('_', '-'), v))) for k, v in fields.items()}
        qc = QCPlan(**values)
        data = ResultData(el.get("campaign", ""), el.get("protocol", ""),
                          tuple((el.get("classes") or "").split()),
                          float(el.get("scale", "1")), qc)
        for a in el.iter("annotator"):
            judged = tuple(Judged(
                int(j.get("n", "0")), j.get("kind", ""), int(j.get("item", "0")),
                None if j.get("value") is None else float(j.get("value", "")),
                None if j.get("seconds") is None else float(j.get("seconds", "")),
                tuple(_span(s) for s in (j.get("spans") or "").split()),
                None if j.get("injected") is None else _span(j.get("injected", "")))
                for j in a.iter("j"))
            name = a.get("name", "")
            data.annotators[name] = AnnotatorRecord(
                name, a.get("file"), a.get("sha256", ""), a.get("checksum", ""),
                int(a.get("positions", "0")), int(a.get("real", "0")), judged)
        return data
    except (ValueError, TypeError) as exc:
        raise CampaignError(f"<{TAG}> is malformed: {exc}", path) from None


def set_result(db: Database, data: ResultData) -> None:
    """Store ``data`` as the ``<campaign-result>`` of ``db`` (replacing one)."""
    db.extra_children = [x for x in db.extra_children if not _is_result_element(x)]
    db.extra_children.append(data.element())


@dataclass(frozen=True)
class QCReport:
    """Every annotator's report; ``missing`` names those without a collected bundle."""

    campaign: str
    annotators: tuple[AnnotatorQC, ...]
    missing: tuple[str, ...]

    def to_dict(self) -> dict:
        return {"campaign": self.campaign, "missing": list(self.missing),
                "annotators": [a.to_dict() for a in self.annotators]}


def qc_report(source: Database | ResultData | None, path: PathLike | None = None
              ) -> QCReport:
    """The QC report of a result database or its :class:`ResultData`
    (:func:`evaltrans_qt.engine.campaign.qc.annotator_qc` per collected annotator);
    :class:`CampaignError` naming ``path`` when it holds no campaign result."""
    data = read_result(source, path) if isinstance(source, Database) else source
    if data is None:
        raise CampaignError("not the result of a campaign (no <campaign-result>; make one "
                            "with 'evaltrans campaign collect')", path)
    ranking = PROTOCOLS.get(data.protocol, PROTOCOLS["classes"]).ranking
    reports = tuple(annotator_qc(a.name, a.judged, a.real, data.qc, data.scale, ranking)
                    for a in data.annotators.values() if a.file is not None)
    missing = tuple(a.name for a in data.annotators.values() if a.file is None)
    return QCReport(data.campaign, reports, missing)


__all__ = ["TAG", "AnnotatorRecord", "ResultData", "read_result", "read_result_file",
           "result_of", "set_result", "QCReport", "qc_report"]
