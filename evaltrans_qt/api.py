"""The public Python API (documented with tested examples in ``docs/api.md``).

Everything here is re-exported by ``evaltrans_qt`` (lazily: ``import evaltrans_qt``
loads neither numpy nor pandas). Thin glue over the engine, one way to do each
thing:

* :func:`measure` -- a measure with its options (:class:`Metric`), sacreBLEU's object
  API: ``.corpus_score(hypotheses, reference_streams)`` and
  ``.sentence_score(hypothesis, references)`` give the one score type,
  :class:`evaltrans_qt.engine.run.scoring.Score` (what ``evaltrans score`` prints);
  :func:`score` is a shortcut over it for references given per segment;
* :class:`Database` -- the engine's database plus ``from_lists``, ``load``,
  ``save``, ``demo`` and ``to_frame``;
* :func:`evaluate` -- the evaluation driver (``engine.run.driver.evaluate``, what
  ``evaltrans batch`` runs) -> :class:`Run` with pandas tables
  (``engine.run.tables.build_tables``, what the application shows);
* :func:`correlate`, :func:`significance` -- ``engine.metaeval.correlation.correlate_run``
  and ``engine.metaeval.significance.run_significance`` as DataFrames;
  :func:`meta_evaluate` -- mt-metrics-eval's statistics
  (``engine.metaeval.metrics_task.metrics_table``, ``evaltrans correlate --stats``). The
  system level of both follows ``convention`` (``engine/metaeval/conventions.py``;
  default the command line's), named in each row.

Options are the fields of :class:`~evaltrans_qt.engine.options.EvalOptions`: the
long flags of ``evaltrans batch`` in snake_case (``--wer-ref-length-rule`` ->
``wer_ref_length_rule``), on top of a preset (thesis Table 8.3, or ``sacrebleu``).
"""

from __future__ import annotations

import functools
import inspect
import numbers
import os
import re
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, overload

from evaltrans_qt.engine.data.database import Database as _EngineDatabase
from evaltrans_qt.engine.data.schemes import continuous
from evaltrans_qt.engine.options import EvalOptions, options_from
from evaltrans_qt.errors import InputFormatError, OptionError, ScoreError

if TYPE_CHECKING:
    import pandas as pd

    from evaltrans_qt.engine.analysis.pairwise import AnalysisResult
    from evaltrans_qt.engine.run.results import RunResult
    from evaltrans_qt.engine.run.scoring import Score, Scorer

PathLike = str | os.PathLike[str]
#: Preset of :func:`measure` and :func:`score` (sacreBLEU's defaults, as ``evaltrans score``).
SCORE_PRESET = "sacrebleu"
#: Preset of :func:`evaluate` (the engine's defaults, as ``evaltrans batch``).
EVALUATE_PRESET = "evaltrans default"


# --------------------------------------------------------------------------- argument checks
_HINTS: dict[Callable, dict[str, Any]] = {}


def _hints(fn: Callable) -> dict[str, Any]:
    """The parameter annotations of ``fn``, evaluated (once); a name that cannot be evaluated
    here (a type imported only for type checkers) is left out, so not checked."""
    if fn not in _HINTS:
        hints: dict[str, Any] = {}
        for name, ann in getattr(fn, "__annotations__", {}).items():
            if name == "return":
                continue
            try:
                hints[name] = eval(ann, fn.__globals__) if isinstance(ann, str) else ann
            except Exception:
                continue
        _HINTS[fn] = hints
    return _HINTS[fn]


def _list_like(value: object) -> bool:
    """A sequence: a list or tuple, or a numpy array or pandas Series (which are not
    registered as ``Sequence``) -- not a mapping."""
    return isinstance(value, Sequence) or (not isinstance(value, Mapping) and all(
        hasattr(value, a) for a in ("__len__", "__getitem__", "__iter__")))


def _fits(value: object, hint: Any) -> bool:
    """Whether ``value`` is of the annotated type ``hint`` (the forms this module uses:
    unions, None, str/int/float/bool, classes, ``Sequence[...]``, ``Mapping[...]``,
    ``tuple[...]``, ``os.PathLike``; anything else passes). A string is not a sequence of
    strings here, a bool not a number."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Any or hint is object:
        return True
    if origin in (typing.Union, types.UnionType):
        return any(_fits(value, a) for a in args)
    if hint is None or hint is type(None):
        return value is None
    if hint is float:                  # numpy's numbers too
        return isinstance(value, numbers.Real) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, numbers.Integral) and not isinstance(value, bool)
    if origin is os.PathLike or hint is os.PathLike:
        return isinstance(value, os.PathLike)
    if origin in (Sequence, list, tuple):
        if isinstance(value, (str, bytes)) or not _list_like(value):
            return False
        value = typing.cast(Sequence, value)
        if origin is tuple and args and args[-1] is not Ellipsis:
            return len(value) == len(args) and all(_fits(v, a) for v, a in zip(value, args))
        return not args or all(_fits(v, args[0]) for v in value)
    if origin in (Mapping, dict):
        if not isinstance(value, Mapping):
            return False
        key, val = args if len(args) == 2 else (Any, Any)
        return all(_fits(k, key) and _fits(v, val) for k, v in value.items())
    if isinstance(hint, type):
        return isinstance(value, hint)
    return True


def _type_name(hint: Any) -> str:
    """An annotation in words: ``a Database``, ``a string or None``, ``a list (each a
    string)``."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return " or ".join(dict.fromkeys(_type_name(a) for a in args))
    words = {type(None): "None", str: "a string", int: "a whole number", float: "a number",
             bool: "True or False"}
    if hint in words:
        return words[hint]
    if origin is os.PathLike or hint is os.PathLike:
        return "a path"
    if origin in (Sequence, list):
        return f"a list (each {_type_name(args[0])})" if args else "a list"
    if origin in (Mapping, dict):
        return "a dict" + (f" ({_type_name(args[0])} -> {_type_name(args[1])})"
                           if len(args) == 2 else "")
    if origin is tuple:
        return "a tuple"
    name = getattr(hint, "__name__", None) or re.sub(r"\b(?:[A-Za-z_]\w*\.)+", "", str(hint))
    return f"{'an' if name[:1] in 'AEIOU' else 'a'} {name}"


