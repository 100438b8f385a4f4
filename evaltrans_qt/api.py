"""The public Python API (documented with tested examples in ``docs/api.md``).

Everything here is re-exported by ``evaltrans_qt`` (lazily: ``import evaltrans_qt``
loads neither numpy nor pandas). Thin glue over the engine, one way to do each
thing:

* :func:`score` -- lists of strings -> :class:`Score` objects, through
  :class:`evaltrans_qt.engine.run.scoring.Scorer` (what ``evaltrans score`` uses);
* :class:`Database` -- the engine's database plus ``from_lists``, ``load``,
  ``save``, ``demo`` and ``to_frame``;
* :func:`evaluate` -- the evaluation driver (``engine.driver.evaluate``, what
  ``evaltrans batch`` runs) -> :class:`Run` with pandas tables
  (``engine.tables.build_tables``, what the application shows);
* :func:`correlate`, :func:`significance` -- ``engine.correlation.correlate_run`` and
  ``engine.significance.run_significance`` as DataFrames.

Options are the fields of :class:`~evaltrans_qt.engine.options.EvalOptions`: the
long flags of ``evaltrans batch`` in snake_case (``--wer-ref-length-rule`` ->
``wer_ref_length_rule``), on top of a preset (thesis Table 8.3, or ``sacrebleu``).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, overload

from evaltrans_qt.engine.data.database import Database as _EngineDatabase
from evaltrans_qt.engine.data.database import Levels
from evaltrans_qt.engine.options import EvalOptions, options_from
from evaltrans_qt.errors import InputFormatError, OptionError, ScoreError

if TYPE_CHECKING:
    import pandas as pd

    from evaltrans_qt.engine.run.results import RunResult

PathLike = str | os.PathLike[str]
#: Preset of :func:`score` (sacreBLEU's defaults, as ``evaltrans score``).
SCORE_PRESET = "sacrebleu"
#: Preset of :func:`evaluate` (the engine's defaults, as ``evaltrans batch``).
EVALUATE_PRESET = "evaltrans default"


# --------------------------------------------------------------------------- options
def make_options(options: EvalOptions | None = None, preset: str | None = None,
                 **values: Any) -> EvalOptions:
    """``options`` (or the preset, default ``evaltrans default``) with ``values`` set; names
    are EvalOptions fields (the batch flags in snake_case), values as on the command line
    or typed. The same builder as the command line's ``--preset`` and option flags
    (:func:`evaltrans_qt.engine.options.options_from`)."""
    if options is None and not preset:
        preset = EVALUATE_PRESET
    return options_from(preset, options, **values)


# --------------------------------------------------------------------------- scores
@dataclass(frozen=True)
class Score:
    """One measure's score of one system, with its parts, sentences and signature.

    ``score`` is the number sacreBLEU prints (BLEU, chrF, TER and our error rates
    in percent, NIST as is); ``value`` the engine's unit (fractions);
    ``sentences`` one value per segment in the unit of ``score`` (same options,
    so ``signature`` holds for them too); ``parts`` the measure's named parts:
    its table columns, its scalar report elements and, for BLEU, sacreBLEU's
    ``precisions``, ``bp``, ``sys_len``, ``ref_len``, ``counts``, ``totals``.
    """

    measure: str
    name: str
    score: float
    value: float
    parts: Mapping[str, Any]
    sentences: tuple[float, ...]
    signature: str
    higher_is_better: bool
    verbose: str = field(default="", repr=False)

    def __float__(self) -> float:
        return float(self.score)

    def __str__(self) -> str:
        """sacreBLEU's line ``NAME|signature = score verbose``."""
        line = f"{self.name}|{self.signature} = {self.score:.2f}"
        return f"{line} {self.verbose}" if self.verbose else line


