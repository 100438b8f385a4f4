"""mt-metrics-eval test-set directories (its README, "File organization and naming
convention", "Specification"): import one language pair into a database, export a
database (with our measures as metric scores) back.

Layout, relative to the test-set directory (e.g. ``wmt21``), for ``LP`` = ``SRC-TGT``:
``sources/LP.txt``; ``documents/LP.docs`` (lines ``DOMAIN DOCNAME``);
``references/LP.NAME.txt``; ``system-outputs/LP/NAME.txt``;
``human-scores/LP.NAME.LEVEL.score`` (``[DOMAIN] SYSNAME SCORE``, ``None`` = missing);
``metric-scores/LP/NAME-REF.LEVEL.score``. Sources, references and system outputs may
also be JSON Lines (``.jsonl``) and ``metadata/LP/NAME.jsonl`` holds per-translation
metadata (``io/mtme_jsonl.py``). Human score versions are separate names -- WMT25's
``esa-human1`` and ``esa-human2`` are two classes of those names -- exported back under
them.

How it maps (positional sources):

* line i of the source file is source ``seg = i`` (1-based), ``doc`` = its document
  name, the domain kept as the source attribute ``domain``;
* each reference is a reference target with system id NAME; a reference copied into
  ``system-outputs`` (scored as a system, same name and text) stays one target: the
  root attribute ``mtme-refs-as-systems`` lists those names so the export copies them
  back; system outputs are candidates of system NAME;
* a ``seg`` human-score file becomes the continuous human class NAME (the k-th line of
  a system's block scores its k-th segment; ``None``: no score); ``sys``, ``doc`` and
  ``domain`` files are kept verbatim as ``<human-table>``\\ s (``io/scores.py``);
* every metric file becomes an external metric ``NAME-REF`` (``io/scores.py``; seg and
  sys files of one NAME-REF are one metric; direction from the name).

The export writes the same files: blocks and lines in sorted system order, numbers
in Python's shortest round-trip form (``repr``), ``None`` where a scored system lacks a
segment's score. Our measures of a run become ``metric-scores/LP/MEASURE-all.LEVEL.score``
(all references used). A directory written by this export imports and exports back
byte for byte. Names become file names through ``io/names.py``: ordinary names
(letters, digits, ``-``, ``.``, ``_``) are kept, any other character is percent-encoded
(``A/B`` -> ``A%2FB``; the import reads that file as the system ``A%2FB``), so no name
writes outside the export folder.

``--append`` merges by identity: a line is the source at (doc, seg), a file's text the
target of its system there (kept when equal, refused naming file and line when not),
and scores go to the segments of the lines that name them.
"""

from __future__ import annotations

import math
from pathlib import Path

from evaltrans_qt.engine.data.database import Database, Levels, Target, check_id, describe_key
from evaltrans_qt.engine.measures.external import ExternalMetric, external_metrics, guess_direction
from evaltrans_qt.errors import InputFormatError, ScoreError
from evaltrans_qt.io.mtme_jsonl import METADATA_ATTR, read_lines, read_metadata, text_files
from evaltrans_qt.io.names import file_name_part, file_name_parts
from evaltrans_qt.io.plaintext import (
    PathLike,
    add_line_targets,
    check_class_name,
    check_line_targets,
    check_same_length,
    check_segments,
    read_import_lines,
)
from evaltrans_qt.io.scores import human_tables, parse_mtme_name, read_mtme_lines, score_number
from evaltrans_qt.io.wmt import score_levels

LEVELS = ("seg", "doc", "domain", "sys")
REFS_AS_SYSTEMS = "mtme-refs-as-systems"
LP_ATTR = "mtme-lp"


def _name_after(path: Path, prefix: str, suffix: str) -> str:
    return path.name[len(prefix):len(path.name) - len(suffix)]


