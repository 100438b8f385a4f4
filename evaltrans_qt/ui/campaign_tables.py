"""Campaign → QC report and Campaign → Agreement: the reports of
:func:`evaltrans_qt.io.campaign_qc.qc_report` and
:func:`evaltrans_qt.engine.campaign.agreement.campaign_agreement` as tables (Qt
model/view: :class:`RowsModel`, one row per annotator, class, pair…), the numbers exactly
as the reports hold them (``evaltrans campaign qc`` / ``agreement`` print the same).

Stable object names: ``campaignReportDialog``, its tabs' tables ``table_<tab>``
(``table_qc``, ``table_classes``, ``table_pairs``, ``table_spans``), ``reportNote``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

Cell = str | float | int | bool | None
FAIL_BRUSH = QBrush(QColor(255, 205, 205))
PASS_BRUSH = QBrush(QColor(205, 240, 205))


def cell_text(v: Cell) -> str:
    """How a cell shows: numbers with 4 significant digits, NaN/None as a dash."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


class RowsModel(QAbstractTableModel):
    """A read-only table of rows of cells; a cell's tooltip from ``tips`` (same shape,
    optional); a row whose ``status`` is False is shaded as failed, True as passed."""

    def __init__(self, headers: Sequence[str], rows: Sequence[Sequence[Cell]],
                 tips: Sequence[Sequence[str]] | None = None,
                 status: Sequence[bool | None] | None = None, parent=None) -> None:
        super().__init__(parent)
        self.headers = list(headers)
        self.rows = [list(r) for r in rows]
        self.tips = [list(t) for t in tips] if tips is not None else None
        self.status = list(status) if status is not None else None

    def rowCount(self, parent: Any = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Any = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.headers)

    def data(self, index: Any, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        v = self.rows[index.row()][index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return cell_text(v)
        if role == Qt.ItemDataRole.UserRole:
            return v
        if role == Qt.ItemDataRole.ToolTipRole and self.tips is not None:
            return self.tips[index.row()][index.column()] or None
        if role == Qt.ItemDataRole.TextAlignmentRole and isinstance(v, (int, float)) \
                and not isinstance(v, bool):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.BackgroundRole and self.status is not None:
            s = self.status[index.row()]
            return None if s is None else (PASS_BRUSH if s else FAIL_BRUSH)
        return None

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return self.headers[section]
        return None


# ------------------------------------------------------------------ QC
def qc_model(report: Any) -> RowsModel:
    """One row per collected annotator of a :class:`~evaltrans_qt.io.campaign_qc.QCReport`:
    the outcome, items done of assigned, median seconds per item, each check's outcome
    (its detail as the tooltip) and the reasons of a failure."""
    names: list[str] = []
    for a in report.annotators:
        for c in a.checks:
            if c.name not in names:
                names.append(c.name)
    rows, tips, status = [], [], []
    for a in report.annotators:
        by = {c.name: c for c in a.checks}
        cells: list[Cell] = [a.annotator, "PASS" if a.passed else "FAIL", a.done, a.assigned,
                             a.median_seconds]
        tip = ["", "; ".join(a.reasons), "", "", ""]
        for n in names:
            c = by.get(n)
            cells.append("–" if c is None else {True: "ok", False: "FAIL", None: "n/a"}[c.passed])
            tip.append("" if c is None else c.detail)
        cells.append("; ".join(a.reasons))
        tip.append("")
        rows.append(cells)
        tips.append(tip)
        status.append(a.passed)
    for m in report.missing:
        rows.append([m, "no bundle", None, None, None, *(["–"] * len(names)), ""])
        tips.append([""] * (6 + len(names)))
        status.append(None)
    headers = ["annotator", "result", "done", "assigned", "median s/item", *names, "reasons"]
    return RowsModel(headers, rows, tips, status)


# ------------------------------------------------------------------ agreement
def agreement_models(report: Any) -> dict[str, RowsModel]:
    """The tables of a :class:`~evaltrans_qt.engine.campaign.agreement.CampaignAgreement`:
    ``classes`` (Krippendorff's alpha, units, judgements, Fleiss'/Cohen's kappa),
    ``pairs`` (each pair of judges per class, and each judge against gold) and ``spans``
    (precision/recall/F1 per pair and match mode, and their average)."""
    d = report.to_dict()
    classes, pairs, spans = [], [], []
    for c in d["classes"]:
        classes.append([c["name"], c["level"], c["alpha"], c["units"], c["judgements"],
                        c.get("fleiss"), c.get("cohen")])
        for p in c["pairs"]:
            pairs.append([c["name"], p["a"], p["b"], p["n"], p["pearson"], p["kendall"],
                          p["kappa"]])
        for p in c.get("gold", []):
            pairs.append([c["name"], p["a"], f"{p['b']} (gold)", p["n"], p["pearson"],
                          p["kendall"], p["kappa"]])
    for s in d["spans"]:
        groups = [(f"{p['a']} ~ {p['b']}", p["candidates"], p["scores"]) for p in s["pairs"]]
        groups += [(f"{p['a']} vs gold {p['b']}", p["candidates"], p["scores"])
                   for p in s.get("gold", [])]
        if s["pairs"]:
            groups.append(("average of the pairs", s["candidates"], s["average"]))
        for name, n, scores in groups:
            for mode, v in scores.items():
                spans.append([s["protocol"], name, n, mode, v["precision"], v["recall"],
                              v["f1"]])
    return {
        "classes": RowsModel(["judgement", "level", "alpha", "units", "judgements",
                              "Fleiss' kappa", "Cohen's kappa"], classes),
        "pairs": RowsModel(["judgement", "judge A", "judge B", "n", "Pearson", "Kendall",
                            "kappa"], pairs),
        "spans": RowsModel(["protocol", "pair", "candidates", "match", "precision", "recall",
                            "F1"], spans),
    }


# ------------------------------------------------------------------ the dialog
def table_view(model: RowsModel, name: str) -> QTableView:
    v = QTableView()
    v.setObjectName(f"table_{name}")
    v.setModel(model)
    model.setParent(v)
    v.setSortingEnabled(False)
    v.setAlternatingRowColors(model.status is None)
    v.verticalHeader().hide()
    v.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    v.horizontalHeader().setStretchLastSection(True)
    return v


class ReportDialog(QDialog):
    """Tables of a campaign report, one tab each, with a note above them."""

    def __init__(self, title: str, note: str, tables: dict[str, tuple[str, RowsModel]],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("campaignReportDialog")
        self.setWindowTitle(title)
        lay = QVBoxLayout(self)
        self.note = QLabel(note)
        self.note.setObjectName("reportNote")
        self.note.setWordWrap(True)
        lay.addWidget(self.note)
        self.tabs = QTabWidget()
        self.views: dict[str, QTableView] = {}
        for key, (label, model) in tables.items():
            self.views[key] = table_view(model, key)
            self.tabs.addTab(self.views[key], label)
        if len(tables) == 1:
            self.tabs.tabBar().hide()
        lay.addWidget(self.tabs, 1)
        bb = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        bb.rejected.connect(self.reject)
        lay.addWidget(bb)
        self.resize(900, 420)


def qc_dialog(report: Any, parent: QWidget | None = None) -> ReportDialog:
    passed = sum(a.passed for a in report.annotators)
    note = (f"Campaign {report.campaign}: {passed} of {len(report.annotators)} annotators "
            "pass quality control" + (f"; no bundle collected from {', '.join(report.missing)}"
                                      if report.missing else "")
            + ". Hover a check for its numbers.")
    return ReportDialog("Quality control", note, {"qc": ("Annotators", qc_model(report))},
                        parent)


def agreement_dialog(report: Any, parent: QWidget | None = None) -> ReportDialog:
    models = agreement_models(report)
    note = (f"Judges: {', '.join(report.judges) or 'none'}"
            + (f"; gold: {report.gold}" if report.gold else "")
            + ". Krippendorff's alpha over the units judged at least twice (the "
              "adjudicated judgements left out).")
    tabs = {"classes": ("Alpha and kappa", models["classes"]),
            "pairs": ("Pairs of judges", models["pairs"])}
    if models["spans"].rowCount():
        tabs["spans"] = ("Error spans", models["spans"])
    return ReportDialog("Agreement", note, tabs, parent)


__all__ = ["cell_text", "RowsModel", "qc_model", "agreement_models", "table_view",
           "ReportDialog", "qc_dialog", "agreement_dialog"]