def _reference_rows(references: Sequence[Any], n: int) -> list[list[str | None]]:
    """Per-segment reference lists; a plain list of strings is one reference per segment."""
    if isinstance(references, str):
        raise OptionError("references: expected one list of references per segment (or one "
                          "string per segment), got one string")
    rows = [[r] if isinstance(r, str) or r is None else list(r) for r in references]
    if len(rows) != n:
        raise InputFormatError(f"{n} hypotheses but {len(rows)} reference segments "
                               "(references: one list per segment)")
    return rows


def _parts(measure: str, sc: Any) -> dict[str, Any]:
    """Columns and scalar details of an engine score (plus sacreBLEU's BLEU fields)."""
    parts: dict[str, Any] = {k: float(v) for k, v in sc.parts.details.items()
                             if isinstance(v, (int, float))}
    parts.update({k: float(v) for k, v in sc.parts.columns.items()})
    if measure == "bleu":
        ngrams = [p for _, p in sc.parts.details.get("n-gram", [])]
        parts.update(precisions=[100.0 * p["smoothed-precision"] for p in ngrams],
                     counts=[int(p["correct"]) for p in ngrams],
                     totals=[int(p["total"]) for p in ngrams],
                     bp=float(sc.parts.details["length-penalty"]),
                     sys_len=int(sc.stats[0]), ref_len=int(sc.stats[1]))
    return parts


@overload
def score(measures: str, hypotheses: Sequence[str],
          references: Sequence[Sequence[str | None]] | Sequence[str], *,
          options: EvalOptions | None = None, preset: str | None = None,
          **option_values: Any) -> Score: ...


@overload
def score(measures: Sequence[str], hypotheses: Sequence[str],
          references: Sequence[Sequence[str | None]] | Sequence[str], *,
          options: EvalOptions | None = None, preset: str | None = None,
          **option_values: Any) -> dict[str, Score]: ...


def score(measures: str | Sequence[str], hypotheses: Sequence[str],
          references: Sequence[Sequence[str | None]] | Sequence[str], *,
          options: EvalOptions | None = None, preset: str | None = None,
          **option_values: Any) -> Score | dict[str, Score]:
    """Score one system's ``hypotheses`` against ``references`` (one list per segment, any
    number each; ``None`` entries skipped; a list of strings means one reference each).

    ``measures``: a name (-> one :class:`Score`) or a list of names (-> ``{name: Score}``).
    Options start from ``options`` or ``preset`` (default ``sacrebleu``, as ``evaltrans
    score``) with ``option_values`` set by EvalOptions field name.
    """
    from evaltrans_qt.engine.run.scoring import UNBOUNDED, Scorer, get_measure
    single = isinstance(measures, str)
    names = [measures] if single else list(measures)
    if not names:
        raise OptionError("no measure given")
    if isinstance(hypotheses, str):
        raise OptionError("hypotheses: expected a list of strings, got one string")
    if options is None and preset is None:
        preset = SCORE_PRESET
    opts = make_options(options, preset, **option_values)
    keys = [get_measure(m).name for m in names]
    scorer = Scorer(_reference_rows(references, len(hypotheses)), list(dict.fromkeys(keys)),
                    opts, by_segment=True)
    stats = scorer.stats(hypotheses)
    out: dict[str, Score] = {}
    for name in dict.fromkeys(keys):
        percent = 1.0 if name in UNBOUNDED else 100.0
        measure = scorer.measures[name]
        sc = scorer.score_stats(name, stats[name].sum(axis=0))
        sentences = tuple(percent * float(measure.score(row).value) for row in stats[name])
        out[name] = Score(name, sc.name, float(sc.score), float(sc.value),
                          _parts(name, sc), sentences, sc.signature.format(),
                          bool(measure.higher_is_better), sc.verbose)
    return out[keys[0]] if single else {k: out[k] for k in keys}


def available_measures() -> dict[str, str]:
    """{measure name: long name} of every registered measure."""
    from evaltrans_qt.engine.measures import load_all
    return {name: cls.long_name for name, cls in load_all().items()}


