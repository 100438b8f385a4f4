"""Result tables as pandas frames: system level and sentence level (Qt-free).

Built once per run (in a worker thread in the application), then shown by Qt
models, exported to CSV/LaTeX, and fed to the correlation plots. Columns are
the measures' named columns (``MeasureScore.columns``) plus human scores; the
``directions`` mapping says which columns are better when higher.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from evaltrans_qt.engine.data.database import Database, Target
from evaltrans_qt.engine.human.scores import target_value, valid_floor
from evaltrans_qt.engine.run.results import RunResult


@dataclass(frozen=True)
class ResultTables:
    """``systems``: one row per system; ``sentences``: one row per (system, segment).

    ``sentences`` has columns ``system``, ``segment`` (source index, 0-based),
    ``candidate`` (text), then one column per measure column, then human
    classes as ``human:<class>``. ``directions[col]`` is +1 if higher is better,
    -1 if lower is better (measures) and +1 for human classes.
    """

    systems: pd.DataFrame
    sentences: pd.DataFrame
    measure_columns: tuple[str, ...]
    human_columns: tuple[str, ...]
    directions: dict[str, int]


def _row_targets(db: Database | None, system: str, sr) -> list:
    """The candidate of each row: by the run's target index, else the system's k-th
    candidate of the source (k > 0 only for a sentence merged by text, thesis Appendix A.2; a
    positional source has one per system)."""
    if db is None:
        return [None] * len(sr.segments)
    from evaltrans_qt.engine.human.scores import occurrence_keys
    tidx = getattr(sr, "target_indices", ()) or ()
    out: list[Target | None] = []
    for r, (i, k) in enumerate(occurrence_keys(sr.segments)):
        if not 0 <= i < len(db.sources):
            out.append(None)
            continue
        targets = db.sources[i].targets
        if r < len(tidx) and 0 <= tidx[r] < len(targets):
            out.append(targets[tidx[r]])
            continue
        mine = [t for t in targets if (t.system or "") == system and not db.is_reference(t)]
        out.append(mine[k] if k < len(mine) else None)
    return out


def build_tables(run: RunResult, db: Database | None = None,
                 human_classes: list[str] | None = None, how: str = "mean") -> ResultTables:
    """Tabulate a run; human scores come from ``db`` (mean or median over judges).

    Without ``human_classes``: the database's classes, then the protocols its judges'
    work defines (``sser:<class>``, ``ier``, ``hter``, ``awer``; see
    :func:`protocol_columns`). Protocol columns hold the error rates themselves
    (direction -1)."""
    from evaltrans_qt.engine.human.protocol_scores import is_protocol
    if db is not None:      # external metrics of the database (imported scores) are columns too
        from evaltrans_qt.engine.measures.external import with_external
        run = with_external(run, db)
    classes = list(human_classes if human_classes is not None
                   else (db.human_classes if db is not None else []))
    if human_classes is None and db is not None:
        classes += [p for p in protocol_columns(db) if p not in classes]
    protocols = {c: _protocol(db, c, run, how) for c in classes
                 if db is not None and is_protocol(c) and not db.has_class(c)}
    classes = [c for c in classes if c not in protocols]
    directions: dict[str, int] = {}
    measure_cols: list[str] = []
    sys_rows = []
    frames = []
    for name, sr in run.systems.items():
        n = len(sr.segments)
        data: dict[str, object] = {
            "system": [name] * n,
            "segment": np.asarray(sr.segments, dtype=np.int64),
            "candidate": list(sr.target_texts) if sr.target_texts else [""] * n,
        }
        sys_row: dict[str, object] = {"system": name}
        for mname in run.measures:
            if mname not in sr.stats and mname not in sr.scores:
                continue
            m = run.measure(mname)
            sign = 1 if m.higher_is_better else -1
            # a report read back without sentence detail has system scores only
            stats = sr.stats.get(mname)
            has_rows = stats is not None and len(stats) == n
            per_sentence = [m.score(row) for row in stats] if has_rows and stats is not None \
                else []
            cols = list(sr.scores[mname].columns) if mname in sr.scores else (
                list(per_sentence[0].columns) if per_sentence else [])
            for c in cols:
                if c not in directions:
                    directions[c] = sign
                    measure_cols.append(c)
                data[c] = (np.array([s.columns.get(c, np.nan) for s in per_sentence], dtype=float)
                           if has_rows else np.full(n, np.nan))
                if mname in sr.scores:
                    sys_row[c] = float(sr.scores[mname].columns.get(c, np.nan))
        hum_lengths = np.zeros(n)
        row_targets = _row_targets(db, name, sr) if classes else []
        for cls in classes:
            vals = np.full(n, np.nan)
            floor = valid_floor(db, cls) if db is not None else -np.inf
            for i, t in enumerate(row_targets):
                if t is not None:
                    vals[i] = target_value(t, cls, how, include_extrapolated=True, floor=floor)
                    hum_lengths[i] = len(t.text.split())
            data[f"human:{cls}"] = vals
            ok = ~np.isnan(vals)
            # system score: length-weighted mean of sentence scores (thesis section 5.5)
            w = hum_lengths[ok]
            sys_row[f"human:{cls}"] = (float(np.average(vals[ok], weights=w))
                                       if ok.any() and w.sum() > 0 else np.nan)
        for cls, res in protocols.items():
            data[f"human:{cls}"], sys_row[f"human:{cls}"] = _protocol_column(res, name, sr)
        frames.append(pd.DataFrame(data))
        sys_rows.append(sys_row)
    human_cols = [f"human:{c}" for c in classes]
    for c in human_cols:
        directions[c] = 1
    for c in protocols:
        human_cols.append(f"human:{c}")
        directions[f"human:{c}"] = -1
    sentences = (pd.concat(frames, ignore_index=True) if frames
                 else pd.DataFrame(columns=["system", "segment", "candidate"]))
    systems = pd.DataFrame(sys_rows, columns=["system", *measure_cols, *human_cols])
    return ResultTables(systems, sentences, tuple(measure_cols), tuple(human_cols), directions)


def protocol_columns(db: Database) -> list[str]:
    """Protocol human columns the database's judges' work defines (engine/human/protocol_scores.py
    ``protocol_names(only_with_data=True)``): ``sser:<class>``, ``ier``, ``hter``, ``awer``."""
    from evaltrans_qt.engine.human.protocol_scores import protocol_names
    return protocol_names(db, only_with_data=True)


def human_direction(column: str) -> int:
    """+1 for a human score column (higher is better), -1 for a protocol's error rate
    (``human:hter``, ``human:ier``, ``human:awer``, ``human:ser``, ``human:sser:<class>``)."""
    from evaltrans_qt.engine.human.protocol_scores import is_protocol
    return -1 if is_protocol(column.removeprefix("human:")) else 1


def _protocol(db: Database, name: str, run: RunResult, how: str):
    from evaltrans_qt.engine.human.protocol_scores import protocol_result
    return protocol_result(db, name, run.options, how=how)


def _protocol_column(res, system: str, sr) -> tuple[np.ndarray, float]:
    """A protocol's sentence values for a system's rows and its system value over those
    rows (sum of numerators over sum of denominators, survey §4.4)."""
    from evaltrans_qt.engine.human.protocol_scores import rate
    from evaltrans_qt.engine.human.scores import occurrence_keys
    keys = [(i, system, k) for i, k in occurrence_keys(sr.segments)]
    vals = np.array([res.sentence(k) for k in keys], dtype=float)
    rows = [res.stats[k] for k in keys if k in res.stats]
    value = rate(sum(r[0] for r in rows), sum(r[1] for r in rows)) if rows else np.nan
    return vals, value


def disagreement(frame: pd.DataFrame, measure_col: str, human_col: str, direction: int,
                 human_sign: int | None = None) -> np.ndarray:
    """|z(measure) - z(human)| per sentence, measure sign-adjusted so both mean 'better'.

    Large values mark sentences where the metric and the judges disagree most.
    NaN where the human score is missing. ``human_sign`` defaults to
    :func:`human_direction` of the column (-1 for protocol error rates such as HTER).
    """
    m = direction * frame[measure_col].to_numpy(dtype=float)
    hd = human_sign if human_sign is not None else human_direction(human_col)
    h = hd * frame[human_col].to_numpy(dtype=float)
    ok = ~(np.isnan(m) | np.isnan(h))
    out = np.full(len(frame), np.nan)
    if ok.sum() < 2:
        return out
    zm = (m[ok] - m[ok].mean()) / (m[ok].std() or 1.0)
    zh = (h[ok] - h[ok].mean()) / (h[ok].std() or 1.0)
    out[ok] = np.abs(zm - zh)
    return out


def system_difference(frame: pd.DataFrame, column: str, system_a: str, system_b: str) -> pd.DataFrame:
    """Per segment: value of ``column`` for A and B and their difference, largest |Δ| first."""
    a = frame[frame["system"] == system_a].set_index("segment")
    b = frame[frame["system"] == system_b].set_index("segment")
    common = a.index.intersection(b.index)
    out = pd.DataFrame({
        "segment": common,
        "candidate A": a.loc[common, "candidate"].to_numpy(),
        "candidate B": b.loc[common, "candidate"].to_numpy(),
        f"{column} A": a.loc[common, column].to_numpy(dtype=float),
        f"{column} B": b.loc[common, column].to_numpy(dtype=float),
    })
    out["difference"] = out[f"{column} A"] - out[f"{column} B"]
    return out.reindex(out["difference"].abs().sort_values(ascending=False).index).reset_index(drop=True)
