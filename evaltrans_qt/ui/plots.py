"""pyqtgraph plot components, each fed plain arrays through a small ``set_data`` contract.

* :class:`ScatterPlot` -- metric vs human with least-squares and
  least-orthogonal-squares lines (thesis 6.1.2/6.1.3) and r, rho, tau with CIs;
* :class:`CorrelationBars` -- correlation of each measure per human class
  (the thesis' result tables as a picture), with CI whiskers;
* :class:`CombinationCurve` -- r of a two-measure combination over the weight
  (thesis eq. 6.9, Figure 8.1);
* :class:`SignificanceMatrix` -- p-values between systems as a heat map;
* :class:`HistogramPlot` -- sentence score histograms per system.

:func:`export_plot` writes any of them as PNG or SVG.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont

from evaltrans_qt.engine.correlation import least_squares_line, orthogonal_line
from evaltrans_qt.errors import SaveError

#: Colour-blind-safe palette (Okabe-Ito).
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442",
           "#000000"]


def _base(widget: pg.PlotWidget, name: str) -> None:
    widget.setObjectName(name)
    widget.setBackground("w")
    widget.showGrid(x=True, y=True, alpha=0.25)
    for ax in ("left", "bottom"):
        widget.getAxis(ax).setPen(pg.mkPen("#444"))
        widget.getAxis(ax).setTextPen(pg.mkPen("#222"))
        widget.getAxis(ax).enableAutoSIPrefix(False)


class ScatterPlot(pg.PlotWidget):
    """Metric (x) against human score (y), with both regression lines and statistics."""

    def __init__(self, parent=None, name: str = "correlationPlot") -> None:
        super().__init__(parent)
        _base(self, name)
        self.addLegend(offset=(10, 10), labelTextColor="#222")
        self._scatter = pg.ScatterPlotItem(size=6, pen=pg.mkPen(None),
                                           brush=pg.mkBrush(0, 114, 178, 110))
        self.addItem(self._scatter)
        self._ls = self.plot([], [], pen=pg.mkPen("#D55E00", width=2), name="least squares")
        self._los = self.plot([], [], pen=pg.mkPen("#009E73", width=2, style=Qt.DashLine),
                              name="least orthogonal squares")
        self._text = pg.TextItem(anchor=(0, 0), color="#111")
        self._text.setFont(QFont("Sans", 9))
        self.addItem(self._text, ignoreBounds=True)
        self.x = np.zeros(0)
        self.y = np.zeros(0)
        self.lines: dict[str, tuple[float, float]] = {}

    def set_data(self, x: Sequence[float], y: Sequence[float], *, xlabel: str, ylabel: str,
                 title: str = "", stats_text: str = "", labels: Sequence[str] | None = None) -> None:
        x = np.asarray(x, dtype=float)
        y = np.asarray(y, dtype=float)
        ok = ~(np.isnan(x) | np.isnan(y))
        self.x, self.y = x[ok], y[ok]
        big = len(self.x) > 2000
        # hover labels: point data is the row index, formatted only when hovered
        self._labels = labels
        self._scatter.setData(self.x, self.y, size=4 if big else 8,
                              data=None if labels is None else np.flatnonzero(ok),
                              hoverable=labels is not None,
                              tip=(lambda x, y, data: f"{self._labels[int(data)]}\n{x:.4g}, {y:.4g}")
                              if labels is not None else None)
        self.setLabel("bottom", xlabel)
        self.setLabel("left", ylabel)
        self.setTitle(title)
        self.lines = {}
        if len(self.x) >= 2 and np.ptp(self.x) > 0:
            xs = np.array([self.x.min(), self.x.max()])
            b, a = least_squares_line(self.x, self.y)
            self._ls.setData(xs, a * xs + b)
            self.lines["least squares"] = (a, b)
            b2, a2, _ = orthogonal_line(self.x, self.y)
            if np.isfinite(a2):
                self._los.setData(xs, a2 * xs + b2)
                self.lines["least orthogonal squares"] = (a2, b2)
            else:
                self._los.setData([], [])
        else:
            self._ls.setData([], [])
            self._los.setData([], [])
        self._text.setText(stats_text)
        if len(self.x):
            self._text.setPos(float(self.x.min()), float(self.y.max()))
        self.autoRange()


class CorrelationBars(pg.PlotWidget):
    """Grouped bars: x = measures, one bar per human class, whiskers for 95% CIs."""

    def __init__(self, parent=None, name: str = "correlationBars") -> None:
        super().__init__(parent)
        _base(self, name)
        self.addLegend(offset=(-10, 10), labelTextColor="#222", brush=pg.mkBrush(255, 255, 255, 220))
        self.values: dict[str, np.ndarray] = {}

    def set_data(self, measures: Sequence[str], values: Mapping[str, Sequence[float]],
                 lows: Mapping[str, Sequence[float]] | None = None,
                 highs: Mapping[str, Sequence[float]] | None = None, ylabel: str = "r") -> None:
        self.clear()
        self.values = {k: np.asarray(v, dtype=float) for k, v in values.items()}
        n_groups = max(1, len(values))
        width = 0.8 / n_groups
        x0 = np.arange(len(measures), dtype=float)
        for g, (cls, vals) in enumerate(self.values.items()):
            xs = x0 - 0.4 + width * (g + 0.5)
            color = PALETTE[g % len(PALETTE)]
            self.addItem(pg.BarGraphItem(x=xs, height=np.nan_to_num(vals), width=width * 0.9,
                                         brush=color, pen=pg.mkPen(color), name=cls))
            if lows is not None and highs is not None and cls in lows:
                lo = np.asarray(lows[cls], dtype=float)
                hi = np.asarray(highs[cls], dtype=float)
                ok = ~(np.isnan(lo) | np.isnan(hi) | np.isnan(vals))
                if ok.any():
                    self.addItem(pg.ErrorBarItem(x=xs[ok], y=vals[ok], top=hi[ok] - vals[ok],
                                                 bottom=vals[ok] - lo[ok], beam=width * 0.4,
                                                 pen=pg.mkPen("#222")))
        ax = self.getAxis("bottom")
        ax.setTicks([[(float(i), m) for i, m in enumerate(measures)]])
        self.setLabel("left", ylabel)
        self.addLine(y=0, pen=pg.mkPen("#888"))
        self.autoRange()


class CombinationCurve(pg.PlotWidget):
    """Correlation of (1-w)·A + w·B with the human score over w in [0, 1] (Figure 8.1)."""

    def __init__(self, parent=None, name: str = "combinationPlot") -> None:
        super().__init__(parent)
        _base(self, name)
        self._curve = self.plot([], [], pen=pg.mkPen(PALETTE[0], width=2))
        self._best = pg.ScatterPlotItem(size=10, brush=pg.mkBrush(PALETTE[5]))
        self.addItem(self._best)

    def set_data(self, weights: Sequence[float], r: Sequence[float], name_a: str, name_b: str) -> None:
        w = np.asarray(weights, dtype=float)
        rr = np.asarray(r, dtype=float)
        self._curve.setData(w, rr)
        if len(rr) and not np.all(np.isnan(rr)):
            i = int(np.nanargmax(rr))
            self._best.setData([w[i]], [rr[i]])
        self.setLabel("bottom", f"weight of {name_b} (0 = {name_a} only, 1 = {name_b} only)")
        self.setLabel("left", "r with human score")
        self.autoRange()


class SignificanceMatrix(pg.PlotWidget):
    """N×N p-values between systems as a heat map (dark = significant), values written in."""

    def __init__(self, parent=None, name: str = "significanceMatrix") -> None:
        super().__init__(parent)
        _base(self, name)
        self.setAspectLocked(True)
        self.invertY(True)
        self._img = pg.ImageItem()
        self.addItem(self._img)
        # p = 0 -> deep blue (significant), p >= 0.1 -> white
        self._img.setLookupTable(pg.ColorMap([0.0, 0.05, 0.1, 1.0],
                                             [QColor("#08306b"), QColor("#4292c6"),
                                              QColor("#deebf7"), QColor("#ffffff")]).getLookupTable(nPts=256))
        self._texts: list[pg.TextItem] = []
        self.pvalues = np.zeros((0, 0))

    def set_data(self, systems: Sequence[str], pvalues: np.ndarray, title: str = "") -> None:
        p = np.asarray(pvalues, dtype=float)
        self.pvalues = p
        for t in self._texts:
            self.removeItem(t)
        self._texts = []
        n = len(systems)
        self._img.setImage(np.nan_to_num(p, nan=1.0).T, levels=(0.0, 1.0))
        for i in range(n):
            for j in range(n):
                if i == j or np.isnan(p[i, j]):
                    continue
                t = pg.TextItem(f"{p[i, j]:.3f}", anchor=(0.5, 0.5),
                                color="#fff" if p[i, j] < 0.05 else "#111")
                t.setFont(QFont("Sans", 7))
                t.setPos(j + 0.5, i + 0.5)
                self.addItem(t)
                self._texts.append(t)
        ticks = [(i + 0.5, s) for i, s in enumerate(systems)]
        self.getAxis("bottom").setTicks([ticks])
        self.getAxis("left").setTicks([ticks])
        self.setTitle(title)
        self.autoRange()


class HistogramPlot(pg.PlotWidget):
    """Histogram of sentence scores, one step curve per system."""

    def __init__(self, parent=None, name: str = "histogramPlot") -> None:
        super().__init__(parent)
        _base(self, name)
        self.addLegend(offset=(10, 10), labelTextColor="#222")
        self.counts: dict[str, np.ndarray] = {}

    def set_data(self, values_by_system: Mapping[str, Sequence[float]], xlabel: str, bins: int = 30) -> None:
        self.clear()
        self.counts = {}
        allv = np.concatenate([np.asarray(v, dtype=float) for v in values_by_system.values()]) \
            if values_by_system else np.zeros(0)
        allv = allv[~np.isnan(allv)]
        if not len(allv):
            return
        edges = np.histogram_bin_edges(allv, bins=bins)
        for k, (name, v) in enumerate(values_by_system.items()):
            v = np.asarray(v, dtype=float)
            counts, _ = np.histogram(v[~np.isnan(v)], bins=edges)
            self.counts[name] = counts
            self.plot(edges, counts, stepMode="center",
                      pen=pg.mkPen(PALETTE[k % len(PALETTE)], width=2), name=name)
        self.setLabel("bottom", xlabel)
        self.setLabel("left", "sentences")
        self.autoRange()


def export_plot(widget: pg.PlotWidget, path: str | Path, width: int = 1200) -> Path:
    """Write a plot as PNG (raster) or SVG (vector), chosen by the file suffix.

    Written to a temporary file beside ``path`` and renamed over it only when
    complete, so a failed export never leaves a half file or passes off an old one.
    """
    import os
    import tempfile
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix not in (".svg", ".png", ".jpg", ".jpeg"):
        raise SaveError(f"cannot export a plot as '{suffix or p.name}': use .png or .svg", p)
    try:
        fd, tmp = tempfile.mkstemp(prefix=p.name + ".", suffix=suffix, dir=p.parent)
        os.close(fd)
    except OSError as exc:
        raise SaveError(f"could not write plot: {exc}", p) from None
    try:
        if suffix == ".svg":
            _export_svg(widget, Path(tmp))
            ok = Path(tmp).stat().st_size > 0
        else:
            img = widget.grab().toImage()
            if img.width() and img.width() != width:
                img = img.scaledToWidth(width, Qt.SmoothTransformation)
            ok = img.save(tmp)
        if not ok:
            raise SaveError("the plot could not be rendered to the file", p)
        os.replace(tmp, p)
    except OSError as exc:
        raise SaveError(f"could not write plot: {exc}", p) from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return p


def _export_svg(widget: pg.PlotWidget, path: Path) -> None:
    """Vector export through Qt's QSvgGenerator.

    pyqtgraph's own SVGExporter cannot parse the path data of current Qt
    versions (pyqtgraph issue #3485: "x,y = c.split(',')" fails), so the
    widget is painted straight into an SVG generator instead.
    """
    from PySide6.QtCore import QRect
    from PySide6.QtGui import QPainter
    from PySide6.QtSvg import QSvgGenerator
    size = widget.size()
    gen = QSvgGenerator()
    gen.setFileName(str(path))
    gen.setSize(size)
    gen.setViewBox(QRect(0, 0, size.width(), size.height()))
    gen.setTitle(widget.objectName())
    painter = QPainter(gen)
    try:
        widget.render(painter)
    finally:
        painter.end()