def _value_name(value: object) -> str:
    """What was given, briefly: ``one string 'a b'``, ``int 3``, ``list [1, 2]``."""
    shown = repr(value)
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    kind = "one string" if isinstance(value, str) else type(value).__name__
    return shown if value is None else f"{kind} {shown}"


F = typing.TypeVar("F", bound=Callable[..., Any])


def _checked(fn: F) -> F:
    """Check the arguments of a public function against its annotations before it runs: a
    wrong type is an :class:`OptionError` naming the function and the argument (a call that
    does not fit the signature stays Python's :class:`TypeError`). ``**option_values`` are
    checked by the options builder."""
    sig = inspect.signature(fn)

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        bound = sig.bind(*args, **kwargs)
        hints = _hints(fn)
        for name, value in bound.arguments.items():
            hint = hints.get(name)
            if hint is None or sig.parameters[name].kind in (inspect.Parameter.VAR_KEYWORD,
                                                             inspect.Parameter.VAR_POSITIONAL):
                continue
            if hint is PathLike and isinstance(value, str) and (not value or "\0" in value):
                raise OptionError(f"{fn.__qualname__}: {name}: "
                                  + ("empty file name" if not value else
                                     "a file name cannot contain a NUL character"))
            if not _fits(value, hint):
                raise OptionError(f"{fn.__qualname__}: {name}: expected {_type_name(hint)}, "
                                  f"got {_value_name(value)}")
        return fn(*args, **kwargs)

    return typing.cast(F, wrapper)


# --------------------------------------------------------------------------- options
@_checked
def make_options(options: EvalOptions | None = None, preset: str | None = None,
                 **values: Any) -> EvalOptions:
    """``options`` (or the preset, default ``evaltrans default``) with ``values`` set; names
    are EvalOptions fields (the batch flags in snake_case), values as on the command line
    or typed. The same builder as the command line's ``--preset`` and option flags
    (:func:`evaltrans_qt.engine.options.options_from`)."""
    if options is None and not preset:
        preset = EVALUATE_PRESET
    return options_from(preset, options, **values)


def _check_names(value: object, what: str, *, optional: bool = True) -> list[str] | None:
    """A name or a list of names (``measures=``, ``systems=``) as a list; :class:`OptionError`
    for anything else (a number, a list holding one)."""
    if value is None and optional:
        return None
    if isinstance(value, str):
        return [value]
    if isinstance(value, bytes) or not _list_like(value) \
            or any(not isinstance(x, str) for x in typing.cast(Sequence, value)):
        raise OptionError(f"{what}: expected a name or a list of names, got {value!r}"[:200])
    return list(typing.cast(Sequence, value))


def _check_count(value: object, what: str, *, zero: bool = True) -> None:
    """A whole number >= 0 (>= 1 unless ``zero``); :class:`OptionError` otherwise."""
    low = 0 if zero else 1
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise OptionError(f"{what} must be a whole number >= {low}, not {value!r}"[:200])


def _check_path(value: object, what: str) -> None:
    if not isinstance(value, (str, os.PathLike)):
        raise OptionError(f"{what}: expected a file path, got {type(value).__name__}")


def _check_run_names(run: Run, measure: str, systems: Sequence[str] | None) -> None:
    """``measure`` was computed in ``run`` and ``systems`` are its systems."""
    if measure not in run.measures:
        raise OptionError(f"measure '{measure}' was not part of this run (its measures: "
                          f"{', '.join(run.measures)})")
    for s in systems or ():
        if s not in run.result.systems:
            raise OptionError(f"unknown system '{s}' (the run's systems: "
                              f"{', '.join(run.result.systems)})")


# --------------------------------------------------------------------------- scores
def _option_name(measure: str, key: str, fields: Mapping[str, Any]) -> str:
    """``key`` if it names an EvalOptions field, else ``<measure>_<key>`` if that does (the
    measure's own options without their prefix: ``smooth_method`` of BLEU is
    ``bleu_smooth_method``), else ``key`` (an unknown option, refused by the builder)."""
    if key not in fields and f"{measure}_{key}" in fields:
        return f"{measure}_{key}"
    return key