def import_mtme(directory: PathLike, lp: str, db: Database | None = None) -> Database:
    """Read the ``lp`` EvalSet of an mt-metrics-eval test-set directory (module doc);
    everything is read and checked before the database is built."""
    root = Path(directory)
    src_file = root / "sources" / f"{lp}.txt"
    if not src_file.is_file() and (root / "sources" / f"{lp}.jsonl").is_file():
        src_file = root / "sources" / f"{lp}.jsonl"
    if not src_file.is_file():
        raise InputFormatError(f"no sources/{lp}.txt or .jsonl here (an mt-metrics-eval "
                               "test-set directory holds sources/, references/, "
                               "system-outputs/, ...)", root)
    src = read_lines(src_file, "source")
    n = len(src)
    docs_file = root / "documents" / f"{lp}.docs"
    docs: list[tuple[str, str]] = []
    if docs_file.is_file():
        for no, line in enumerate(read_import_lines(docs_file), 1):
            parts = line.split()
            if len(parts) != 2:
                raise InputFormatError("expected DOMAIN DOCNAME", docs_file, no)
            docs.append((parts[0], parts[1]))
        check_same_length(docs_file, docs, n, f"source file {src_file.name}")
    refs = []
    for f in text_files(root / "references", f"{lp}.*"):
        name = _name_after(f, f"{lp}.", f.suffix)
        check_id(name, "reference name (from the file name)", f)
        lines = read_lines(f, "target")
        check_same_length(f, lines, n, f"source file {src_file.name}")
        refs.append((name, f, lines))
    ref_text = {name: lines for name, _, lines in refs}
    systems, refs_as_systems = [], []
    for f in text_files(root / "system-outputs" / lp, "*"):
        name = f.name[:-len(f.suffix)]
        check_id(name, "system name (from the file name)", f)
        lines = read_lines(f, "hypothesis")
        check_same_length(f, lines, n, f"source file {src_file.name}")
        if name in ref_text:
            if lines != ref_text[name]:
                raise InputFormatError(f"system output '{name}' has a reference's name but "
                                       "other text", f)
            refs_as_systems.append(name)
        else:
            systems.append((name, f, lines))
    if not refs and not systems:
        raise InputFormatError(f"no references/{lp}.*.txt/.jsonl and no "
                               f"system-outputs/{lp}/*.txt/.jsonl", root)
    known = set(ref_text) | {s for s, _, _ in systems}
    metadata = read_metadata(root, lp, n, known)
    human_seg: dict[str, dict[str, list[float]]] = {}
    human_files: dict[str, Path] = {}
    tables: dict[tuple[str, str], list[str]] = {}
    for f in sorted((root / "human-scores").glob(f"{lp}.*.score")):
        stem = _name_after(f, f"{lp}.", ".score")
        name, _, level = stem.rpartition(".")
        if level not in LEVELS or not name:
            raise InputFormatError("expected human-scores/LP.NAME.LEVEL.score with LEVEL one of "
                                   + ", ".join(LEVELS), f)
        if level != "seg":
            tables[(name, level)] = read_import_lines(f)
            continue
        check_class_name(db, name, f)
        check_id(name, "class name (from the file name)", f)
        human_files[name] = f
        human_seg[name] = _seg_blocks(f, n, known, allow_none=True)
    metrics: dict[str, ExternalMetric] = {}
    for f in sorted((root / "metric-scores" / lp).glob("*.score")):
        base, ref, level = parse_mtme_name(f)
        if level not in ("seg", "sys"):
            continue                       # doc/domain metric scores: not a measure of ours
        check_id(base, "metric name (from the file name)", f)
        key = f"{base}-{ref}"
        m = metrics.setdefault(key, ExternalMetric(key, guess_direction(base), file="",
                                                   fmt="", reference=ref))
        part = ExternalMetric(key, m.higher_is_better, file=str(f), fmt=f"mtme-{level}",
                              reference=ref)
        if level == "sys":
            for no, system, text in read_mtme_lines(f):
                if system not in known:
                    raise InputFormatError(f"unknown system '{system}'", f, no)
                v = score_number(text, f, no)
                if math.isfinite(v):
                    part.systems[system] = v
        else:
            for system, vals in _seg_blocks(f, n, known, allow_none=True).items():
                part.segments[system] = {i: v for i, v in enumerate(vals) if math.isfinite(v)}
        m.merge(part)

    check_segments(n * (1 + len(refs) + len(systems)), root)
    db = db if db is not None else Database()
    for cls, f in human_files.items():
        check_class_name(db, cls, f)
    keys = [(docs[i][1] if docs else None, str(i + 1)) for i in range(n)]
    for i, (text, (doc, seg)) in enumerate(zip(src, keys)):
        old = db.source_by_key(doc, seg)
        if old is not None and old.text != text:
            raise InputFormatError(f"{describe_key((doc or '', seg))} is {old.text[:50]!r} in "
                                   f"the database, not {text[:50]!r}", src_file, i + 1)
    for name, f, lines in refs:
        check_line_targets(db, keys, lines, name, True, f)
    for name, f, lines in systems:
        check_line_targets(db, keys, lines, name, False, f)
    sources = []
    for i, text in enumerate(src):
        domain, doc = docs[i] if docs else (None, None)
        s = db.add_source(text, doc, str(i + 1))
        if domain is not None:
            s.extra_attrs["domain"] = domain
        sources.append(s)
    targets: dict[str, list[Target]] = {}
    for name, f, lines in refs:
        targets[name] = add_line_targets(db, sources, lines, name, reference=True, path=f)
    for name, f, lines in systems:
        targets[name] = add_line_targets(db, sources, lines, name, path=f)
    for name, objs in metadata.items():
        for t, obj in zip(targets[name], objs):
            t.extra_attrs[METADATA_ATTR] = obj
    for cls, blocks in human_seg.items():
        values = [v for vals in blocks.values() for v in vals if math.isfinite(v)]
        lv: Levels = db.level(cls) if db.has_class(cls) else score_levels(cls, values)
        for v in values:
            try:
                lv.validate(v)
            except ScoreError as exc:
                f = human_files[cls]
                raise ScoreError(exc.problem, f, _line_of_value(f, v)) from None
        if not db.has_class(cls):
            db.add_class(lv)
        for system, vals in blocks.items():
            for t, v in zip(targets[system], vals):
                if math.isfinite(v):
                    t.set_score(cls, v)
    # segment scores are keyed by source index: line i of this file is the source it
    # merged with (an append adds to, never shifts, the database's sources)
    index = {id(src_): k for k, src_ in enumerate(db.sources)}
    rows = [index[id(x)] for x in sources]
    ext = external_metrics(db)
    for key, m in metrics.items():
        m.segments = {s: {rows[i]: v for i, v in vals.items()} for s, vals in m.segments.items()}
        if key in ext:
            ext[key].merge(m)
        else:
            ext[key] = m
    human_tables(db).update(tables)
    db.extra_attrs[LP_ATTR] = lp
    if refs_as_systems:
        old_names = db.extra_attrs.get(REFS_AS_SYSTEMS, "").split()
        db.extra_attrs[REFS_AS_SYSTEMS] = " ".join(dict.fromkeys(old_names + refs_as_systems))
    return db