# --------------------------------------------------------------------------- database
def _human_levels(name: str, values: Iterable[float], scale: tuple[float, float] | None
                  ) -> Levels:
    """A continuous class over ``scale`` (default: the values' floor..ceil)."""
    vals = list(values)
    if scale is not None:
        lo, hi = (float(x) for x in scale)
    elif vals:
        lo, hi = float(math.floor(min(vals))), float(math.ceil(max(vals)))
    else:
        lo = hi = 0.0
    if not (math.isfinite(lo) and math.isfinite(hi)) or lo > hi:
        raise ScoreError(f"score range of class '{name}' is not a finite interval: "
                         f"{lo:g}..{hi:g}")
    return Levels(name, count=0, gray=lo, green=hi, perfect=hi, firstvalid=lo,
                  continuous=True, minimum=lo, maximum=hi)


class Database(_EngineDatabase):
    """An EvalTrans database (``engine.database.Database``) with file and list helpers.

    Sources, their references and candidates and the human scores; see
    ``docs/api.md``. Every engine function accepts it.
    """

    @classmethod
    def from_lists(cls, sources: Sequence[str], references: Sequence[Any],
                   systems: Mapping[str, Sequence[str]] | None = None,
                   human: Mapping[str, Mapping[str, Sequence[float | None]]] | None = None,
                   *, scales: Mapping[str, tuple[float, float]] | None = None) -> Database:
        """A database from lists: ``sources[i]`` with ``references[i]`` (a list, or one
        string; named ``ref-1``, ``ref-2``... by position), ``systems={name: hypotheses}``,
        ``human={class: {system: [score or None per segment]}}``. Each human class is
        continuous over ``scales[class]`` (default: floor..ceil of its values). Segments
        are positional (``seg`` = 1-based index), as the file imports make them.
        """
        n = len(sources)
        if isinstance(sources, str) or any(not isinstance(s, str) for s in sources):
            raise OptionError("sources: expected a list of strings")
        refs = [[r] if isinstance(r, str) or r is None else list(r) for r in references]
        if len(refs) != n:
            raise InputFormatError(f"{n} sources but {len(refs)} reference segments")
        systems = dict(systems or {})
        for name, hyps in systems.items():
            if not isinstance(name, str) or not name:
                raise OptionError(f"system name {name!r}: expected a non-empty string")
            if isinstance(hyps, str) or len(hyps) != n:
                raise InputFormatError(f"system '{name}' has "
                                       f"{'one string' if isinstance(hyps, str) else len(hyps)}"
                                       f" hypotheses for {n} sources")
        ref_names = {f"ref-{k + 1}" for row in refs for k in range(len(row))}
        clash = ref_names & set(systems)
        if clash:
            raise OptionError(f"system name(s) {', '.join(sorted(clash))} are reference names")
        human = dict(human or {})
        levels = {}
        for cls_name, per_system in human.items():
            for system, vals in per_system.items():
                if system not in systems:
                    raise ScoreError(f"human class '{cls_name}': unknown system '{system}'")
                if isinstance(vals, str) or len(vals) != n:
                    raise ScoreError(f"human class '{cls_name}', system '{system}': expected "
                                     f"{n} scores (None for unscored)")
            given = [float(v) for vals in per_system.values() for v in vals if v is not None]
            levels[cls_name] = _human_levels(cls_name, given, (scales or {}).get(cls_name))
        db = cls()
        rows = [db.add_source(text, None, str(i + 1)) for i, text in enumerate(sources)]
        for src, row in zip(rows, refs):
            for k, text in enumerate(row):
                if text is not None:
                    db.add_target(src, str(text), f"ref-{k + 1}", reference=True)
        for lv in levels.values():
            db.add_class(lv)
        for name, hyps in systems.items():
            targets = [db.add_target(src, str(h), name) for src, h in zip(rows, hyps)]
            for cls_name, per_system in human.items():
                for t, v in zip(targets, per_system.get(name, ())):
                    if v is not None:
                        levels[cls_name].validate(float(v))
                        t.set_score(cls_name, float(v))
        return db

    @classmethod
    def load(cls, path: PathLike) -> Database:
        """Read an EvalTrans database file (``.etdb.xml``)."""
        from evaltrans_qt.io.etdb import load_database
        db = load_database(path)
        db.__class__ = cls               # same state, this class' helpers
        return db  # type: ignore[return-value]

    @classmethod
    def demo(cls) -> Database:
        """The built-in demo database (``resources/demo.etdb.xml``: 4 systems with human
        scores)."""
        from evaltrans_qt.io.etdb import demo_database_path
        return cls.load(demo_database_path())

    def save(self, path: PathLike) -> None:
        """Write the database (validated, atomically; the old file survives a failure)."""
        from evaltrans_qt.io.etdb import save_database
        save_database(self, path)

    def to_frame(self, how: str = "mean") -> pd.DataFrame:
        """One row per candidate: ``source`` (index, 0-based), ``seg``, ``system``,
        ``text``, then one column per human class (``how``: mean or median over judges;
        NaN when unscored; extrapolated estimates included, as the result tables)."""
        import pandas as pd

        from evaltrans_qt.engine.human.scores import target_value, valid_floor
        classes = self.human_classes
        floors = {c: valid_floor(self, c) for c in classes}
        rows = []
        for i, src in enumerate(self.sources):
            for t in self.candidates(src):
                row: dict[str, Any] = {"source": i, "seg": src.seg or "", "system": t.system or "",
                                       "text": t.text}
                for c in classes:
                    row[c] = target_value(t, c, how, include_extrapolated=True, floor=floors[c])
                rows.append(row)
        return pd.DataFrame(rows, columns=["source", "seg", "system", "text", *classes])


