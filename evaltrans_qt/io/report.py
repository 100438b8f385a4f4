"""The EvalTrans XML report (thesis Appendix A.3, Figures A.2 and A.3).

One report describes one candidate system of a run::

    <report>
      <author/> <date/> <comment/> <software/>
      <files> <database-file/> <source-file/> <command-line/> </files>
      <candidate-statistics> ... </candidate-statistics>
      <evaluation-options> <wer-options>...</wer-options> ... </evaluation-options>
      <evaluation> <wer>...</wer> <bleu>...</bleu> ... </evaluation>
      <candidate-evaluation>                      (with sentences-in-detail)
        <candidate nr="0">
          <source nr="0"/> <target nr="-1"/>
          <wer>... <reference-distance nr="0">3</reference-distance> ...</wer>
        </candidate>
      </candidate-evaluation>
    </report>

Element names (Figures A.2/A.3 where they name one; otherwise by the rules below):

* ``<evaluation-options>`` holds one ``<G-options>`` per option group ``G`` of
  :func:`option_fields` (``preprocessing``, ``wer``, ``cder``, ``nper``,
  ``sbper``, ``bleu``, ``nist``, ``invwer``, ``ljwer``, ``ter``, ``general``),
  each child named by the option's ``report`` metadata (``reference-length-rule``,
  ``pad-rule``, ``coverage-rule``...). Values: choices verbatim, flags
  ``true``/``false``, lists comma separated. ``<report-options>`` (our
  extension) records ``measures``, ``sentences-in-detail`` and
  ``include-sentences``.
* In ``<evaluation>`` each measure is one element named by the measure's
  ``report_element`` (``wer``, ``wwer``, ``per``, ``wper``, ``msder``,
  ``nper``, ``sbper``, ``bleu``, ``nist``, ``chrf``, ``cder``, ``ter``,
  ``invwer``, ``ljwer``); its children are the measure's
  ``MeasureScore.details``: a number is a leaf element, a mapping a nested
  element (CDER's ``<forward>``...), a list of ``(attributes, value)`` pairs
  repeated elements with attributes (``<n-gram n="1">``).
* Our extensions, as attributes so that the figures' structure is unchanged:
  ``stats`` (the measure's sufficient statistics, space separated, exact
  ``repr`` floats; ``stat-names`` at system level) -- the reader rebuilds the
  exact numbers from them; ``flags`` on a sentence's measure element lists the
  measure's raised per-sentence flags (e.g. ``flags="approximated"`` for LJWER);
  ``signature`` on a system-level measure element names every option that
  changes its numbers (sacreBLEU's own signature for BLEU/chrF/TER, an extended
  one for our measures, ``engine/run/signature.py``); the reader keeps it in
  ``RunResult.meta["signatures"]``.
* ``<candidate-statistics>``: ``<system>``, ``<candidates>``,
  ``<candidate-words>``, ``<reference-sentences>``, ``<reference-words>``,
  ``<references-per-candidate>`` (minimum/maximum as attributes ``min``/``max``);
  with ``--extrapolate`` one ``<human-score class scored extrapolated>`` per
  human score class: the system's length-weighted human score (thesis section 5.5) over
  person-given and extrapolated scores, with the two counts.
* ``<human-protocols>`` (after ``<candidate-statistics>``, when the database has them):
  the system's SSER per SSER class, IER, HTER, aWER and SER with their counts
  (:func:`protocols_element`).
* ``<ranking>`` (after those, when the database has relative rankings): per
  level (``segments`` = SegRanks, ``sentences`` = whole-sentence ranking) the system's
  ratio of wins, expected wins and counts (:func:`ranking_element`).
* ``<files>`` may also hold ``<target-file>`` and ``<reference-file>`` elements.
* Per candidate: ``<source nr>`` (index into the database's sources; with
  include-sentences ``<s_sent>`` inside), ``<target nr sys>`` (index of the
  candidate among its source's targets, -1 if it came from a target file; with
  include-sentences ``<t_sent>`` and one ``<reference nr sys>`` per reference).
"""

from __future__ import annotations

import dataclasses
import getpass
import math
import os
import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
from lxml import etree