def _line_of_value(path: Path, value: float) -> int | None:
    """The first line of mt-metrics-eval score file ``path`` whose score is ``value``."""
    for no, _system, text in read_mtme_lines(path):
        if text != "None" and score_number(text, path, no) == value:
            return no
    return None


def _seg_blocks(path: Path, n: int, known: set[str], allow_none: bool) -> dict[str, list[float]]:
    """{system: n scores in segment order} of a seg-level file (NaN for ``None``)."""
    out: dict[str, list[float]] = {}
    last: dict[str, int] = {}          # each system's last line, for a count that is short
    for no, system, text in read_mtme_lines(path):
        if system not in known:
            raise InputFormatError(f"unknown system '{system}' (no system output or reference "
                                   "of that name)", path, no)
        if text == "None" and not allow_none:
            raise InputFormatError("None is not allowed here", path, no)
        vals = out.setdefault(system, [])
        if len(vals) >= n:
            raise InputFormatError(f"more than {n} segment scores for {system}", path, no)
        vals.append(score_number(text, path, no))
        last[system] = no
    for system, vals in out.items():
        if len(vals) != n:
            raise InputFormatError(f"{system} has {len(vals)} segment scores (the last on this "
                                   f"line), the source {n} segments", path, last[system])
    return out


# ------------------------------------------------------------------ export
def _fmt(v: float) -> str:
    return "None" if v is None or not math.isfinite(v) else repr(float(v))