# --------------------------------------------------------------------------- runs
class Run:
    """An evaluation run: ``systems`` (one row per system) and ``sentences`` (one row per
    system and segment: ``system``, ``segment`` = source index, ``seg``, ``candidate``,
    every measure column, ``human:<class>``) as pandas DataFrames; ``signatures`` per
    measure; ``result`` the engine's :class:`~evaltrans_qt.engine.run.results.RunResult`."""

    def __init__(self, result: RunResult, database: _EngineDatabase) -> None:
        from evaltrans_qt.engine.run.tables import build_tables
        self.result = result
        self.database = database
        tables = build_tables(result, database)
        self.systems: pd.DataFrame = tables.systems
        sentences = tables.sentences
        sentences.insert(2, "seg", [database.sources[i].seg or str(i + 1)
                                    for i in sentences["segment"]])
        self.sentences: pd.DataFrame = sentences
        self.measures: tuple[str, ...] = tuple(result.measures)
        self.signatures: dict[str, str] = result.signatures()

    def __repr__(self) -> str:
        return f"<Run {len(self.result.systems)} systems x {', '.join(self.measures)}>"

    def correlate(self, human: str, **kwargs: Any) -> pd.DataFrame:
        """:func:`correlate` of this run."""
        return correlate(self, human, **kwargs)

    def significance(self, measure: str, **kwargs: Any) -> pd.DataFrame:
        """:func:`significance` of this run."""
        return significance(self, measure, **kwargs)

    def write_sentences(self, path: PathLike) -> None:
        """Write the per-sentence values as TSV or JSON Lines (as ``--sentences``)."""
        from evaltrans_qt.io.sentences import run_sentence_rows, write_sentences
        columns, rows = run_sentence_rows(self.result, self.database)
        write_sentences(path, rows, columns, self.signatures)


def evaluate(db: _EngineDatabase, measures: str | Sequence[str] | None = None,
             options: EvalOptions | None = None, *, systems: Sequence[str] | None = None,
             preset: str | None = None, jobs: int | None = None, **option_values: Any) -> Run:
    """Evaluate the systems of ``db`` (default: all) with ``measures`` (default: every
    enabled one) as ``evaltrans batch`` does. Options start from ``options`` or ``preset``
    (default ``evaltrans default``); ``jobs``: worker processes (1 = in-process; default
    chosen by size)."""
    from evaltrans_qt.engine.run.driver import evaluate as run_evaluation
    from evaltrans_qt.engine.run.executors.local import LocalProcessExecutor, SerialExecutor
    if not isinstance(db, _EngineDatabase):
        raise OptionError(f"evaluate: expected a Database, got {type(db).__name__}")
    opts = make_options(options, preset, **option_values)
    names = [measures] if isinstance(measures, str) else measures
    if jobs is not None and jobs < 1:
        raise OptionError(f"jobs must be at least 1, not {jobs}")
    executor = None if jobs is None else (SerialExecutor() if jobs == 1
                                          else LocalProcessExecutor(jobs))
    result = run_evaluation(db, opts, names, systems, executor=executor)
    return Run(result, db)


