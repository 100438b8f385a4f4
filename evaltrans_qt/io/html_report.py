"""A self-contained HTML report of an analysis (``engine.analysis.pairwise.AnalysisResult``):
one file that opens in any browser without a network.

Everything is in the page: the style sheet inline, every chart an inline ``<svg>`` drawn
here (grouped bars with the bootstrap intervals as whiskers), no script, no image, no link
or source that leaves the page. Sections (``<section id=...>``): ``summary``, ``scores``,
``word-accuracy``, ``label-accuracy`` (with label files), ``length-buckets``,
``lengthdiff-buckets``, ``score-buckets``, ``error-classes`` (when computed), ``ngrams``,
``examples`` and ``signatures``. Each table and chart carries the signature of its numbers
(``data-signature`` and a visible line). Example sentences mark every word by its edit
against the reference (``<span class="e-m">`` match, ``e-s`` substitution, ``e-i``
insertion in the output, ``e-d`` deletion from the reference), the colours explained in a
legend.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from html import escape
from typing import TYPE_CHECKING

import numpy as np

from evaltrans_qt.io.atomic import atomic_write_text

if TYPE_CHECKING:
    import pandas as pd

    from evaltrans_qt.engine.analysis.pairwise import AnalysisResult

#: Bar colours of the systems, in order (colour-blind-safe Okabe-Ito palette).
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442",
           "#000000")
EDIT_CLASSES = {"=": "e-m", "S": "e-s", "I": "e-i", "D": "e-d"}
EDIT_NAMES = {"e-m": "match", "e-s": "substitution", "e-i": "inserted (output only)",
              "e-d": "missing (reference only)"}

CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:2em auto;
max-width:1100px;color:#222;line-height:1.4;padding:0 1em}
h1{font-size:1.6em}h2{font-size:1.25em;border-bottom:1px solid #ccc;padding-bottom:.2em;
margin-top:2em}h3{font-size:1.05em}
table{border-collapse:collapse;margin:.6em 0;font-size:.9em}
th,td{border:1px solid #ddd;padding:.25em .6em;text-align:right}
th{background:#f3f3f3}td.t,th.t{text-align:left}
.sig{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.75em;color:#555;
word-break:break-all}
.chart{margin:.5em 0}.chart text{font-size:11px;fill:#333}
.ex{margin:.8em 0 1.2em 0}.ex td{text-align:left;vertical-align:top}
.e-m{background:#d8f0d8}.e-s{background:#fbe3b5}.e-i{background:#f6c4c4;
text-decoration:underline}.e-d{background:#c9ddf5;text-decoration:line-through}
.w{padding:0 .15em;border-radius:2px;margin:0 .05em;display:inline-block}
.legend span{margin-right:1em}
"""


def _fmt(value: object, spec: str = ".4f") -> str:
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return str(int(value))
    try:
        v = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return escape(str(value))
    if math.isnan(v):
        return "&ndash;"
    return format(v, spec)


def _sig(signature: str) -> str:
    return f'<p class="sig" data-signature="{escape(signature)}">{escape(signature)}</p>'


# ------------------------------------------------------------------ charts
def nice_step(span: float, most: int = 6) -> float:
    """A tick step of 1, 2 or 5 times a power of ten giving at most ``most`` intervals over
    ``span`` (1 for an empty span)."""
    if not span > 0 or not math.isfinite(span):
        return 1.0
    base = 10 ** math.floor(math.log10(span / most))
    for m in (1, 2, 5, 10):
        if span / (m * base) <= most:
            return m * base
    return 10 * base