class Metric:
    """One measure with its options, ready to score lists of strings (sacreBLEU's
    ``Metric``: ``BLEU()``, ``CHRF()``...); made by :func:`measure`.

    :meth:`corpus_score` scores a system (hypotheses with sacreBLEU's reference streams),
    :meth:`sentence_score` one sentence; both return a
    :class:`~evaltrans_qt.engine.run.scoring.Score`. The references of the last corpus are
    kept, tokenised, so scoring many systems against one test set prepares them once.
    """

    def __init__(self, name: str, options: EvalOptions) -> None:
        from evaltrans_qt.engine.measures import get as get_measure
        cls = get_measure(name)
        #: The measure's registry name (``bleu``, ``wer``...).
        self.name: str = cls.name
        self.long_name: str = cls.long_name
        self.higher_is_better: bool = bool(cls.higher_is_better)
        #: Every option behind the numbers.
        self.options: EvalOptions = options
        self._rows: list[tuple[str, ...]] | None = None
        self._scorer: Scorer | None = None

    def __repr__(self) -> str:
        return f"<Metric {self.name}>"

    def _scorer_for(self, rows: list[tuple[str, ...]]) -> Scorer:
        from evaltrans_qt.engine.run.scoring import Scorer
        if self._scorer is None or rows != self._rows:
            self._scorer = Scorer(rows, [self.name], self.options, by_segment=True)
            self._rows = rows
        return self._scorer

    @_checked
    def corpus_score(self, hypotheses: Sequence[str],
                     references: Sequence[Sequence[str | None]]) -> Score:
        """Score a system: ``hypotheses[i]`` against line ``i`` of every reference stream
        (``references[k][i]``, as sacreBLEU; ``None`` marks a missing reference, so segments
        may have different numbers of references). The score of the summed statistics, with
        every segment's value in :attr:`~evaltrans_qt.engine.run.scoring.Score.sentences`."""
        from evaltrans_qt.engine.run.scoring import reference_segments
        if isinstance(hypotheses, str):
            raise OptionError("hypotheses: expected a list of strings, got one string")
        if not _list_like(hypotheses):
            raise OptionError(f"hypotheses: expected a list of strings, got "
                              f"{type(hypotheses).__name__}")
        if isinstance(references, str) or not _list_like(references) or any(
                isinstance(r, str) or not _list_like(r) for r in references):
            raise OptionError("references: expected a list of reference streams (lists of "
                              "strings)")
        scorer = self._scorer_for(reference_segments(references))
        stats = scorer.stats(hypotheses)[self.name]
        return scorer.score_stats(self.name, stats.sum(axis=0), rows=stats)

    @_checked
    def sentence_score(self, hypothesis: str, references: Sequence[str]) -> Score:
        """Score one sentence against its references (a list of strings), as sacreBLEU's
        ``sentence_score``: the corpus score of a one-line corpus. (Measures fitted on the
        whole test set, NIST's information weights, see only this sentence's references;
        a corpus's per-sentence values are :meth:`corpus_score`'s ``sentences``.)"""
        if not isinstance(hypothesis, str):
            raise OptionError(f"hypothesis: expected a string, got {type(hypothesis).__name__}")
        if isinstance(references, str):
            raise OptionError("references: expected a list of reference strings, got one "
                              "string")
        return self.corpus_score([hypothesis], [[r] for r in references])


@_checked
def measure(name: str, *, options: EvalOptions | None = None, preset: str | None = None,
            **option_values: Any) -> Metric:
    """The measure ``name`` (any registered measure: a name, an alias or the thesis'
    ``m`` prefix, e.g. ``mWER``; :func:`available_measures`) with its options, as a
    :class:`Metric` with ``corpus_score`` and ``sentence_score``.

    Options start from ``options`` or ``preset`` (default ``sacrebleu``, sacreBLEU's
    defaults, as ``evaltrans score``), with ``option_values`` set by EvalOptions field name
    (``tokenization="none"``, ``wer_ref_length_rule="lowestError"``); a measure's own
    options may drop its prefix (``measure("bleu", smooth_method="floor")``).
    """
    from evaltrans_qt.engine.measures import get as get_measure
    from evaltrans_qt.engine.options import option_fields
    if not isinstance(name, str):
        raise OptionError(f"measure: expected a measure name, got {type(name).__name__}")
    key = get_measure(name).name
    fields = {f.name: f for f in option_fields()}
    values = {_option_name(key, k, fields): v for k, v in option_values.items()}
    if options is None and preset is None:
        preset = SCORE_PRESET
    return Metric(key, make_options(options, preset, **values))


def _reference_streams(references: Sequence[Any], n: int) -> list[list[str | None]]:
    """sacreBLEU's reference streams from one list of references per segment (a plain
    string: one reference); missing references are ``None``."""
    if isinstance(references, str):
        raise OptionError("references: expected one list of references per segment (or one "
                          "string per segment), got one string")
    if not _list_like(references) or any(
            not (r is None or isinstance(r, str) or _list_like(r)) for r in references):
        raise OptionError("references: expected one list of references per segment")
    rows = [[r] if isinstance(r, str) or r is None else list(r) for r in references]
    if len(rows) != n:
        raise InputFormatError(f"{n} hypotheses but {len(rows)} reference segments "
                               "(references: one list per segment)")
    width = max((len(r) for r in rows), default=0)
    return [[r[k] if k < len(r) else None for r in rows] for k in range(max(width, 1))]


@overload
def score(measures: str, hypotheses: Sequence[str],
          references: Sequence[Sequence[str | None] | str | None], *,
          options: EvalOptions | None = None, preset: str | None = None,
          **option_values: Any) -> Score: ...