def _as_run(data: Run | _EngineDatabase, measures: Sequence[str] | None,
            options: EvalOptions | None) -> Run:
    if isinstance(data, Run):
        return data
    if isinstance(data, _EngineDatabase):
        return evaluate(data, measures, options)
    raise OptionError(f"expected a Run or a Database, got {type(data).__name__}")


def correlate(data: Run | _EngineDatabase, human: str, *, level: str = "sentence",
              measures: Sequence[str] | None = None, options: EvalOptions | None = None,
              samples: int = 1000, seed: int = 0, normalize: bool = False,
              how: str = "mean") -> pd.DataFrame:
    """Correlation of every measure with human class ``human`` (``evaltrans correlate``):
    one row per measure with ``n``, Pearson r, Spearman rho, Kendall tau (tau_a, thesis
    eq. 6.23) and tau_b, tau-bar (sentence level, eq. 6.24), each with its 95% bootstrap
    interval (``*_low``, ``*_high``; ``samples`` resamples of source sentences). A
    Database is evaluated first (``measures``, ``options``)."""
    import pandas as pd

    from evaltrans_qt.engine.metaeval.correlation import correlate_run
    run = _as_run(data, measures, options)
    rows = correlate_run(run.database, run.result, human, level=level,
                         measures=None if isinstance(data, _EngineDatabase) else measures,
                         n_boot=samples, seed=seed, normalize=normalize, how=how)
    out = []
    for c in rows:
        row: dict[str, Any] = {"measure": c.measure, "human": c.human, "level": c.level,
                               "n": c.n}
        for key in ("pearson", "spearman", "kendall", "kendall_b", "tau_bar"):
            row[key] = getattr(c, key)
            lo, hi = getattr(c, f"{key}_ci")
            row[f"{key}_low"], row[f"{key}_high"] = lo, hi
        row["signature"] = run.signatures.get(c.measure, "")
        out.append(row)
    return pd.DataFrame(out)


def significance(run: Run, measure: str, *, method: str = "bootstrap",
                 samples: int | None = None, seed: int | str | None = "env",
                 systems: Sequence[str] | None = None) -> pd.DataFrame:
    """p-values between every pair of systems on ``measure`` (``evaltrans significance``;
    sacreBLEU's paired bootstrap or approximate randomisation, ``method`` =
    ``bootstrap``, ``randomization`` or ``bootstrap-centred``): a square DataFrame indexed
    by system; ``.attrs`` holds each system's ``scores`` (engine units), the ``method``,
    ``samples`` and ``seed`` used."""
    import pandas as pd

    from evaltrans_qt.engine.metaeval.significance import run_significance
    if not isinstance(run, Run):
        raise OptionError(f"significance: expected a Run (from evaluate), got "
                          f"{type(run).__name__}")
    res = run_significance(run.result, measure, systems=systems, method=method,
                           samples=samples, seed=seed)
    frame = pd.DataFrame(res.p_values, index=list(res.systems), columns=list(res.systems))
    frame.attrs.update(measure=measure, method=res.method, samples=res.samples, seed=res.seed,
                       scores=dict(zip(res.systems, (float(v) for v in res.scores))),
                       signature=run.signatures.get(measure, ""))
    return frame


__all__ = ["Database", "EvalOptions", "Run", "Score", "available_measures", "correlate",
           "evaluate", "make_options", "score", "significance"]