def bar_chart(categories: Sequence[str], series: Mapping[str, Sequence[float]],
              intervals: Mapping[str, Sequence[tuple[float, float]]] | None = None, *,
              ylabel: str = "", width: int = 760, height: int = 260) -> str:
    """An inline SVG of grouped bars: one group per category, one bar per series (system),
    whiskers from ``intervals`` where they are finite."""
    left, right, top, bottom = 56, 12, 14, 58
    pw, ph = width - left - right, height - top - bottom
    values = [v for vs in series.values() for v in vs if v is not None and math.isfinite(v)]
    if intervals:
        values += [x for iv in intervals.values() for pair in iv for x in pair
                   if x is not None and math.isfinite(x)]
    step = nice_step(max(values + [0.0]) - min(values + [0.0]))
    vmax = step * math.ceil(max(values + [0.0]) / step)
    vmin = step * math.floor(min(values + [0.0]) / step)
    if vmax == vmin:
        vmax = vmin + step
    span = vmax - vmin
    ticks = int(round(span / step))

    def y(v: float) -> float:
        return top + ph * (vmax - v) / span

    parts = [f'<svg class="chart" width="{width}" height="{height}" role="img" '
             f'viewBox="0 0 {width} {height}" aria-label="{escape(ylabel)}">']
    for k in range(ticks + 1):                               # grid and axis labels
        v = vmin + step * k
        parts.append(f'<line x1="{left}" x2="{width - right}" y1="{y(v):.1f}" '
                     f'y2="{y(v):.1f}" stroke="#e5e5e5"/>')
        parts.append(f'<text x="{left - 6}" y="{y(v) + 4:.1f}" text-anchor="end">'
                     f'{float(f"{v:.10g}"):g}</text>')
    parts.append(f'<line x1="{left}" x2="{width - right}" y1="{y(0):.1f}" y2="{y(0):.1f}" '
                 'stroke="#888"/>')
    n_cat, n_ser = max(len(categories), 1), max(len(series), 1)
    group = pw / n_cat
    bar = group * 0.8 / n_ser
    for c, cat in enumerate(categories):
        x0 = left + c * group + group * 0.1
        for s, (name, vals) in enumerate(series.items()):
            v = vals[c]
            colour = PALETTE[s % len(PALETTE)]
            x = x0 + s * bar
            if v is not None and math.isfinite(v):
                y1, y2 = sorted((y(v), y(0)))
                parts.append(f'<rect x="{x:.1f}" y="{y1:.1f}" width="{max(bar - 1, 1):.1f}" '
                             f'height="{max(y2 - y1, 0.5):.1f}" fill="{colour}">'
                             f'<title>{escape(name)} {escape(cat)}: {_fmt(v)}</title></rect>')
            iv = intervals.get(name) if intervals else None
            if iv is not None:
                lo, hi = iv[c]
                if lo is not None and hi is not None and math.isfinite(lo) and math.isfinite(hi):
                    xm = x + bar / 2
                    parts.append(f'<path d="M{xm:.1f} {y(lo):.1f}V{y(hi):.1f}M{xm - 3:.1f} '
                                 f'{y(lo):.1f}h6M{xm - 3:.1f} {y(hi):.1f}h6" stroke="#222" '
                                 'fill="none"/>')
        parts.append(f'<text x="{x0 + group * 0.4:.1f}" y="{top + ph + 14}" '
                     f'text-anchor="middle">{escape(cat)}</text>')
    lx = left
    for s, name in enumerate(series):                        # legend
        parts.append(f'<rect x="{lx}" y="{height - 18}" width="10" height="10" '
                     f'fill="{PALETTE[s % len(PALETTE)]}"/>')
        parts.append(f'<text x="{lx + 14}" y="{height - 9}">{escape(name)}</text>')
        lx += 24 + 7 * len(name)
    parts.append(f'<text x="12" y="{top + ph / 2:.1f}" transform="rotate(-90 12 '
                 f'{top + ph / 2:.1f})" text-anchor="middle">{escape(ylabel)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _bucket_chart(frame: pd.DataFrame, systems: Sequence[str], value: str, ylabel: str,
                  low: str | None = None, high: str | None = None) -> str:
    cats = list(frame[frame.system == systems[0]].bucket)
    series = {s: [float(v) for v in frame[frame.system == s][value]] for s in systems}
    intervals = None
    if low and high:
        intervals = {s: list(zip((float(v) for v in frame[frame.system == s][low]),
                                 (float(v) for v in frame[frame.system == s][high])))
                     for s in systems}
    return bar_chart(cats, series, intervals, ylabel=ylabel)