@overload
def score(measures: Sequence[str], hypotheses: Sequence[str],
          references: Sequence[Sequence[str | None] | str | None], *,
          options: EvalOptions | None = None, preset: str | None = None,
          **option_values: Any) -> dict[str, Score]: ...


@_checked
def score(measures: str | Sequence[str], hypotheses: Sequence[str],
          references: Sequence[Sequence[str | None] | str | None], *,
          options: EvalOptions | None = None, preset: str | None = None,
          **option_values: Any) -> Score | dict[str, Score]:
    """Score one system's ``hypotheses`` against ``references`` given **per segment** (one
    list per hypothesis, any number each, ``None`` entries skipped; a list of strings means
    one reference each): ``measure(name, ...).corpus_score`` of each measure.

    ``measures``: a name (-> one :class:`~evaltrans_qt.engine.run.scoring.Score`) or a
    list of names (-> ``{registry name: Score}``); options as :func:`measure`.
    """
    names = _check_names(measures, "measures", optional=False) or []
    if not names:
        raise OptionError("no measure given")
    if isinstance(hypotheses, str) or not _list_like(hypotheses):
        raise OptionError(f"hypotheses: expected a list of strings, got "
                          f"{type(hypotheses).__name__}")
    streams = _reference_streams(references, len(hypotheses))
    metrics = [measure(m, options=options, preset=preset, **option_values) for m in names]
    out: dict[str, Score] = {}
    for metric in metrics:
        if metric.name not in out:
            out[metric.name] = metric.corpus_score(hypotheses, streams)
    return out[metrics[0].name] if isinstance(measures, str) else out


def available_measures() -> dict[str, str]:
    """{measure name: long name} of every registered measure."""
    from evaltrans_qt.engine.measures import load_all
    return {name: cls.long_name for name, cls in load_all().items()}


# --------------------------------------------------------------------------- database
class Database(_EngineDatabase):
    """An EvalTrans database (``engine.database.Database``) with file and list helpers.

    Sources, their references and candidates and the human scores; see
    ``docs/api.md``. Every engine function accepts it.
    """

    @classmethod
    @_checked
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
        if isinstance(sources, str) or not _list_like(sources) \
                or any(not isinstance(s, str) for s in sources):
            raise OptionError("sources: expected a list of strings")
        n = len(sources)
        if isinstance(references, str) or not _list_like(references) or any(
                not (r is None or isinstance(r, str)
                     or (_list_like(r) and all(x is None or isinstance(x, str)
                                                         for x in r)))
                for r in references):
            raise OptionError("references: expected a list (one per source) of reference "
                              "strings or lists of them")
        refs = [[r] if isinstance(r, str) or r is None else list(r) for r in references]
        if len(refs) != n:
            raise InputFormatError(f"{n} sources but {len(refs)} reference segments")
        if systems is not None and not isinstance(systems, Mapping):
            raise OptionError("systems: expected {name: [hypothesis per source]}")
        if human is not None and (not isinstance(human, Mapping) or any(
                not isinstance(k, str) or not isinstance(v, Mapping)
                for k, v in human.items())):
            raise OptionError("human: expected {class: {system: [score or None per source]}}")
        systems = dict(systems or {})
        for name, hyps in systems.items():
            if not isinstance(name, str) or not name:
                raise OptionError(f"system name {name!r}: expected a non-empty string")
            if not _list_like(hyps) or any(not isinstance(h, str) for h in hyps):
                raise OptionError(f"system '{name}': expected a list of hypothesis strings")
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
                if isinstance(vals, str) or not _list_like(vals) or len(vals) != n:
                    raise ScoreError(f"human class '{cls_name}', system '{system}': expected "
                                     f"{n} scores (None for unscored)")
                if any(v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))
                                          or v != v) for v in vals):
                    raise ScoreError(f"human class '{cls_name}', system '{system}': scores "
                                     "must be numbers or None")
            given = [float(v) for vals in per_system.values() for v in vals if v is not None]
            scale = (scales or {}).get(cls_name, (None, None))
            if not (isinstance(scale, tuple) and len(scale) == 2 and all(
                    v is None or (isinstance(v, (int, float)) and not isinstance(v, bool))
                    for v in scale)):
                raise ScoreError(f"scales['{cls_name}']: expected (low, high), got {scale!r}")
            lo, hi = scale
            levels[cls_name] = continuous(cls_name, lo, hi, values=given, allow_point=True)
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
    @_checked
    def load(cls, path: PathLike) -> Database:
        """Read an EvalTrans database file (``.etdb.xml``) as evaltrans-qt shows it: the
        unsaved judgements of a journal beside it (``NAME.etdb.xml.journal``) are included
        (``io.store.open_database``; the file is not changed)."""
        from evaltrans_qt.io.store import open_database
        _check_path(path, "Database.load")
        db = open_database(path).database
        db.__class__ = cls               # same state, this class' helpers
        return db  # type: ignore[return-value]

    @classmethod
    def demo(cls) -> Database:
        """The built-in demo database (``resources/demo.etdb.xml``: 4 systems with human
        scores)."""
        from evaltrans_qt.io.etdb import demo_database_path
        return cls.load(demo_database_path())

    @_checked
    def save(self, path: PathLike) -> None:
        """Write the database (validated, atomically; the old file survives a failure) the
        one way (``io.store.write_database``): over the file it was loaded from, refused if
        that changed on disk since, and the journal's judgements it includes are removed
        from the journal; anywhere, refused while evaltrans-qt holds the file open or when
        a journal beside it would be orphaned (:class:`~evaltrans_qt.errors.SaveError`)."""
        from evaltrans_qt.io.store import write_database
        _check_path(path, "Database.save")
        write_database(self, path)

    @_checked
    def set_score(self, source: int, system: str, cls: str, value: float | None, *,
                  judge: str | None = None, seconds: float | None = None,
                  time: str | None = None) -> None:
        """Give ``system``'s translation of source ``source`` (0-based index, as the
        ``source`` column of :meth:`to_frame`) ``judge``'s ``value`` of human class ``cls``;
        ``value=None`` removes that judge's score. Checked as the application's scoring
        screen checks it (``io/judgements.py``: the class is a human class, the value one of
        its levels at or above the first valid one) and applied by the function the
        application's commit applies with; in memory -- :meth:`save` writes it (for a file,
        :func:`judge` journals it as the application does). :class:`ScoreError` naming the
        problem; the database is then unchanged."""
        from evaltrans_qt.io.journal import apply_entry
        from evaltrans_qt.io.judgements import judgement_change
        ch = judgement_change(self, line=_source_number(source, len(self.sources)),
                              **_judgement_args(system, cls, value, judge, seconds, time))
        apply_entry(self, ch)

    @_checked
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


