"""pyqtgraph plot components, each fed plain arrays through a small ``set_data`` contract.

* :class:`ScatterPlot` -- metric vs human with least-squares and
  least-orthogonal-squares lines (thesis 6.1.2/6.1.3) and r, rho, tau with CIs;

Legends and statistics sit in rows of the plot's own layout below the axes, so they
never cover data (and they are part of an exported image); axes are fitted to the
data, never to regression lines; an empty plot says what it is waiting for.
* :class:`CorrelationBars` -- correlation of each measure per human class
  (the thesis' result tables as a picture), with CI whiskers;
* :class:`CombinationCurve` -- r of a two-measure combination over the weight
  (thesis eq. 6.9, Figure 8.1);
* :class:`SignificanceMatrix` -- p-values between systems as a heat map;
* :class:`HistogramPlot` -- sentence score histograms per system.

:func:`export_plot` writes any of them as PNG (at print resolution, 300 dpi) or SVG.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pyqtgraph as pg
import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QImage, QTextOption

from evaltrans_qt.engine.metaeval.statistics.regression import least_squares_line, orthogonal_line
from evaltrans_qt.errors import SaveError

#: Colour-blind-safe palette (Okabe-Ito).
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442",
           "#000000"]


def _base(widget: pg.PlotWidget, name: str) -> None:
    widget.setObjectName(name)
    widget.setBackground("w")
    widget.showGrid(x=True, y=True, alpha=0.25)
    widget.setMinimumSize(160, 120)
    for ax in ("left", "bottom"):
        widget.getAxis(ax).setPen(pg.mkPen("#444"))
        widget.getAxis(ax).setTextPen(pg.mkPen("#222"))
        widget.getAxis(ax).enableAutoSIPrefix(False)
    widget._hint = pg.TextItem("", anchor=(0.5, 0.5), color="#666")
    widget._hint.setFont(QFont("Sans", 10))
    # a long hint wraps within the plot, its lines centred (never cut off at the sides)
    widget._hint.textItem.document().setDefaultTextOption(
        QTextOption(Qt.AlignmentFlag.AlignHCenter))
    widget.addItem(widget._hint, ignoreBounds=True)
    widget.getPlotItem().getViewBox().sigResized.connect(lambda *_: _place_hint(widget))


#: Rows of PlotItem's layout below the bottom axis (0 title, 1 top axis, 2 plot, 3 axis).
LEGEND_ROW, STATS_ROW = 4, 5


def _legend_below(widget: pg.PlotWidget, columns: int = 4) -> pg.LegendItem:
    """A legend in its own row under the plot (outside the data, in exports too)."""
    legend = pg.LegendItem(labelTextColor="#222", colCount=columns, frame=False,
                           labelTextSize="8pt")
    widget.getPlotItem().layout.addItem(legend, LEGEND_ROW, 1)
    widget.getPlotItem().legend = legend       # plot(name=...) adds its entry here
    return legend


def show_hint(widget: pg.PlotWidget, text: str) -> None:
    """Centre ``text`` in an empty plot (what it is waiting for); '' removes it."""
    widget._hint.setText(text)
    _place_hint(widget)
    widget._hint.setVisible(bool(text))


def _place_hint(widget: pg.PlotWidget) -> None:
    """The hint in the middle of the plot, wrapped to nine tenths of its width."""
    hint = widget._hint
    if not shiboken6.isValid(widget) or not hint.textItem.toPlainText():
        return                                   # (a resize while the plot is torn down)
    vb = widget.getPlotItem().getViewBox()
    hint.setTextWidth(max(80.0, 0.9 * float(vb.width())))
    (x0, x1), (y0, y1) = vb.viewRange()
    hint.setPos((x0 + x1) / 2, (y0 + y1) / 2)


def fit_range(widget: pg.PlotWidget, x: np.ndarray, y: np.ndarray, pad: float = 0.05) -> None:
    """Axes fitted to the data points (regression lines never stretch them)."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    x, y = x[np.isfinite(x)], y[np.isfinite(y)]
    if not len(x) or not len(y):
        return
    def span(v):
        lo, hi = float(v.min()), float(v.max())
        if hi == lo:
            lo, hi = lo - 0.5, hi + 0.5
        return lo, hi
    widget.setXRange(*span(x), padding=pad)
    widget.setYRange(*span(y), padding=pad)