# ------------------------------------------------------------------ tables
def _bucket_table(frame: pd.DataFrame, systems: Sequence[str], value: str,
                  count: str | None = None, spec: str = ".4f",
                  low: str | None = None, high: str | None = None) -> str:
    first = frame[frame.system == systems[0]]
    head = '<tr><th class="t">bucket</th>' + (f"<th>{escape(count)}</th>" if count else "") \
        + "".join(f"<th>{escape(s)}</th>" for s in systems) + "</tr>"
    rows = [head]
    for b in first.bucket:
        cells = [f'<td class="t">{escape(str(b))}</td>']
        if count:
            cells.append(f"<td>{_fmt(first[first.bucket == b][count].iloc[0], '.0f')}</td>")
        for s in systems:
            row = frame[(frame.system == s) & (frame.bucket == b)].iloc[0]
            text = _fmt(row[value], spec)
            if low and high and math.isfinite(float(row[low])):
                text += f' <small>[{_fmt(row[low], spec)}, {_fmt(row[high], spec)}]</small>'
            cells.append(f"<td>{text}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return "<table>" + "".join(rows) + "</table>"


def _frame_table(frame: pd.DataFrame, columns: Sequence[str]) -> str:
    head = "".join(f'<th class="{"t" if i == 0 else ""}">{escape(c)}</th>'
                   for i, c in enumerate(columns))
    body = []
    for _, row in frame.iterrows():
        cells = []
        for i, c in enumerate(columns):
            v = row[c]
            text = escape(str(v)) if isinstance(v, str) else _fmt(v)
            cells.append(f'<td class="{"t" if i == 0 else ""}">{text}</td>')
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><tr>{head}</tr>{''.join(body)}</table>"


def highlighted(words: Sequence[str], marks: Sequence[str]) -> str:
    """``words`` as spans coloured by their edit marks (``=``/``S``/``I``/``D``)."""
    return " ".join(f'<span class="w {EDIT_CLASSES.get(m, "e-m")}" '
                    f'title="{EDIT_NAMES[EDIT_CLASSES.get(m, "e-m")]}">{escape(w)}</span>'
                    for w, m in zip(words, marks))


def _legend() -> str:
    return '<p class="legend">' + "".join(
        f'<span><span class="w {c}">{escape(n)}</span></span>'
        for c, n in EDIT_NAMES.items()) + "</p>"


# ------------------------------------------------------------------ the page
def _section(ident: str, title: str, body: str) -> str:
    return f'<section id="{ident}"><h2>{escape(title)}</h2>{body}</section>'


def render_html(result: AnalysisResult, title: str | None = None) -> str:
    """The report as one HTML string (module doc)."""
    r = result
    systems = list(r.systems)
    sig_m, sig_b, sig_w = (r.signatures["measure"], r.signatures["bootstrap"],
                           r.signatures["words"])
    title = title or f"Analysis of {', '.join(systems)}"
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>{escape(title)}</title><style>{CSS}</style></head><body>",
           f"<h1>{escape(title)}</h1>"]
    out.append(_section("summary", "Summary", (
        f"<p>{len(systems)} systems ({escape(', '.join(systems))}) on {r.n_sentences} "
        f"sentences against one reference ({escape(str(r.meta.get('reference')))}), "
        f"tokenisation {escape(str(r.meta.get('tokenization')))}, case "
        f"{escape(str(r.meta.get('case')))}. Measure: {escape(r.measure_name)}. Buckets, "
        "formulas and defaults are compare-mt 0.2.10's (Neubig et al. 2019).</p>")))
    scores = r.scores
    out.append(_section("scores", "Aggregate scores", (
        bar_chart(systems, {s: [float(scores[scores.system == s].score.iloc[0]) if t == s
                                else math.nan for t in systems] for s in systems},
                  {s: [(float(scores[scores.system == s]["low"].iloc[0]),
                        float(scores[scores.system == s]["high"].iloc[0])) if t == s
                       else (math.nan, math.nan) for t in systems] for s in systems},
                  ylabel=r.measure)
        + _frame_table(scores, ["system", "score", "mean", "low", "high", "p_value",
                                "length_ratio"])
        + "<p>p: paired bootstrap against the first system (sacreBLEU's statistic, Koehn "
          "2004); low/high: 95% bootstrap interval.</p>"
        + "<h3>p-values between all systems</h3>"
        + _frame_table(r.significance.reset_index().rename(columns={"index": "system"}),
                       ["system", *systems])
        + _sig(sig_b))))
    out.append(_section("word-accuracy", "Word accuracy by frequency", (
        f"<p>F-measure of reference words by their frequency in the "
        f"{escape(r.settings.frequency_source)} (compare-mt's buckets); whiskers: 95% "
        "bootstrap intervals.</p>"
        + _bucket_chart(r.word_accuracy, systems, "fmeas", "F-measure", "fmeas_low",
                        "fmeas_high")
        + _bucket_table(r.word_accuracy, systems, "fmeas", "ref_words", ".4f", "fmeas_low",
                        "fmeas_high") + _sig(sig_w))))
    if r.label_accuracy is not None:
        known = bool(r.label_accuracy.fmeas.notna().any())
        value = "fmeas" if known else "recall"
        out.append(_section("label-accuracy", "Word accuracy by label", (
            _bucket_chart(r.label_accuracy, systems, value,
                          "F-measure" if known else "recall",
                          "fmeas_low" if known else None, "fmeas_high" if known else None)
            + _bucket_table(r.label_accuracy, systems, value, "ref_words")
            + _sig(sig_w + "|labels"))))
    out.append(_section("length-buckets", "Score by reference length", (
        _bucket_chart(r.length_buckets, systems, "score", r.measure, "low", "high")
        + _bucket_table(r.length_buckets, systems, "score", "sentences", ".4f", "low", "high")
        + _sig(sig_b))))
    out.append(_section("lengthdiff-buckets", "Sentences by length difference", (
        "<p>Output length minus reference length, in words.</p>"
        + _bucket_chart(r.lengthdiff_buckets, systems, "sentences", "sentences")
        + _bucket_table(r.lengthdiff_buckets, systems, "sentences", None, ".0f")
        + _sig(sig_w))))
    out.append(_section("score-buckets", "Sentences by sentence-level score", (
        _bucket_chart(r.score_buckets, systems, "sentences", "sentences")
        + _bucket_table(r.score_buckets, systems, "sentences", None, ".0f")
        + _sig(sig_m))))
    if r.error_classes is not None:
        out.append(_section("error-classes", "Error classes", _error_classes(r)))
    out.append(_section("ngrams", "Characteristic n-grams", _ngrams(r) + _sig(sig_w)))
    out.append(_section("examples", "Sentence examples", _legend() + _examples(r) + _sig(sig_m)))
    out.append(_section("signatures", "Signatures", "".join(
        f"<h3>{escape(k)}</h3>{_sig(v)}" for k, v in r.signatures.items())))
    out.append("</body></html>")
    return "\n".join(out)