# --------------------------------------------------------------------------- judgements
def _source_number(source: object, n: int) -> int:
    """The 1-based source number of the 0-based index ``source`` (checked)."""
    if isinstance(source, bool) or not isinstance(source, numbers.Integral):
        raise ScoreError(f"source: expected a 0-based source index (int), got "
                         f"{type(source).__name__}")
    index = int(source)
    if not 0 <= index < n:
        raise ScoreError(f"source {index} does not exist (the database has {n} source"
                         f"{'' if n == 1 else 's'}, indices 0..{n - 1})")
    return index + 1


def _judgement_args(system: object, cls: object, value: object, judge: object,
                    seconds: object, time: object) -> dict[str, Any]:
    """The arguments of a judgement, type-checked (:class:`ScoreError` naming the wrong one)."""
    for name, v, optional in (("system", system, False), ("cls", cls, False),
                              ("judge", judge, True), ("time", time, True)):
        if not isinstance(v, str) and not (optional and v is None):
            raise ScoreError(f"{name}: expected a string, got {type(v).__name__}")

    def number(name: str, v: object) -> float | None:
        if v is None:
            return None
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise ScoreError(f"{name}: expected a number, got {type(v).__name__}")
        return float(v)

    return {"system": system, "cls": cls, "value": number("value", value), "judge": judge,
            "seconds": number("seconds", seconds), "time": time}


@_checked
def judge(database: PathLike, source: int, system: str, cls: str, value: float | None, *,
          judge: str | None = None, seconds: float | None = None) -> None:
    """Record one judgement in the database file ``database`` as the application records a
    score (``evaltrans judge``): under the file's lock -- refused with
    :class:`~evaltrans_qt.io.store.DatabaseLockedError` while evaltrans-qt holds it open --
    journalled and forced to disk before it is applied, then the file is written in place.
    Arguments as :meth:`Database.set_score` (``source`` 0-based; ``value=None`` removes
    ``judge``'s score); timed now."""
    from datetime import datetime

    from evaltrans_qt.io.judgements import commit_judgements, judgement_change
    if not isinstance(database, (str, os.PathLike)):
        raise OptionError(f"database: expected a path, got {type(database).__name__}")
    when = datetime.now().astimezone().isoformat(timespec="seconds") if value is not None \
        else None
    args = _judgement_args(system, cls, value, judge, seconds, when)
    commit_judgements(database, lambda db: [judgement_change(
        db, line=_source_number(source, len(db.sources)), **args)])


@_checked
def import_judgements(database: PathLike, file: PathLike) -> int:
    """Add the judgements of ``file`` (``.tsv``/``.csv`` with a header row, or ``.jsonl``;
    columns ``system``, ``seg`` (and ``doc``) or ``line`` (1-based), ``class``, ``value``,
    ``judge``, ``time``, ``seconds``) to the database file ``database`` (``evaltrans import
    judgements``): every row checked first (errors name the file and line), then one atomic
    write -- all or none; refused while evaltrans-qt holds the file. Returns how many."""
    from evaltrans_qt.io.judgements import commit_judgements, read_judgements
    for name, v in (("database", database), ("file", file)):
        if not isinstance(v, (str, os.PathLike)):
            raise OptionError(f"{name}: expected a path, got {type(v).__name__}")
    return len(commit_judgements(database, lambda db: read_judgements(file, db),
                                 journal=False))


# --------------------------------------------------------------------------- campaigns
@_checked
def open_bundle(path: PathLike) -> tuple[_EngineDatabase, Any]:
    """An annotator's bundle of a campaign (``evaltrans campaign bundle``; docs/campaigns.md):
    (its database, its :class:`~evaltrans_qt.io.campaign_bundle.BundleInfo` -- campaign id,
    annotator, protocol, classes, batch ends, instructions (Markdown), tutorial items).
    Judge its items with :func:`judge` (``judge=`` the annotator); a file that is not a
    bundle is a :class:`~evaltrans_qt.engine.campaign.definition.CampaignError` naming it."""
    from evaltrans_qt.io import campaign_bundle
    return campaign_bundle.open_bundle(path)