from evaltrans_qt.engine.measures import load_all
from evaltrans_qt.engine.measures.base import FLAG_PREFIX, MeasureScore, stat_flags
from evaltrans_qt.engine.options import EvalOptions, option_fields, parse_option_value
from evaltrans_qt.engine.run.results import RunResult, SystemResult
from evaltrans_qt.errors import InputFormatError, OptionError
from evaltrans_qt.io.atomic import atomic_write_bytes
from evaltrans_qt.io.limits import parse_int, parse_number
from evaltrans_qt.io.xmlsafe import (
    escape_attr,
    escape_text,
    refuse_entities,
    replace_invalid,
    safe_parser,
)
from evaltrans_qt.version import __version__

DOCTYPE = '<!DOCTYPE etreport SYSTEM "etreport.dtd">'
SOFTWARE = f"evaltrans_qt {__version__}"
_RESERVED_ATTRS = ("stats", "stat-names", "flags", "signature")


# --------------------------------------------------------------------------- values
def format_value(v: Any) -> str:
    """A detail or option value as element text (floats exact via ``repr``)."""
    if isinstance(v, float):          # includes np.float64
        if v.is_integer() and -1e15 < v < 1e15:
            return str(int(v))
        return repr(float(v))
    if isinstance(v, np.floating):
        return format_value(float(v))
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (tuple, list)):
        return ",".join(str(x) for x in v)
    return str(v)


#: Values :func:`format_value` writes for non-finite floats.
_SPECIAL = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


def _parse_number(text: str | None) -> Any:
    """A detail's number (``io/limits.py`` :func:`parse_number`: bounded, plain digits, or
    one of :data:`_SPECIAL`), else its text."""
    t = (text or "").strip()
    if t in _SPECIAL:
        return _SPECIAL[t]
    try:
        return parse_number(t)
    except ValueError:
        return t


def _format_stats(row: np.ndarray) -> str:
    return " ".join(format_value(x) for x in row.tolist())


def _esc(text: str) -> str:
    """Element text (:mod:`evaltrans_qt.io.xmlsafe`); characters XML 1.0 cannot hold become
    U+FFFD."""
    return escape_text(replace_invalid(text))


def _esc_attr(text: str) -> str:
    """An attribute value, as :func:`_esc`."""
    return escape_attr(replace_invalid(text))


