"""Export result tables: CSV, JSON and LaTeX (booktabs), chosen by file suffix.

Tables are pandas frames (``engine/run/tables.py``). Writes are atomic
(``io/atomic.py``): a failed export never leaves a half-written file.

CSV/TSV cells are neutralised against formula injection as OWASP's "CSV Injection"
page recommends: a text cell (or header) starting with ``=``, ``+``, ``-``, ``@``,
tab or carriage return gets a leading ``'``, so a spreadsheet shows it as text
instead of running it. Numeric columns are written as numbers (negative values
stay ``-0.5``), and a text cell that is a plain number (``-3``) is left as it is.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from evaltrans_qt.errors import SaveError
from evaltrans_qt.io.atomic import atomic_write_text
from evaltrans_qt.io.limits import parse_number

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def formula_safe(v: object) -> object:
    """``v`` with a leading ``'`` if a spreadsheet would read it as a formula (module doc)."""
    if not isinstance(v, str) or not v.startswith(_FORMULA_START):
        return v
    try:
        parse_number(v)
        return v                               # a plain number such as "-3"
    except ValueError:
        return "'" + v


def neutralise_formulas(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` safe to open in a spreadsheet (module doc); numeric columns untouched."""
    out = frame.copy()
    for c in out.columns:
        if not (pd.api.types.is_numeric_dtype(out[c]) or pd.api.types.is_bool_dtype(out[c])):
            out[c] = out[c].map(formula_safe)
    out.columns = [formula_safe(c) for c in out.columns]
    return out

_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                  "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                  "^": r"\textasciicircum{}"}


def latex_escape(text: object) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in str(text))


def _cell(v: object, decimals: int) -> str:
    if isinstance(v, (float, np.floating)):
        return "--" if math.isnan(v) else f"{v:.{decimals}f}"
    return latex_escape(v)


def to_latex(frame: pd.DataFrame, decimals: int = 4, caption: str | None = None,
             label: str | None = None, bold_best: dict[str, int] | None = None) -> str:
    """A booktabs ``tabular`` (in a ``table`` if a caption is given).

    Numeric columns are right-aligned with ``decimals`` places; ``bold_best``
    maps a column to +1 (max is best) or -1 (min is best) and sets its best
    value in bold. Needs ``\\usepackage{booktabs}``.
    """
    cols = list(frame.columns)
    numeric = [pd.api.types.is_numeric_dtype(frame[c]) for c in cols]
    best: dict[str, float] = {}
    for c, d in (bold_best or {}).items():
        if c in frame.columns and frame[c].notna().any():
            best[c] = frame[c].max() if d > 0 else frame[c].min()
    lines = []
    if caption is not None:
        lines += [r"\begin{table}[t]", r"\centering"]
    lines.append(r"\begin{tabular}{" + "".join("r" if n else "l" for n in numeric) + "}")
    lines.append(r"\toprule")
    lines.append(" & ".join(latex_escape(str(c).removeprefix("human:")) for c in cols) + r" \\")
    lines.append(r"\midrule")
    for _, row in frame.iterrows():
        cells = []
        for c in cols:
            s = _cell(row[c], decimals)
            if c in best and row[c] == best[c]:
                s = r"\textbf{" + s + "}"
            cells.append(s)
        lines.append(" & ".join(cells) + r" \\")
    lines.append(r"\bottomrule")
    lines.append(r"\end{tabular}")
    if caption is not None:
        lines.append(r"\caption{" + latex_escape(caption) + "}")
        if label:
            lines.append(r"\label{" + label + "}")
        lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"


def to_json(frame: pd.DataFrame) -> str:
    """A list of row objects; NaN becomes null."""
    rows = []
    for rec in frame.to_dict(orient="records"):
        rows.append({k: (None if isinstance(v, float) and math.isnan(v) else
                         (v.item() if isinstance(v, np.generic) else v)) for k, v in rec.items()})
    return json.dumps(rows, ensure_ascii=False, indent=1)


def signature_comments(signatures: Mapping[str, str] | None, prefix: str) -> str:
    """One comment line per measure, ``% signature bleu: nrefs:3|...`` (``prefix`` = ``%``
    for LaTeX; CSV/TSV use the sidecar :func:`signature_path` instead): every exported
    number names the options behind it."""
    if not signatures:
        return ""
    return "".join(f"{prefix} signature {m}: {sig}\n" for m, sig in signatures.items())


def signature_path(table: str | Path) -> Path:
    """The sidecar of an exported CSV/TSV table: ``STEM.signature.txt`` beside it
    (``systems.csv`` -> ``systems.signature.txt``), so the table itself is plain
    (``pandas.read_csv(file)`` reads it unmodified) and still names its options."""
    p = Path(table)
    return p.with_name(f"{p.stem}.signature.txt")


def signature_text(signatures: Mapping[str, str]) -> str:
    """The sidecar's text: one ``MEASURE: SIGNATURE`` line per measure (sacreBLEU's
    signature strings, Post 2018, section 3)."""
    return "".join(f"{m}: {sig}\n" for m, sig in signatures.items())


def suggested_path(database: Path | None, what: str, suffix: str) -> str:
    """The file name an export dialog offers: ``<database stem>.<what><suffix>`` in the
    database's folder (``.xml``/``.etdb`` dropped from the stem); ``<what><suffix>`` when
    the database has no file yet."""
    if database is None:
        return f"{what}{suffix}"
    stem = database.name.removesuffix(".xml").removesuffix(".etdb")
    return str(database.with_name(f"{stem}.{what}{suffix}"))


def write_table(frame: pd.DataFrame, path: str | Path, decimals: int = 4,
                signatures: Mapping[str, str] | None = None, **latex_kw) -> Path:
    """Write ``frame`` as .csv, .tsv, .json or .tex (booktabs), by the suffix of ``path``;
    ``latex_kw`` (e.g. ``caption``) go to :func:`to_latex` and are ignored by the others.

    ``signatures`` ({measure: signature}) go, for CSV/TSV, into the sidecar
    :func:`signature_path` (the table stays plain: ``pandas.read_csv(path)`` reads it as
    written); in LaTeX first as ``%`` comment lines; in JSON as
    ``{"signatures": ..., "rows": [...]}``.
    """
    p = Path(path)
    suffix = p.suffix.lower()
    sidecar = None
    if suffix in (".csv", ".tsv"):
        text = neutralise_formulas(frame).to_csv(
            index=False, sep="," if suffix == ".csv" else "\t",
            float_format=f"%.{max(decimals, 6)}g")
        if signatures:
            sidecar = signature_text(signatures)
    elif suffix == ".json":
        text = to_json(frame)
        if signatures:
            text = ('{"signatures": ' + json.dumps(dict(signatures), ensure_ascii=False)
                    + ',\n "rows": ' + text + "}")
    elif suffix in (".tex", ".latex"):
        text = signature_comments(signatures, "%") + to_latex(frame, decimals, **latex_kw)
    else:
        raise SaveError(f"cannot export a table as '{suffix or p.name}': use .csv, .tsv, .json "
                        "or .tex", p)
    if sidecar is not None:
        atomic_write_text(signature_path(p), sidecar)
    atomic_write_text(p, text)
    return p