@_checked
def is_bundle(db: _EngineDatabase) -> bool:
    """True if ``db`` is an annotator's bundle (the application opens it in annotator mode)."""
    from evaltrans_qt.io import campaign_bundle
    return campaign_bundle.is_bundle(db)


@_checked
def bundle_items(db: _EngineDatabase) -> list[Any]:
    """The positions of the bundle ``db`` in the order the annotator judges them
    (:class:`~evaltrans_qt.io.campaign_bundle.BundleItem`: ``n``, ``source_index``,
    ``target_index``, texts, opaque ``system``, ``batch``, ``judged``)."""
    from evaltrans_qt.io import campaign_bundle
    return campaign_bundle.bundle_items(db)


@_checked
def bundle_progress(db: _EngineDatabase) -> Any:
    """How far the annotator of bundle ``db`` is
    (:class:`~evaltrans_qt.io.campaign_bundle.Progress`; ``.text``: "312 of 400, 2 batches
    left")."""
    from evaltrans_qt.io import campaign_bundle
    return campaign_bundle.bundle_progress(db)


# --------------------------------------------------------------------------- runs
#: How :class:`Run` aggregates a human class's sentence scores into a system score.
HUMAN_AGGREGATES = ("weighted", "mean")


class Run:
    """An evaluation run: ``systems`` (one row per system) and ``sentences`` (one row per
    system and segment: ``system``, ``segment`` = source index, ``seg``, ``candidate``,
    every measure column, ``human:<class>``) as pandas DataFrames; ``signatures`` per
    measure; ``result`` the engine's :class:`~evaltrans_qt.engine.run.results.RunResult`.

    Scales: every measure column is in the engine's unit, fractions (BLEU 0.35, WER 0.42;
    NIST as is) -- :attr:`Score.value`'s unit; :attr:`Score.score` is sacreBLEU's display
    unit (percent). ``human:<class>`` columns are on the class's own scale (levels 1..5,
    MQM penalties...). A system's human score is, by default (``aggregate="weighted"``),
    the mean of its sentence scores weighted by candidate length in words (thesis section
    5.5, as the application and the reports); ``aggregate="mean"`` gives the plain mean.
    ``aggregate`` says which."""

    def __init__(self, result: RunResult, database: _EngineDatabase,
                 aggregate: str = "weighted") -> None:
        from evaltrans_qt.engine.run.tables import build_tables
        if aggregate not in HUMAN_AGGREGATES:
            raise OptionError(f"aggregate: expected one of {', '.join(HUMAN_AGGREGATES)}, "
                              f"got {aggregate!r}")
        self.result = result
        self.database = database
        self.aggregate = aggregate
        tables = build_tables(result, database)
        self.systems: pd.DataFrame = tables.systems
        sentences = tables.sentences
        sentences.insert(2, "seg", [database.sources[i].seg or str(i + 1)
                                    for i in sentences["segment"]])
        self.sentences: pd.DataFrame = sentences
        if aggregate == "mean":     # the human classes' system scores as plain means
            for col in [c for c in self.systems.columns if c.startswith("human:")
                        and database.has_class(c.removeprefix("human:"))]:
                means = sentences.groupby("system")[col].mean()
                self.systems[col] = [float(means.get(s, float("nan")))
                                     for s in self.systems["system"]]
        self.measures: tuple[str, ...] = tuple(result.measures)
        self.signatures: dict[str, str] = result.signatures()

    def __repr__(self) -> str:
        return f"<Run {len(self.result.systems)} systems x {', '.join(self.measures)}>"

    @_checked
    def correlate(self, human: str, **kwargs: Any) -> pd.DataFrame:
        """:func:`correlate` of this run."""
        return correlate(self, human, **kwargs)

    @_checked
    def significance(self, measure: str, **kwargs: Any) -> pd.DataFrame:
        """:func:`significance` of this run."""
        return significance(self, measure, **kwargs)

    @_checked
    def write_sentences(self, path: PathLike) -> None:
        """Write the per-sentence values as TSV or JSON Lines (as ``--sentences``)."""
        from evaltrans_qt.io.sentences import run_sentence_rows, write_sentences
        _check_path(path, "write_sentences")
        columns, rows = run_sentence_rows(self.result, self.database)
        write_sentences(path, rows, columns, self.signatures)