def mqm_tables(db: Database, systems: list[str], n: int) -> dict[str, list[str]]:
    """``seg`` and ``sys`` lines of the MQM scores of ``db``'s error spans (mt-metrics-eval's
    ``score_mqm.py`` values: ``None`` where a segment was not annotated; a system's score
    the mean over its annotated segments); empty without spans."""
    from evaltrans_qt.engine.human.spans.scores import has_spans, mqm_scores, mqm_system_scores
    if not has_spans(db, "mqm"):
        return {}
    seg = mqm_scores(db)
    sys_scores = mqm_system_scores(db)
    lines = [f"{name} {_fmt(v) if (v := seg.get((i, name, 0))) is not None else 'None'}"
             for name in systems if name in sys_scores for i in range(n)]
    return {"seg": lines, "sys": [f"{name} {_fmt(sys_scores[name])}" for name in systems
                                  if name in sys_scores]}


def export_mtme(db: Database, directory: PathLike, lp: str | None = None, run=None,
                measures: list[str] | None = None) -> list[Path]:
    """Write ``db`` as the ``lp`` EvalSet of an mt-metrics-eval directory (module doc);
    ``run`` adds its measures (default all of them) as metric scores. Returns the files.

    Names from the database (language pair, systems, classes, metrics) become file names
    only through ``io/names.py`` (no separators, no ``..``: nothing is written outside
    ``directory``); all files are written together (``io/atomic.py``
    :func:`atomic_write_files`): a failure leaves an earlier export as it was."""
    lp = lp or db.extra_attrs.get(LP_ATTR)
    if not lp:
        raise InputFormatError("give the language pair (--lp SRC-TGT)")
    root = Path(directory)
    files: dict[Path, list[str]] = {}
    safe = _SafeNames()
    lp_part = safe.part(lp)

    def put(rel: str, lines: list[str]) -> None:
        files[root / rel] = lines

    is_ref = db.reference_test()
    srcs = db.sources
    put(f"sources/{lp_part}.txt", [s.text for s in srcs])
    # always written: mt-metrics-eval's EvalSet reads it (a test set without documents is
    # one document '-')
    put(f"documents/{lp_part}.docs",
        [f"{s.extra_attrs.get('domain', 'none')} {s.doc or '-'}" for s in srcs])
    by_sys: dict[str, dict[int, Target]] = {}
    refs: set[str] = set()
    for i, s in enumerate(srcs):
        for t in s.targets:
            name = t.system or ""
            by_sys.setdefault(name, {})[i] = t
            if is_ref(t):
                refs.add(name)
    as_systems = set(db.extra_attrs.get(REFS_AS_SYSTEMS, "").split())
    sys_part = file_name_parts(by_sys)
    for name in sorted(by_sys):
        texts = [getattr(by_sys[name].get(i), "text", "") for i in range(len(srcs))]
        if name in refs:
            put(f"references/{lp_part}.{sys_part[name]}.txt", texts)
        if name not in refs or name in as_systems:
            put(f"system-outputs/{lp_part}/{sys_part[name]}.txt", texts)
        meta = [by_sys[name][i].extra_attrs.get(METADATA_ATTR) if i in by_sys[name] else None
                for i in range(len(srcs))]
        if any(meta):
            put(f"metadata/{lp_part}/{sys_part[name]}.jsonl", [m or "{}" for m in meta])
    marking = db.reference_levels.name if db.reference_levels is not None else None
    for cls in db.human_classes:
        if cls == marking:
            continue
        lines: list[str] = []
        for name in sorted(by_sys):
            vals = [by_sys[name][i].value(cls, include_extrapolated=False)
                    if i in by_sys[name] else None for i in range(len(srcs))]
            if any(v is not None for v in vals):
                lines.extend(f"{name} {_fmt(v) if v is not None else 'None'}" for v in vals)
        if lines:
            put(f"human-scores/{lp_part}.{safe.part(cls)}.seg.score", lines)
    for (name, level), lines in human_tables(db).items():
        put(f"human-scores/{lp_part}.{safe.part(name)}.{safe.part(level)}.score", list(lines))
    if not db.has_class("mqm"):                   # MQM from error spans (engine/human/spans)
        for level, lines in mqm_tables(db, sorted(by_sys), len(srcs)).items():
            put(f"human-scores/{lp_part}.mqm.{level}.score", lines)
    if db.has_class("esa") and ("esa", "sys") not in human_tables(db):   # ESA: mean score
        from evaltrans_qt.engine.human.spans.scores import esa_system_scores
        esa = esa_system_scores(db)
        put(f"human-scores/{lp_part}.esa.sys.score",
            [f"{name} {_fmt(esa[name])}" for name in sorted(by_sys) if name in esa])
    for key, metric in external_metrics(db).items():
        stem = key if metric.reference else f"{key}-all"
        if metric.segments:
            lines = []
            for name in sorted(metric.segments):
                seg_vals = metric.segments[name]
                lines.extend(f"{name} {_fmt(seg_vals.get(i, math.nan))}"
                             for i in range(len(srcs)))
            put(f"metric-scores/{lp_part}/{safe.part(stem)}.seg.score", lines)
        if metric.systems:
            put(f"metric-scores/{lp_part}/{safe.part(stem)}.sys.score",
                [f"{name} {_fmt(metric.systems[name])}" for name in sorted(metric.systems)])
    if run is not None:
        from evaltrans_qt.engine.measures.external import external_names
        ext = set(external_names(run))
        for m in measures or [x for x in run.measures if x not in ext]:
            meas = run.measure(m)
            seg_lines: list[str] = []
            sys_lines: list[str] = []
            for name in sorted(run.systems):
                sr = run.systems[name]
                run_vals = dict(zip(sr.segments, meas.score_values(sr.stats[m]))) \
                    if len(sr.stats.get(m, ())) else {}
                seg_lines.extend(f"{name} {_fmt(run_vals.get(i, math.nan))}"
                                 for i in range(len(srcs)))
                sys_lines.append(f"{name} {_fmt(sr.scores[m].value)}")
            put(f"metric-scores/{lp_part}/{safe.part(m + '-all')}.seg.score", seg_lines)
            put(f"metric-scores/{lp_part}/{safe.part(m + '-all')}.sys.score", sys_lines)
    return _write_all(files)


class _SafeNames:
    """File-name parts of names (``io/names.py``); two names whose parts differ only in
    case get the hashed parts :func:`file_name_parts` gives them."""

    def __init__(self) -> None:
        self._parts: dict[str, str] = {}

    def part(self, name: str) -> str:
        p = self._parts.get(name)
        if p is None:
            p = file_name_part(name)
            clash = [n for n, q in self._parts.items() if q.casefold() == p.casefold()]
            if clash:
                p = file_name_parts([name, *clash])[name]
            self._parts[name] = p
        return p


def _write_all(files: dict[Path, list[str]]) -> list[Path]:
    from evaltrans_qt.io.atomic import atomic_write_files
    for path in files:
        path.parent.mkdir(parents=True, exist_ok=True)
    return atomic_write_files((path, "".join(f"{x}\n" for x in lines).encode("utf-8"))
                              for path, lines in files.items())