class ScatterPlot(pg.PlotWidget):
    """Metric (x) against human score (y), with both regression lines and statistics."""

    def __init__(self, parent=None, name: str = "correlationPlot") -> None:
        super().__init__(parent)
        _base(self, name)
        self.legend = _legend_below(self, 2)
        self._scatter = pg.ScatterPlotItem(size=6, pen=pg.mkPen(None),
                                           brush=pg.mkBrush(0, 114, 178, 110))
        self.addItem(self._scatter)
        # the lines do not count for the axes' range: the data does (fit_range)
        self._ls = pg.PlotDataItem([], [], pen=pg.mkPen("#D55E00", width=2), name="least squares")
        self._los = pg.PlotDataItem([], [], pen=pg.mkPen("#009E73", width=2, style=Qt.DashLine),
                                    name="least orthogonal squares")
        for item in (self._ls, self._los):
            self.getPlotItem().addItem(item, ignoreBounds=True)     # (legend entry: by name)
        self.stats = pg.LabelItem("", color="#111", size="8pt", justify="left")
        self.getPlotItem().layout.addItem(self.stats, STATS_ROW, 1)
        self.x = np.zeros(0)
        self.y = np.zeros(0)
        self.lines: dict[str, tuple[float, float]] = {}
        self.has_data = False
        self.clear_data()

    hint = ("No run yet — Evaluate → Run measures (Ctrl+R): then each point is a sentence "
            "or a system, measure against human score")

    #: at most this many points get their label written beside them (system level)
    MAX_NAMED = 60

    def _clear_names(self) -> None:
        for t in getattr(self, "point_names", []):
            self.removeItem(t)
        self.point_names: list[pg.TextItem] = []

    def clear_data(self, hint: str | None = None) -> None:
        self._clear_names()
        self.x = self.y = np.zeros(0)
        self.lines = {}
        self._scatter.setData([], [])
        self._ls.setData([], [])
        self._los.setData([], [])
        self.stats.setText("")
        self.setTitle(None)
        self.has_data = False
        show_hint(self, self.hint if hint is None else hint)

    def set_data(self, x: Sequence[float], y: Sequence[float], *, xlabel: str, ylabel: str,
                 title: str = "", stats_text: str = "", labels: Sequence[str] | None = None,
                 name_points: bool = False) -> None:
        """``name_points``: write each point's label beside it (system level: the system
        names; at most :attr:`MAX_NAMED` points), not only on hover."""
        self._clear_names()
        x = np.asarray(x, dtype=float)
        y = np.asarray(y, dtype=float)
        ok = ~(np.isnan(x) | np.isnan(y))
        if name_points and labels is not None and int(ok.sum()) <= self.MAX_NAMED:
            mid = float(np.mean([x[ok].min(), x[ok].max()])) if ok.any() else 0.0
            for i in np.flatnonzero(ok):
                # right half: the name to the left of its point (never cut off at the edge)
                t = pg.TextItem(str(labels[int(i)]), color="#333",
                                anchor=(1, 1) if x[i] > mid else (0, 1))
                t.setPos(float(x[i]), float(y[i]))
                self.addItem(t, ignoreBounds=True)
                self.point_names.append(t)
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
        # statistics in their own row under the legend, one line per statistic pair
        self.stats.setText(stats_text.replace("\n", " &nbsp; · &nbsp; "))
        self.has_data = bool(len(self.x))
        show_hint(self, "" if self.has_data else "no pair of scores to plot")
        fit_range(self, self.x, self.y)