@_checked
def evaluate(db: _EngineDatabase, measures: str | Sequence[str] | None = None,
             options: EvalOptions | None = None, *, systems: Sequence[str] | None = None,
             preset: str | None = None, jobs: int | None = None, aggregate: str = "weighted",
             **option_values: Any) -> Run:
    """Evaluate the systems of ``db`` (default: all) with ``measures`` (default: every
    enabled one) as ``evaltrans batch`` does. Options start from ``options`` or ``preset``
    (default ``evaltrans default``); ``jobs``: worker processes (1 = in-process; default
    chosen by size). Measure values are fractions; a system's human score is the
    length-weighted mean of its sentence scores (thesis section 5.5), or with
    ``aggregate="mean"`` the plain mean (:class:`Run`)."""
    from evaltrans_qt.engine.run.driver import evaluate as run_evaluation
    from evaltrans_qt.engine.run.executors.local import LocalProcessExecutor, SerialExecutor
    if not isinstance(db, _EngineDatabase):
        raise OptionError(f"evaluate: expected a Database, got {type(db).__name__}")
    if options is not None and not isinstance(options, EvalOptions):
        raise OptionError(f"options: expected EvalOptions, got {type(options).__name__}")
    opts = make_options(options, preset, **option_values)
    names = _check_names(measures, "measures")
    systems = _check_names(systems, "systems")
    if jobs is not None:
        _check_count(jobs, "jobs", zero=False)
        most = 4 * (os.cpu_count() or 1)
        if jobs > most:
            raise OptionError(f"jobs={jobs}: at most {most} worker processes (4 per core "
                              "of this machine)")
    executor = None if jobs is None else (SerialExecutor() if jobs == 1
                                          else LocalProcessExecutor(jobs))
    if aggregate not in HUMAN_AGGREGATES:
        raise OptionError(f"aggregate: expected one of {', '.join(HUMAN_AGGREGATES)}, "
                          f"got {aggregate!r}")
    result = run_evaluation(db, opts, names, systems, executor=executor)
    return Run(result, db, aggregate)


def _as_run(data: Run | _EngineDatabase, measures: Sequence[str] | None,
            options: EvalOptions | None) -> Run:
    if isinstance(data, Run):
        return data
    if isinstance(data, _EngineDatabase):
        return evaluate(data, measures, options)
    raise OptionError(f"expected a Run or a Database, got {type(data).__name__}")


@_checked
def correlate(data: Run | _EngineDatabase, human: str, *, level: str = "sentence",
              measures: Sequence[str] | None = None, options: EvalOptions | None = None,
              samples: int = 1000, seed: int = 0, normalize: bool = False,
              how: str = "mean", convention: str | None = None, subset: str = "all",
              weighted: bool = True) -> pd.DataFrame:
    """Correlation of every measure with human class ``human`` (``evaltrans correlate``):
    one row per measure with ``n``, Pearson r, Spearman rho, Kendall tau (tau_a, thesis
    eq. 6.23) and tau_b, tau-bar (sentence level, eq. 6.24), each with its 95% bootstrap
    interval (``*_low``, ``*_high``; ``samples`` resamples of source sentences), and the
    system-level ``convention`` used (``mtme`` by default, or ``thesis``; ``subset`` and
    ``weighted`` as ``--subset``/``--unweighted``). A Database is evaluated first
    (``measures``, ``options``)."""
    import pandas as pd

    from evaltrans_qt.engine.metaeval.conventions import DEFAULT_CONVENTION
    from evaltrans_qt.engine.metaeval.correlation import correlate_run
    measures = _check_names(measures, "measures")
    _check_count(samples, "samples")
    _check_count(seed, "seed")
    run = _as_run(data, measures, options)
    rows = correlate_run(run.database, run.result, human, level=level,
                         measures=None if isinstance(data, _EngineDatabase) else measures,
                         n_boot=samples, seed=seed, normalize=normalize, how=how,
                         convention=convention or DEFAULT_CONVENTION, subset=subset,
                         weighted=weighted)
    out = []
    for c in rows:
        row: dict[str, Any] = {"measure": c.measure, "human": c.human, "level": c.level,
                               "convention": c.convention, "n": c.n}
        for key in ("pearson", "spearman", "kendall", "kendall_b", "tau_bar"):
            row[key] = getattr(c, key)
            lo, hi = getattr(c, f"{key}_ci")
            row[f"{key}_low"], row[f"{key}_high"] = lo, hi
        row["signature"] = run.signatures.get(c.measure, "")
        out.append(row)
    return pd.DataFrame(out)


@_checked
def meta_evaluate(data: Run | _EngineDatabase, human: str, *,
                  stats: Sequence[str] = ("pearson", "kendall", "pairwise-accuracy", "acc-eq"),
                  level: str = "sys", grouping: str = "none",
                  measures: Sequence[str] | None = None, options: EvalOptions | None = None,
                  convention: str | None = None, subset: str = "all", variant: str = "b",
                  seed: int = 0) -> pd.DataFrame:
    """mt-metrics-eval's statistics of every measure and external metric against ``human``
    (``evaltrans correlate --stats``): one row per measure with ``level``, ``grouping``,
    ``convention``, ``n`` and one column per statistic of ``stats`` (``pearson``,
    ``kendall`` (tau ``variant``), ``pairwise-accuracy``, ``acc-eq`` with its
    ``acc-eq-epsilon``, ``spa``). A Database is evaluated first (``measures``, ``options``)."""
    import pandas as pd

    from evaltrans_qt.engine.measures.external import with_external
    from evaltrans_qt.engine.metaeval.conventions import DEFAULT_CONVENTION
    from evaltrans_qt.engine.metaeval.metrics_task import gather, metrics_table
    from evaltrans_qt.engine.metaeval.statistics.kendall import VARIANTS as KENDALL_VARIANTS
    measures = _check_names(measures, "measures")
    stats = _check_names(stats, "stats", optional=False) or []
    _check_count(seed, "seed")
    if variant not in KENDALL_VARIANTS:
        raise OptionError(f"variant: '{variant}' is not one of {', '.join(KENDALL_VARIANTS)}")
    run = _as_run(data, measures, options)
    result = with_external(run.result, run.database)
    data_ = gather(run.database, result, human, convention=convention or DEFAULT_CONVENTION,
                   subset=subset)
    rows = metrics_table(data_, list(stats), level=level, grouping=grouping, variant=variant,
                         seed=seed)
    return pd.DataFrame([r.to_dict() for r in rows]).drop(columns=["cluster"])