#: The five rates Hjerson sums (SUMerr) and their names in the chart.
ERROR_CHART = (("hyp_infl_rate", "inflection"), ("hyp_reord_rate", "reordering"),
               ("miss_rate", "missing"), ("ext_rate", "extra"), ("hyp_lex_rate", "lexical"))


def _error_classes(r: AnalysisResult) -> str:
    from evaltrans_qt.engine.analysis.error_classes_corpus import hjerson_table
    assert r.error_classes is not None
    frame = r.error_classes.set_index("system")
    systems = list(frame.index)
    chart = bar_chart([name for _, name in ERROR_CHART],
                      {s: [float(frame.loc[s, col]) for col, _ in ERROR_CHART] for s in systems},
                      ylabel="rate")
    table = hjerson_table(frame).T.reset_index().rename(columns={"index": "rate"})
    return ("<p>Automatic error classification (Popović &amp; Ney 2011, as Hjerson): each "
            "word of output and reference is an inflectional, reordering, missing, extra or "
            "lexical error; rates are counts over the reference or output length, the "
            "<i>b</i> variants count blocks of consecutive errors.</p>"
            + chart + _frame_table(table, ["rate", *systems])
            + _sig(r.signatures.get("error_classes", "")))


def _ngrams(r: AnalysisResult) -> str:
    if not len(r.ngrams):
        return "<p>(one system: nothing to compare)</p>"
    parts = []
    for (a, b), frame in r.ngrams.groupby(["system_a", "system_b"], sort=False):
        for better in (a, b):
            rows = frame[frame.better == better]
            parts.append(f"<h3>{len(rows)} n-grams {escape(better)} matches more often "
                         f"({escape(a)} vs {escape(b)})</h3>")
            parts.append(_frame_table(rows.rename(columns={"count_a": a, "count_b": b}),
                                      ["ngram", "ratio", a, b]))
    return "".join(parts)


def _examples(r: AnalysisResult) -> str:
    if not len(r.examples):
        return "<p>(one system: nothing to compare)</p>"
    parts = []
    for (a, b), frame in r.examples.groupby(["system_a", "system_b"], sort=False):
        for better in (a, b):
            rows = frame[frame.better == better]
            parts.append(f"<h3>{len(rows)} sentences where {escape(better)} is better "
                         f"({escape(a)} vs {escape(b)})</h3>")
            for _, row in rows.iterrows():
                src = f"<tr><th class=\"t\">source</th><td>{escape(row.source)}</td>" \
                      "<td></td></tr>" if row.source else ""
                parts.append(
                    f'<table class="ex" data-segment="{escape(str(row.segment))}">'
                    f'<tr><th class="t">segment {escape(str(row.segment))}</th>'
                    f"<th class=\"t\">{escape(a)} &minus; {escape(b)} = {_fmt(row['diff'])}"
                    f"</th><th>score</th></tr>{src}"
                    f'<tr><th class="t">reference vs {escape(a)}</th>'
                    f"<td>{highlighted(row.reference, row.ref_edits_a)}</td><td></td></tr>"
                    f'<tr><th class="t">{escape(a)}</th>'
                    f"<td>{highlighted(row.output_a, row.edits_a)}</td>"
                    f"<td>{_fmt(row.score_a)}</td></tr>"
                    f'<tr><th class="t">reference vs {escape(b)}</th>'
                    f"<td>{highlighted(row.reference, row.ref_edits_b)}</td><td></td></tr>"
                    f'<tr><th class="t">{escape(b)}</th>'
                    f"<td>{highlighted(row.output_b, row.edits_b)}</td>"
                    f"<td>{_fmt(row.score_b)}</td></tr></table>")
    return "".join(parts)


def write_html_report(result: AnalysisResult, path: str | os.PathLike[str],
                      title: str | None = None) -> None:
    """Write :func:`render_html` to ``path`` atomically (UTF-8)."""
    atomic_write_text(path, render_html(result, title))