class CorrelationBars(pg.PlotWidget):
    """Grouped bars: x = measures, one bar per human class, whiskers for 95% CIs."""

    def __init__(self, parent=None, name: str = "correlationBars") -> None:
        super().__init__(parent)
        _base(self, name)
        self.legend = _legend_below(self, 3)
        self.values: dict[str, np.ndarray] = {}
        self.has_data = False
        self.clear_data()

    hint = "No run yet — Evaluate → Run measures (Ctrl+R): each measure's correlation"

    def clear_data(self, hint: str | None = None) -> None:
        self.clear()
        self.legend.clear()
        self.addItem(self._hint, ignoreBounds=True)
        self.values = {}
        self.has_data = False
        self.getAxis("bottom").setTicks(None)
        show_hint(self, self.hint if hint is None else hint)

    def set_data(self, measures: Sequence[str], values: Mapping[str, Sequence[float]],
                 lows: Mapping[str, Sequence[float]] | None = None,
                 highs: Mapping[str, Sequence[float]] | None = None, ylabel: str = "r") -> None:
        self.clear_data("")
        self.values = {k: np.asarray(v, dtype=float) for k, v in values.items()}
        self.has_data = bool(len(measures))
        n_groups = max(1, len(values))
        width = 0.8 / n_groups
        x0 = np.arange(len(measures), dtype=float)
        for g, (cls, vals) in enumerate(self.values.items()):
            xs = x0 - 0.4 + width * (g + 0.5)
            color = PALETTE[g % len(PALETTE)]
            bars = pg.BarGraphItem(x=xs, height=np.nan_to_num(vals), width=width * 0.9,
                                   brush=color, pen=pg.mkPen(color), name=cls)
            self.addItem(bars)
            if not any(lab.text == cls for _s, lab in self.legend.items):
                self.legend.addItem(bars, cls)
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
        self.has_data = False
        self.clear_data()

    hint = "Choose measures A and B, then Combine"

    def clear_data(self, hint: str | None = None) -> None:
        self._curve.setData([], [])
        self._best.setData([], [])
        self.has_data = False
        show_hint(self, self.hint if hint is None else hint)

    def set_data(self, weights: Sequence[float], r: Sequence[float], name_a: str, name_b: str) -> None:
        w = np.asarray(weights, dtype=float)
        rr = np.asarray(r, dtype=float)
        self._curve.setData(w, rr)
        if len(rr) and not np.all(np.isnan(rr)):
            i = int(np.nanargmax(rr))
            self._best.setData([w[i]], [rr[i]])
        self.setLabel("bottom", f"weight of {name_b} (0 = {name_a} only, 1 = {name_b} only)")
        self.setLabel("left", "r with human score")
        self.has_data = bool(len(w))
        show_hint(self, "")
        fit_range(self, w, rr)


#: p-value colours: p = 0 deep blue (significant) ... p >= 0.1 white.
P_STOPS = ([0.0, 0.05, 0.1, 1.0], ["#08306b", "#4292c6", "#deebf7", "#ffffff"])