@_checked
def significance(run: Run, measure: str, *, method: str = "bootstrap",
                 samples: int | None = None, seed: int | str | None = "env",
                 systems: Sequence[str] | None = None, agreement: str = "auto") -> pd.DataFrame:
    """p-values between every pair of systems on ``measure`` (``evaltrans significance``;
    sacreBLEU's paired bootstrap or approximate randomisation, ``method`` =
    ``bootstrap``, ``randomization`` or ``bootstrap-centred``): a square DataFrame indexed
    by system; ``.attrs`` holds each system's ``scores`` (engine units), the ``method``,
    ``samples`` and ``seed`` used, and ``agreement`` -- the probability that humans agree
    with the measure's order of each pair (Kocmi et al. 2024; ``agreement`` = auto,
    published, fit (on the database's first human class) or none; engine
    ``metaeval/thresholds.py``) as a DataFrame with its ``model`` in ``.attrs``, or None."""
    import math

    import pandas as pd

    from evaltrans_qt.engine.metaeval.significance import run_significance
    if not isinstance(run, Run):
        raise OptionError(f"significance: expected a Run (from evaluate), got "
                          f"{type(run).__name__}")
    if not isinstance(measure, str):
        raise OptionError(f"measure: expected a name, got {type(measure).__name__}")
    systems = _check_names(systems, "systems")
    _check_run_names(run, measure, systems)
    from evaltrans_qt.engine.metaeval.thresholds import SOURCES
    if agreement not in SOURCES:
        raise OptionError(f"agreement: '{agreement}' is not one of {', '.join(SOURCES)}")
    human, human_name = None, ""
    if agreement in ("auto", "fit"):
        classes = [c for c in run.database.human_classes if c != "rank"]
        if classes:
            from evaltrans_qt.engine.human.resolve import human_scores
            hs = human_scores(run.database, classes[0])
            human = {s: v for s, sr in run.result.systems.items()
                     if math.isfinite(v := hs.system_score(s, False, sr.segments))}
            human_name = classes[0]
    res = run_significance(run.result, measure, systems=systems, method=method,
                           samples=samples, seed=seed, agreement=agreement, human=human,
                           human_name=human_name)
    frame = pd.DataFrame(res.p_values, index=list(res.systems), columns=list(res.systems))
    agree = None
    if res.agreement is not None and res.agreement_model is not None:
        agree = pd.DataFrame(res.agreement, index=list(res.systems), columns=list(res.systems))
        agree.attrs["model"] = {**res.agreement_model.to_dict(),
                                "description": res.agreement_model.describe()}
    frame.attrs.update(measure=measure, method=res.method, samples=res.samples, seed=res.seed,
                       scores=dict(zip(res.systems, (float(v) for v in res.scores))),
                       signature=run.signatures.get(measure, ""), agreement=agree)
    return frame


@_checked
def analyze(db: _EngineDatabase, systems: Sequence[str], *, measure: str = "comparemt-bleu",
            options: EvalOptions | None = None, reference: str | None = None,
            train: PathLike | None = None,
            labels: PathLike | Sequence[PathLike] | None = None,
            top: int = 50, examples: int = 10, samples: int = 1000,
            seed: int | str | None = "env", preset: str | None = None,
            **option_values: Any) -> AnalysisResult:
    """compare-mt-style analysis of ``systems`` (two or more) of ``db`` against one
    reference (``evaltrans analyze``; docs/analysis.md): aggregate scores with paired
    bootstrap significance, word accuracy by frequency (in ``train``, a training corpus, or
    the test references), label-wise accuracy (``labels``: the reference's label file, then
    optionally one per system, one line per source), sentence buckets by length, length
    difference and score, the ``top`` characteristic n-grams and ``examples`` sentences of
    every pair. ``measure``: ``comparemt-bleu`` (compare-mt's BLEU and sentence BLEU) or a
    measure of the registry; ``reference``: the reference id to use (default the first
    reference of each source); tokenisation and case from ``options``/``preset``
    (default ``evaltrans default``). Returns an
    :class:`~evaltrans_qt.engine.analysis.pairwise.AnalysisResult` of DataFrames."""
    from evaltrans_qt.io.analysis_inputs import analyze_database
    if not isinstance(db, _EngineDatabase):
        raise OptionError(f"analyze: expected a Database, got {type(db).__name__}")
    names = _check_names(systems, "systems", optional=False) or []
    for what, value in (("top", top), ("examples", examples), ("samples", samples)):
        _check_count(value, what, zero=False)
    opts = make_options(options, preset, **option_values)
    if train is not None:
        _check_path(train, "train")
    files = None
    if labels is not None:
        files = [labels] if isinstance(labels, (str, os.PathLike)) else list(labels)
        for f in files:
            _check_path(f, "labels")
    return analyze_database(db, names, measure=measure, options=opts, reference=reference,
                            train=train, labels=files, top=top, examples=examples,
                            samples=samples, seed=seed)


__all__ = ["Database", "EvalOptions", "Metric", "Run", "analyze", "available_measures",
           "correlate", "evaluate", "import_judgements", "judge", "make_options", "measure",
           "meta_evaluate", "score", "significance"]