class _Writer:
    """Pretty-printed XML as a list of strings (fast; reports reach 10^5 elements)."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    @staticmethod
    def _attrs(attrs: Mapping[str, Any] | None) -> str:
        if not attrs:
            return ""
        return "".join(f' {k}="{_esc_attr(format_value(v))}"' for k, v in attrs.items())

    def leaf(self, depth: int, tag: str, value: Any, attrs: Mapping[str, Any] | None = None) -> None:
        text = _esc(value) if isinstance(value, str) else format_value(value)
        a = self._attrs(attrs)
        if text:
            self.parts.append(f"{'  ' * depth}<{tag}{a}>{text}</{tag}>\n")
        else:
            self.parts.append(f"{'  ' * depth}<{tag}{a}/>\n")

    def open(self, depth: int, tag: str, attrs: Mapping[str, Any] | None = None) -> None:
        self.parts.append(f"{'  ' * depth}<{tag}{self._attrs(attrs)}>\n")

    def close(self, depth: int, tag: str) -> None:
        self.parts.append(f"{'  ' * depth}</{tag}>\n")


# --------------------------------------------------------------------------- options
def option_groups() -> dict[str, list[dataclasses.Field]]:
    """Option fields by report group, in declaration order."""
    out: dict[str, list[dataclasses.Field]] = {}
    for f in option_fields():
        out.setdefault(f.metadata["group"], []).append(f)
    return out


def options_element(w: _Writer, depth: int, options: EvalOptions) -> None:
    """One ``<G-options>`` per option group (Figure A.2), inside ``<evaluation-options>``."""
    for group, fields in option_groups().items():
        w.open(depth, f"{group}-options")
        for f in fields:
            w.leaf(depth + 1, f.metadata["report"], getattr(options, f.name))
        w.close(depth, f"{group}-options")


def parse_options(el, path=None) -> EvalOptions:
    """Inverse of :func:`options_element` (unknown groups/elements are ignored)."""
    by_key = {(f.metadata["group"], f.metadata["report"]): f for f in option_fields()}
    kw: dict[str, Any] = {}
    for g in el:
        if not isinstance(g.tag, str) or not g.tag.endswith("-options"):
            continue
        group = g.tag[: -len("-options")]
        for child in g:
            f = by_key.get((group, child.tag))
            if f is None:
                continue
            try:
                kw[f.name] = parse_option_value(f, (child.text or "").strip())
            except OptionError as exc:
                raise InputFormatError(exc.problem, path, child.sourceline) from None
    try:
        return EvalOptions(**kw)
    except OptionError as exc:
        raise InputFormatError(f"evaluation options: {exc.problem}", path, el.sourceline) from None


# --------------------------------------------------------------------------- details
def details_into(w: _Writer, depth: int, details: Mapping[str, Any]) -> None:
    """Write ``MeasureScore.details``: numbers -> leaves, mappings -> nested, lists -> repeated."""
    for key, v in details.items():
        if isinstance(v, Mapping):
            w.open(depth, key)
            details_into(w, depth + 1, v)
            w.close(depth, key)
        elif isinstance(v, (list, tuple)) and v and isinstance(v[0], (list, tuple)) \
                and len(v[0]) == 2 and isinstance(v[0][0], Mapping):
            for attrs, val in v:
                if isinstance(val, Mapping):
                    w.open(depth, key, attrs)
                    details_into(w, depth + 1, val)
                    w.close(depth, key)
                else:
                    w.leaf(depth, key, val, attrs)
        else:
            w.leaf(depth, key, v)


def details_from(el) -> dict[str, Any]:
    """Inverse of :func:`details_into` (elements with attributes are list items)."""
    out: dict[str, Any] = {}
    for child in el:
        if not isinstance(child.tag, str) or child.tag == "reference-distance":
            continue
        attrs = {k: _parse_attr(v) for k, v in child.attrib.items() if k not in _RESERVED_ATTRS}
        value = details_from(child) if len(child) else _parse_number(child.text)
        if attrs:
            out.setdefault(child.tag, []).append((attrs, value))
        else:
            out[child.tag] = value
    return out


def _parse_attr(v: str) -> Any:
    try:
        return parse_int(v, "attribute", -(10**18), 10**18, signed=True)
    except ValueError:
        return v


def _headline(details: Mapping[str, Any]) -> float:
    for key in ("error-rate", "score"):
        v = details.get(key)
        if isinstance(v, float):
            return v
    for v in details.values():
        if isinstance(v, float):
            return v
        if isinstance(v, Mapping):
            return _headline(v)
    return math.nan


# --------------------------------------------------------------------------- writing
def build_report(run: RunResult, system: str, *, author: str | None = None,
                 date: str | None = None, comment: str = "", database_file: str | None = None,
                 source_file: str | None = None, target_file: str | None = None,
                 reference_files: Sequence[str] = (), command_line: str = "",
                 sentences_in_detail: bool = False, include_sentences: bool = False,
                 encoding: str = "utf-8",
                 human: Mapping[str, tuple[float, int, int]] | None = None,
                 correlation: Sequence[Any] = (),
                 protocols: Mapping[str, Any] | None = None,
                 ranking: Mapping[str, Any] | None = None) -> bytes:
    """The report of one system of ``run`` as bytes in ``encoding``.

    ``human`` = {class: (system score, #scored by people, #extrapolated)} is
    written to ``<candidate-statistics>`` as ``<human-score class scored extrapolated>``.
    ``correlation`` (``engine.metaeval.correlation.Correlation`` rows of the whole run) becomes
    the ``<correlation>`` section after ``<evaluation>``: one ``<coefficients measure
    human level n negated>`` per row with ``<pearson>``, ``<spearman>``, ``<kendall>``
    (tau_a, thesis eq. 6.23), ``<kendall-b>`` and at sentence level ``<tau-bar>``
    (eq. 6.24) and ``<wmt-tau>``, each with ``<value>``, ``<lower>``, ``<upper>`` (95%
    bootstrap; ``pearson`` also Fisher-z bounds). Error measures are negated, so a
    positive value means agreement with the judges.
    ``protocols`` = {name: ``SystemValue``} of the human-evaluation protocols for this
    system (:func:`evaltrans_qt.engine.human.protocol_scores.system_values`) becomes
    ``<human-protocols>`` after ``<candidate-statistics>`` (see :func:`protocols_element`).
    """
    sr = run.systems[system]
    w = _Writer()
    w.parts.append(f'<?xml version="1.0" encoding="{encoding}"?>\n{DOCTYPE}\n<report>\n')
    w.leaf(1, "author", author if author is not None else _user())
    w.leaf(1, "date", date or datetime.now(UTC).isoformat(timespec="seconds"))
    w.leaf(1, "comment", comment)
    w.leaf(1, "software", SOFTWARE)
    w.open(1, "files")
    w.leaf(2, "database-file", str(database_file or run.database_path or ""))
    w.leaf(2, "source-file", str(source_file or ""))
    if target_file:
        w.leaf(2, "target-file", str(target_file))
    for r in reference_files:
        w.leaf(2, "reference-file", str(r))
    w.leaf(2, "command-line", command_line)
    w.close(1, "files")
    _candidate_statistics(w, run, sr, human or {})
    if protocols:
        protocols_element(w, protocols)
    if ranking:
        ranking_element(w, ranking)
    w.open(1, "evaluation-options")
    options_element(w, 2, run.options)
    w.open(2, "report-options")
    w.leaf(3, "measures", ",".join(run.measures))
    w.leaf(3, "sentences-in-detail", sentences_in_detail)
    w.leaf(3, "include-sentences", include_sentences)
    w.close(2, "report-options")
    w.close(1, "evaluation-options")
    w.open(1, "evaluation")
    signatures = run.signatures()
    for name in run.measures:
        if name not in sr.scores:
            continue
        m = run.measure(name)
        attrs = {"stat-names": " ".join(m.stat_names)}
        attrs.update(getattr(m, "report_attrs", dict)())   # external metrics: name, direction
        if name in signatures:
            attrs["signature"] = signatures[name]
        if name in sr.stats and len(sr.stats[name]):
            attrs["stats"] = _format_stats(sr.stats[name].sum(axis=0))
        w.open(2, m.report_element, attrs)
        details_into(w, 3, sr.scores[name].details)
        w.close(2, m.report_element)
    w.close(1, "evaluation")
    if correlation:
        from evaltrans_qt.engine.metaeval.correlation_format import correlation_report_elements
        conv = next((c.convention for c in correlation if c.level == "system"), "")
        w.open(1, "correlation", {"convention": conv} if conv else None)   # system level's
        details_into(w, 2, {"coefficients": correlation_report_elements(correlation)["correlation"]})
        w.close(1, "correlation")
    if sentences_in_detail:
        _candidates(w, run, sr, include_sentences)
    w.parts.append("</report>\n")
    return "".join(w.parts).encode(encoding, "xmlcharrefreplace")


def _user() -> str:
    try:
        return getpass.getuser()
    except Exception:
        return ""


def _candidate_statistics(w: _Writer, run: RunResult, sr: SystemResult,
                          human: Mapping[str, tuple[float, int, int]]) -> None:
    from evaltrans_qt.engine.text.preprocess import tokenize
    w.open(1, "candidate-statistics")
    w.leaf(2, "system", sr.system)
    w.leaf(2, "candidates", len(sr.segments))
    o = run.options
    if sr.target_texts:
        w.leaf(2, "candidate-words", sum(len(tokenize(t, o.tokenization, o.case))
                                         for t in sr.target_texts))
    if sr.reference_texts:
        counts = [len(r) for r in sr.reference_texts]
        w.leaf(2, "reference-sentences", sum(counts))
        w.leaf(2, "reference-words", sum(len(tokenize(t, o.tokenization, o.case))
                                         for refs in sr.reference_texts for t in refs))
        w.leaf(2, "references-per-candidate", sum(counts) / max(1, len(counts)),
               {"min": min(counts, default=0), "max": max(counts, default=0)})
    for cls, (value, scored, extrapolated) in human.items():
        w.leaf(2, "human-score", value, {"class": cls, "scored": scored,
                                         "extrapolated": extrapolated})
    w.close(1, "candidate-statistics")


def protocols_element(w: _Writer, protocols: Mapping[str, Any]) -> None:
    """``<human-protocols>`` (our extension): one ``<protocol name sentences
    numerator denominator>value</protocol>`` per protocol -- SSER per SSER class
    (``sser:<class>``), IER, HTER, aWER, SER (survey §4.4; engine/human/protocol_scores.py);
    ``sentences`` is how many candidates the value is based on (``nan`` with none)."""
    w.open(1, "human-protocols")
    for name, v in protocols.items():
        w.leaf(2, "protocol", float(v.value), {"name": name, "sentences": int(v.sentences),
                                               "numerator": float(v.numerator),
                                               "denominator": float(v.denominator)})
    w.close(1, "human-protocols")


def ranking_element(w: _Writer, ranking: Mapping[str, Any]) -> None:
    """``<ranking>`` (our extension): one ``<ranks level rankings wins losses
    ties>`` per level with ``<ratio-of-wins>`` (ignoring ties, Macháček §3.1),
    ``<expected-wins>`` (Koehn 2012), ``<expected-wins-ties>`` and ``<geq-others>``;
    ``ranking`` = :func:`evaltrans_qt.engine.human.ranking.system_rank_values` of the system."""
    w.open(1, "ranking")
    for level, (row, n) in ranking.items():
        w.open(2, "ranks", {"level": level, "rankings": int(n), "wins": row.wins,
                            "losses": row.losses, "ties": row.ties})
        w.leaf(3, "ratio-of-wins", float(row.ratio))
        w.leaf(3, "expected-wins", float(row.expected_wins))
        w.leaf(3, "expected-wins-ties", float(row.expected_wins_ties))
        w.leaf(3, "geq-others", float(row.geq_others))
        w.close(2, "ranks")
    w.close(1, "ranking")


def _candidates(w: _Writer, run: RunResult, sr: SystemResult, include_sentences: bool) -> None:
    w.open(1, "candidate-evaluation")
    measures = [(n, run.measure(n)) for n in run.measures if n in sr.stats]
    flag_cols = {n: [(j, c[len(FLAG_PREFIX):]) for j, c in enumerate(m.stat_names)
                     if c.startswith(FLAG_PREFIX)] for n, m in measures}
    sys_attr = _esc_attr(sr.system)
    for i, si in enumerate(sr.segments):
        w.parts.append(f'    <candidate nr="{i}">\n')
        ti = sr.target_indices[i] if sr.target_indices else -1
        if include_sentences and sr.source_texts:
            w.parts.append(f'      <source nr="{si}">\n')
            w.leaf(4, "s_sent", sr.source_texts[i])
            w.parts.append("      </source>\n")
        else:
            w.parts.append(f'      <source nr="{si}"/>\n')
        if include_sentences and sr.target_texts:
            w.parts.append(f'      <target nr="{ti}" sys="{sys_attr}">\n')
            w.leaf(4, "t_sent", sr.target_texts[i])
            if sr.reference_texts:
                for r, text in enumerate(sr.reference_texts[i]):
                    w.leaf(4, "reference", text, {"nr": r})
            w.parts.append("      </target>\n")
        else:
            w.parts.append(f'      <target nr="{ti}" sys="{sys_attr}"/>\n')
        for name, m in measures:
            row = sr.stats[name][i]
            attrs = {"stats": _format_stats(row)}
            raised = [f for j, f in flag_cols[name] if row[j]]
            if raised:
                attrs["flags"] = " ".join(raised)
            w.open(3, m.report_element, attrs)
            details_into(w, 4, m.score(row).details)
            rd = sr.ref_distances.get(name)
            if rd is not None:
                for r, d in enumerate(rd[i].tolist()):
                    if d == d:
                        w.leaf(4, "reference-distance", d, {"nr": r})
            w.close(3, m.report_element)
        w.parts.append("    </candidate>\n")
    w.close(1, "candidate-evaluation")


def write_report(path: str | os.PathLike[str], run: RunResult, system: str, **kw: Any) -> None:
    """Build the report of ``system`` and write it atomically (never a partial file)."""
    atomic_write_bytes(path, build_report(run, system, **kw))


# --------------------------------------------------------------------------- reading
def read_report(path: str | os.PathLike[str]) -> RunResult:
    """Load a report written by :func:`write_report` (or the original tool) into a RunResult."""
    from evaltrans_qt.io.plaintext import read_input_bytes
    p = Path(path)
    return loads_report(read_input_bytes(p, "a report", allow_empty=True), p)


def loads_report(data: bytes, path: str | os.PathLike[str] | None = None) -> RunResult:
    """Parse report bytes. Measures known to the registry are rebuilt from their
    ``stats`` (exactly the numbers of the run); others keep the parsed details."""
    refuse_entities(data, path, what="a report")
    try:
        root = etree.fromstring(data, safe_parser(huge_tree=True))
    except etree.XMLSyntaxError as exc:
        line, col = (exc.position if exc.position else (None, None))
        raise InputFormatError(f"not a well-formed XML report: {exc.msg}", path, line,
                               col) from None
    if root.tag != "report":
        raise InputFormatError(f"root element is <{root.tag}>, expected <report>", path,
                               root.sourceline)
    opts_el = root.find("evaluation-options")
    options = parse_options(opts_el, path) if opts_el is not None else EvalOptions()
    cs = root.find("candidate-statistics")
    system = (cs.findtext("system") if cs is not None else None) or ""
    registry = load_all()
    by_element = {cls.report_element: name for name, cls in registry.items()}
    ev = root.find("evaluation")
    measures: list[str] = []
    scores: dict[str, MeasureScore] = {}
    elements: dict[str, str] = {}
    tmp = RunResult(options, (), {})
    signatures: dict[str, str] = {}
    for el in (ev if ev is not None else []):
        if not isinstance(el.tag, str):
            continue
        name = (el.get("name") if el.tag == "external" else None) or by_element.get(el.tag, el.tag)
        measures.append(name)
        if el.get("signature"):
            signatures[name] = el.get("signature")
        elements[el.tag] = name
        scores[name] = _score_of(tmp, name, el, name in registry, path)
    rows = root.findall("candidate-evaluation/candidate")
    stats: dict[str, list[np.ndarray]] = {m: [] for m in measures if m in registry}
    rdist: dict[str, list[list[float]]] = {m: [] for m in measures}
    no_stats: set[str] = set()
    segs, tidx, src_t, tgt_t, ref_t = [], [], [], [], []
    for cand in rows:
        s = cand.find("source")
        t = cand.find("target")
        segs.append(_nr(s, path))
        tidx.append(_nr(t, path))
        if s is not None and s.find("s_sent") is not None:
            src_t.append(s.findtext("s_sent") or "")
        if t is not None and t.find("t_sent") is not None:
            tgt_t.append(t.findtext("t_sent") or "")
            ref_t.append(tuple(r.text or "" for r in t.findall("reference")))
        for el in cand:
            name = elements.get(el.tag) if isinstance(el.tag, str) else None
            if name is None:
                continue
            if name in stats and name not in no_stats:
                if el.get("stats") is None:
                    # e.g. a report of the original EvalTrans: sentence values are in the
                    # details only; keep the system scores, drop this measure's rows
                    no_stats.add(name)
                else:
                    row = _stats_attr(el, path)
                    want = len(tmp.measure(name).stat_names)
                    if len(row) != want:
                        raise InputFormatError(
                            f"<{el.tag} stats=\"{el.get('stats', '')[:40]}\">: {len(row)} "
                            f"value(s), {name} has {want} statistics", path, el.sourceline)
                    stats[name].append(row)
            n_refs = len(t.findall("reference")) if t is not None else 0
            rdist[name].append(_reference_distances(el, n_refs or MAX_REFERENCES, path))
    stat_arrays = {m: np.array(v, dtype=np.float64).reshape(len(v), -1)
                   for m, v in stats.items() if rows and m not in no_stats}
    ref_distances = {}
    for m, lst in rdist.items():
        if lst and any(lst):
            width = max(len(x) for x in lst)
            ref_distances[m] = np.array([x + [math.nan] * (width - len(x)) for x in lst])
    flags: dict[str, dict[str, np.ndarray]] = {}
    for m, arr in stat_arrays.items():
        if found := stat_flags(tmp.measure(m).stat_names, arr):
            flags[m] = found
    sr = SystemResult(system=system, segments=tuple(segs), scores=scores, stats=stat_arrays,
                      target_texts=tuple(tgt_t), flags=flags, target_indices=tuple(tidx),
                      source_texts=tuple(src_t), reference_texts=tuple(ref_t),
                      ref_distances=ref_distances)
    files = root.find("files")
    meta: dict[str, Any] = {k: root.findtext(k) or "" for k in ("author", "date", "comment",
                                                                  "software")}
    corr = root.find("correlation")
    if corr is not None:
        meta["correlation"] = [({k: v for k, v in el.attrib.items()}, details_from(el))
                               for el in corr.findall("coefficients")]
    if files is not None:
        meta["files"] = {c.tag: c.text or "" for c in files if isinstance(c.tag, str)}
        meta["reference-files"] = [c.text or "" for c in files.findall("reference-file")]
    if cs is not None:
        meta["candidate-statistics"] = details_from(cs) | {"system": system}
        n_el = cs.find("candidates")
        if n_el is not None:
            try:
                meta["candidate-statistics"]["candidates"] = parse_int(
                    (n_el.text or "").strip(), "<candidates>")
            except ValueError as exc:
                raise InputFormatError(str(exc), path, n_el.sourceline) from None
    hp = root.find("human-protocols")
    if hp is not None:      # {name: value} of <protocol name=...> (protocols_element)
        meta["human-protocols"] = {el.get("name", ""): _parse_number(el.text)
                                   for el in hp.findall("protocol") if el.get("name")}
    ro = opts_el.find("report-options") if opts_el is not None else None
    if ro is not None:
        meta["sentences-in-detail"] = (ro.findtext("sentences-in-detail") or "") == "true"
        meta["include-sentences"] = (ro.findtext("include-sentences") or "") == "true"
    meta["unknown-measures"] = tuple(m for m in measures if m not in registry)
    meta["signatures"] = signatures
    db = (meta.get("files") or {}).get("database-file") or None
    return RunResult(options=options, measures=tuple(measures), systems={system: sr},
                     database_path=db, meta=meta)


#: Most references a report row may name in ``<reference-distance nr>`` when the row does
#: not list its references (``include-sentences``); with them, their number.
MAX_REFERENCES = 10_000


def _reference_distances(el, n_refs: int, path) -> list[float]:
    """Distances of one measure element's ``<reference-distance nr>`` children by reference
    number (NaN where missing). ``nr`` must be an integer in [0, n_refs): a row's width is
    checked before anything is allocated."""
    d: dict[int, float] = {}
    for k, r in enumerate(el.findall("reference-distance")):
        raw = r.get("nr", str(k))
        try:
            nr = int(raw)
        except ValueError:
            raise InputFormatError(f"<reference-distance nr={raw!r}>: not an integer", path,
                                   r.sourceline) from None
        if not 0 <= nr < n_refs:
            raise InputFormatError(f"<reference-distance nr=\"{raw}\">: reference number "
                                   f"outside 0..{n_refs - 1}", path, r.sourceline)
        if nr in d:
            raise InputFormatError(f"<reference-distance nr=\"{raw}\"> given twice", path,
                                   r.sourceline)
        try:
            d[nr] = float((r.text or "").strip())
        except ValueError:
            raise InputFormatError(f"<reference-distance nr=\"{raw}\">: distance "
                                   f"{r.text!r} is not a number", path, r.sourceline) from None
    return [d.get(k, math.nan) for k in range(max(d, default=-1) + 1)]


def _nr(el, path) -> int:
    """The whole-number ``nr`` attribute of a candidate's ``<source>``/``<target>`` (-1 if
    the element or attribute is absent); :class:`InputFormatError` naming the line."""
    if el is None:
        return -1
    text = el.get("nr", "-1")
    if not re.fullmatch(r"-?[0-9]{1,18}", text.strip()):
        raise InputFormatError(f"<{el.tag} nr=\"{text[:40]}\">: nr must be a whole number",
                               path, el.sourceline)
    return int(text)


def _stats_attr(el, path) -> np.ndarray:
    raw = el.get("stats")
    if raw is None:
        raise InputFormatError(f"<{el.tag}> has no stats attribute", path, el.sourceline)
    try:
        return np.array([_SPECIAL.get(x) or parse_number(x, "a statistic")
                         for x in raw.split()], dtype=np.float64)
    except ValueError as exc:
        raise InputFormatError(f"<{el.tag}>: bad stats attribute {raw[:40]!r}: {exc}", path,
                               el.sourceline) from None


def _score_of(run: RunResult, name: str, el, known: bool, path) -> MeasureScore:
    if known and el.get("stats") is not None:
        m = run.measure(name)
        total = _stats_attr(el, path)
        if len(total) == len(m.stat_names):
            return m.score(total)
    details = details_from(el)
    return MeasureScore(name, _headline(details), {}, details)