class SignificanceMatrix(pg.PlotWidget):
    """N×N p-values between systems (or, ``what="measure"``, measures) as a heat map with a
    colour bar, values written in."""

    hint = "Choose a measure and press Compute"

    def __init__(self, parent=None, name: str = "significanceMatrix", what: str = "system") -> None:
        super().__init__(parent)
        _base(self, name)
        self.what = what
        self.showGrid(x=False, y=False)
        # cells as wide as the panel allows: square ones in a laptop's short dock were too
        # narrow for their p-values
        self.setAspectLocked(False)
        self.invertY(True)
        self._img = pg.ImageItem()
        self.addItem(self._img)
        self.cmap = pg.ColorMap(P_STOPS[0], [QColor(c) for c in P_STOPS[1]])
        self._img.setLookupTable(self.cmap.getLookupTable(nPts=256))
        # the colour legend: which blue means which p-value
        self.colorbar = pg.ColorBarItem(values=(0.0, 1.0), colorMap=self.cmap, label="p-value",
                                        interactive=False, width=14, colorMapMenu=False)
        self.colorbar.setImageItem(self._img, insert_in=self.getPlotItem())
        self.colorbar.getAxis("right").setTextPen(pg.mkPen("#222"))
        self.colorbar.getAxis("right").setTicks([[(v, f"{v:g}") for v in (0, 0.05, 0.1, 0.5, 1)]])
        self._texts: list[pg.TextItem] = []
        self.pvalues = np.zeros((0, 0))
        self.tooltips: list[list[str]] = []
        self.has_data = False
        self.scene().sigMouseMoved.connect(self._hover)
        self.clear_data()

    def tooltip_at(self, i: int, j: int) -> str:
        """The tooltip of cell (row i, column j): the pair, its p-value and what was given
        for it (``set_data``'s ``tooltips``, e.g. the probability that humans agree)."""
        if not (0 <= i < len(self.tooltips) and 0 <= j < len(self.tooltips[i])):
            return ""
        return self.tooltips[i][j]

    def _hover(self, pos) -> None:
        if not self.has_data:
            return
        p = self.getPlotItem().vb.mapSceneToView(pos)
        self.setToolTip(self.tooltip_at(int(np.floor(p.y())), int(np.floor(p.x()))))

    def clear_data(self, hint: str | None = None) -> None:
        for t in self._texts:
            self.removeItem(t)
        self._texts = []
        self.tooltips = []
        self.setToolTip("")
        self.pvalues = np.zeros((0, 0))
        self._img.clear()
        self.setTitle(None)
        self.has_data = False
        show_hint(self, self.hint if hint is None else hint)

    def set_data(self, systems: Sequence[str], pvalues: np.ndarray, title: str = "",
                 notes: Sequence[Sequence[str]] | None = None) -> None:
        """``notes[i][j]``: more text for the tooltip of cell (i, j), after its p-value."""
        p = np.asarray(pvalues, dtype=float)
        self.clear_data("")
        self.pvalues = p
        n = len(systems)
        self.tooltips = [["" if i == j else
                          f"{systems[i]} vs {systems[j]}: p = {p[i, j]:.4f}"
                          + (f"\n{notes[i][j]}" if notes is not None and notes[i][j] else "")
                          for j in range(n)] for i in range(n)]
        self._img.setImage(np.nan_to_num(p, nan=1.0).T, levels=(0.0, 1.0))
        self.colorbar.setLevels((0.0, 1.0))
        size = 9 if n <= 8 else 8 if n <= 12 else 7
        digits = 3 if n <= 12 else 2
        for i in range(n):
            for j in range(n):
                if i == j or np.isnan(p[i, j]):
                    continue
                bg = self.cmap.map(float(p[i, j]), mode="qcolor")
                t = pg.TextItem(f"{p[i, j]:.{digits}f}", anchor=(0.5, 0.5),
                                color="#ffffff" if bg.lightness() < 140 else "#000000")
                f = QFont("Sans", size)
                f.setBold(bool(p[i, j] < 0.05))
                t.setFont(f)
                t.setPos(j + 0.5, i + 0.5)
                self.addItem(t)
                self._texts.append(t)
        # names on the left only, numbered; the columns by number (names side by side
        # under the matrix overlapped from a handful of systems on)
        self.ticks = [(i + 0.5, f"{s}  {i + 1}") for i, s in enumerate(systems)]
        self.getAxis("left").setTicks([self.ticks])
        self.getAxis("bottom").setTicks([[(i + 0.5, str(i + 1)) for i in range(n)]])
        self.setLabel("bottom", f"{self.what} (numbered as on the left)")
        self.setTitle(title, size="9pt")
        self.has_data = n > 0
        self.setXRange(0, max(n, 1), padding=0.02)
        self.setYRange(0, max(n, 1), padding=0.02)


class HistogramPlot(pg.PlotWidget):
    """Histogram of sentence scores, one step curve per system."""

    hint = "No run yet — Evaluate → Run measures (Ctrl+R): sentence scores per system"

    def __init__(self, parent=None, name: str = "histogramPlot") -> None:
        super().__init__(parent)
        _base(self, name)
        self.legend = _legend_below(self, 4)
        self.counts: dict[str, np.ndarray] = {}
        self.has_data = False
        self.clear_data()

    def clear_data(self, hint: str | None = None) -> None:
        self.clear()
        self.legend.clear()
        self.addItem(self._hint, ignoreBounds=True)
        self.counts = {}
        self.edges = np.zeros(0)
        self.has_data = False
        show_hint(self, self.hint if hint is None else hint)

    def set_data(self, values_by_system: Mapping[str, Sequence[float]], xlabel: str, bins: int = 30) -> None:
        self.clear_data("")
        allv = np.concatenate([np.asarray(v, dtype=float) for v in values_by_system.values()]) \
            if values_by_system else np.zeros(0)
        allv = allv[~np.isnan(allv)]
        if not len(allv):
            show_hint(self, "no values")
            return
        edges = self.edges = np.histogram_bin_edges(allv, bins=bins)
        top = 0
        for k, (name, v) in enumerate(values_by_system.items()):
            v = np.asarray(v, dtype=float)
            counts, _ = np.histogram(v[~np.isnan(v)], bins=edges)
            self.counts[name] = counts
            top = max(top, int(counts.max()) if len(counts) else 0)
            self.plot(edges, counts, stepMode="center",
                      pen=pg.mkPen(PALETTE[k % len(PALETTE)], width=2), name=name)
        self.setLabel("bottom", xlabel)
        self.setLabel("left", "sentences")
        self.has_data = True
        fit_range(self, edges, np.array([0.0, float(top)]))


#: Width in pixels of an exported PNG: 8 inches at 300 dpi (print resolution).
PRINT_WIDTH = 2400
PRINT_DPI = 300


def _file_mode() -> int:
    """0666 minus the process' umask: what an ordinary new file gets (mkstemp gives 0600)."""
    um = os.umask(0)
    os.umask(um)
    return 0o666 & ~um


def export_plot(widget: pg.PlotWidget, path: str | Path, width: int = PRINT_WIDTH) -> Path:
    """Write a plot as PNG (raster, ``width`` pixels, 300 dpi) or SVG (vector), by suffix.

    The PNG is the plot drawn again at the larger size (not a screen grab scaled up), so
    text and lines stay sharp. Written to a temporary file beside ``path`` and renamed
    over it only when complete, so a failed export never leaves a half file or passes
    off an old one; the file gets the permissions of any new file (0666 minus umask).
    """
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
            ok = render_image(widget, width).save(tmp)
        if not ok:
            raise SaveError("the plot could not be rendered to the file", p)
        os.chmod(tmp, _file_mode())
        os.replace(tmp, p)
    except OSError as exc:
        raise SaveError(f"could not write plot: {exc}", p) from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return p


def render_image(widget, width: int = PRINT_WIDTH) -> QImage:
    """The widget drawn into an image ``width`` pixels wide at :data:`PRINT_DPI`: painted as
    on a high-density screen (device pixel ratio width / widget width), so text, lines and
    legends scale together and stay sharp."""
    from PySide6.QtGui import QPixmap
    from PySide6.QtWidgets import QWidget
    size = widget.size()
    w0, h0 = max(size.width(), 1), max(size.height(), 1)
    ratio = max(width / w0, 1.0)
    pm = QPixmap(int(round(w0 * ratio)), int(round(h0 * ratio)))
    pm.setDevicePixelRatio(ratio)
    pm.fill(QColor("white"))
    QWidget.render(widget, pm)             # (QGraphicsView.render takes a painter)
    img = pm.toImage()
    img.setDevicePixelRatio(1.0)
    dpm = int(round(PRINT_DPI / 0.0254))
    img.setDotsPerMeterX(dpm)
    img.setDotsPerMeterY(dpm)
    return img


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
