"""The UI's tables: one model (FrameModel) keeping raw values, one proxy sorting NaN last
in both directions, one delegate writing the numbers, and one export dialog."""

from __future__ import annotations

import math
import time

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import QSortFilterProxyModel, Qt
from PySide6.QtWidgets import QFileDialog, QStyleOptionViewItem, QTableView

from evaltrans_qt.ui import errors, export_dialog
from evaltrans_qt.ui.results_models import (
    DASH_FORMAT,
    FORMAT_ROLE,
    GENERAL_FORMAT,
    RAW_ROLE,
    FrameModel,
    NumberDelegate,
    NumberFormat,
    ResultsProxy,
    attach_frame_model,
    cell_text,
    format_number,
    table_view,
)

from .conftest import open_db


# --------------------------------------------------------------------------- formats
def test_number_formats_read_as_the_tables_always_have():
    assert format_number(0.123456) == "0.1235"
    assert format_number(math.nan) == "" and format_number(None) == ""
    assert format_number(math.inf) == "inf" and format_number(np.int64(7)) == "7"
    assert format_number(np.float32(0.5)) == "0.5000" and format_number("sysA") == "sysA"
    assert format_number(True) == "True"
    assert [DASH_FORMAT.text(v) for v in (math.nan, -math.inf, 0.25, 3)] == ["–", "–", "0.2500", "3"]
    assert [GENERAL_FORMAT.text(v) for v in (3.0, 2.5, 0.1234567)] == ["3", "2.5", "0.123457"]
    assert NumberFormat("g", 4).text(0.000123456) == "0.0001235"
    assert NumberFormat(offset=1).text(0) == "1" and NumberFormat(offset=1).text(0.5) == "0.5000"
    score = NumberFormat(decimals=2, whole=True, prefix="≈")
    assert [score.text(v) for v in (4.0, 3.25, None)] == ["≈4", "≈3.25", ""]


# --------------------------------------------------------------------------- model
FRAME = pd.DataFrame({"system": ["b", "A", None, "c", "d"], "segment": [0, 1, 2, 3, 4],
                      "BLEU": [0.5, math.nan, 0.25, 0.75, math.nan],
                      "n": [3, 1, 2, 5, 4]})


def test_the_model_keeps_raw_values_and_the_delegate_formats_them(qtbot):
    view, model, proxy = table_view("t", formats={"n": NumberFormat(offset=0)})
    qtbot.addWidget(view)
    model.set_frame(FRAME)
    assert isinstance(view.itemDelegate(), NumberDelegate)
    idx = proxy.index(0, 2)
    for role in (Qt.DisplayRole, Qt.EditRole, RAW_ROLE, Qt.UserRole):
        assert idx.data(role) == 0.5 and type(idx.data(role)) is float
    assert proxy.index(3, 3).data() == 5 and type(proxy.index(3, 3).data()) is int
    assert math.isnan(proxy.index(1, 2).data())
    assert proxy.index(0, 1).data(FORMAT_ROLE) == NumberFormat(offset=1)   # segment: from 1
    assert [cell_text(proxy.index(r, 1)) for r in range(5)] == ["1", "2", "3", "4", "5"]
    assert [cell_text(proxy.index(r, 2)) for r in range(5)] == ["0.5000", "", "0.2500",
                                                                 "0.7500", ""]
    # what the view paints is the delegate's text
    option = QStyleOptionViewItem()
    view.itemDelegate().initStyleOption(option, proxy.index(2, 2))
    assert option.text == "0.2500"
    assert view.itemDelegate().displayText(0.123456, view.locale()) == "0.1235"
    assert idx.data(Qt.TextAlignmentRole) == int((Qt.AlignRight | Qt.AlignVCenter).value)


def _column(proxy, col):
    return [proxy.index(r, col).data() for r in range(proxy.rowCount())]


def _key(v):
    return "missing" if v is None or v != v else v


@pytest.mark.parametrize("col", [0, 2])
@pytest.mark.parametrize("order", [Qt.AscendingOrder, Qt.DescendingOrder])
def test_missing_values_sort_last_both_ways_and_lessthan_is_the_rule(qtbot, col, order):
    view, model, proxy = table_view("t")
    qtbot.addWidget(view)
    model.set_frame(FRAME)
    view.sortByColumn(col, order)                       # the model's numpy sort
    shown = _column(proxy, col)
    k = sum(1 for v in shown if v is not None and v == v)
    assert all(v is None or v != v for v in shown[k:])  # NaN/None last
    present = shown[:k]
    key = (lambda v: v.lower()) if col == 0 else (lambda v: v)
    assert present == sorted(present, key=key, reverse=order == Qt.DescendingOrder)
    # Qt sorting through ResultsProxy.lessThan gives the same order (rows whose values
    # tie may come in another order: Qt 6.11 sorts descending as ascending reversed)
    plain = FrameModel(FRAME)
    lt = ResultsProxy()
    lt.setSourceModel(plain)
    QSortFilterProxyModel.sort(lt, col, order)
    assert [_key(v) for v in _column(lt, col)] == [_key(v) for v in shown]


def test_sorting_twenty_thousand_rows_stays_quick(qtbot):
    rng = np.random.default_rng(0)
    v = rng.random(20_000)
    v[::7] = np.nan
    view, model, proxy = table_view("t")
    qtbot.addWidget(view)
    model.set_frame(pd.DataFrame({"system": rng.choice(list("abc"), v.size), "BLEU": v}))
    t0 = time.perf_counter()
    view.sortByColumn(1, Qt.DescendingOrder)
    assert time.perf_counter() - t0 < 1.0           # not ~290 000 Python lessThan calls
    assert proxy.index(0, 1).data() == np.nanmax(v)
    assert math.isnan(proxy.index(proxy.rowCount() - 1, 1).data())


def test_row_data_follows_its_row(qtbot):
    view, model, proxy = table_view("t")
    qtbot.addWidget(view)
    model.set_frame(FRAME)
    model.set_row_data(Qt.ToolTipRole, [f"row {i}" for i in range(len(FRAME))])
    view.sortByColumn(3, Qt.AscendingOrder)             # n: 1 2 3 4 5 -> frame rows 1 2 0 4 3
    assert [proxy.index(r, 0).data(Qt.ToolTipRole) for r in range(5)] == [
        "row 1", "row 2", "row 0", "row 4", "row 3"]
    assert model.row_of(0) == 2


def test_one_row_changes_in_place(qtbot):
    """update_row: raw values (dtypes widened where needed), cell and row data of one row;
    one dataChanged for that row, no reset or layout change; the row keeps its place until
    the next sort, which uses the new value; the frame reads the update."""
    view, model, proxy = table_view("t")
    qtbot.addWidget(view)
    model.set_frame(FRAME)
    model.set_cell_data(Qt.ToolTipRole, "BLEU", [f"tip {i}" for i in range(5)])
    view.sortByColumn(3, Qt.AscendingOrder)             # n: frame rows 1 2 0 4 3
    signals = []
    for name in ("dataChanged", "modelReset", "layoutChanged", "rowsInserted", "rowsRemoved"):
        getattr(model, name).connect(lambda *a, name=name: signals.append((name, a)))
    model.update_row(0, values={"n": 9.5, "BLEU": None, "system": 7},
                     cells={(Qt.ToolTipRole, "BLEU"): "changed"}, rows={Qt.FontRole: "bold"})
    ((name, (first, last, _roles)),) = signals
    assert name == "dataChanged" and first.row() == last.row() == 2 == model.row_of(0)
    assert (first.column(), last.column()) == (0, 3)
    at = proxy.index(2, 3)
    assert at.data(RAW_ROLE) == 9.5 and cell_text(at) == "9.5000"    # an int column took a float
    assert math.isnan(at.siblingAtColumn(2).data()) and at.siblingAtColumn(0).data() == 7
    assert at.siblingAtColumn(2).data(Qt.ToolTipRole) == "changed"
    assert at.data(Qt.FontRole) == "bold" and proxy.index(0, 3).data(Qt.FontRole) is None
    assert proxy.index(0, 3).data() == 1                # the other rows keep their values (ints)
    assert list(model.frame["n"]) == [9.5, 1, 2, 5, 4] and model.frame["system"][0] == 7
    assert FRAME["n"][0] == 3 and FRAME["system"][0] == "b"    # the caller's frame untouched
    view.sortByColumn(3, Qt.AscendingOrder)
    assert model.row_of(0) == 4                         # 9.5: last once sorted again


def test_labels_show_text_and_sort_by_the_value(qtbot):
    view, model, proxy = table_view("t")
    qtbot.addWidget(view)
    model.set_columns([("done", np.array([0.5, 1.0, math.nan, 0.25]))],
                      cells={(Qt.DisplayRole, 0): ["2/4", "3/3", "0/0", "1/4"]},
                      rows={Qt.UserRole + 5: ["a", "b", "c", "d"]})
    view.sortByColumn(0, Qt.DescendingOrder)
    assert [cell_text(proxy.index(r, 0)) for r in range(4)] == ["3/3", "2/4", "1/4", "0/0"]
    assert [proxy.index(r, 0).data(RAW_ROLE) for r in range(3)] == [1.0, 0.5, 0.25]
    assert [proxy.index(r, 0).data(Qt.UserRole + 5) for r in range(4)] == ["b", "a", "d", "c"]
    assert list(model.frame["done"])[:2] == [0.5, 1.0]  # the frame, built when read


def test_filters_keep_the_current_row(qtbot):
    """Filtering is a layout change: the current row stays current while it is shown."""
    view, model, proxy = table_view("t")
    qtbot.addWidget(view)
    model.set_frame(FRAME)
    view.selectRow(3)                                   # system "c"
    proxy.set_text_filter("c")
    assert view.currentIndex().row() == 0 and view.currentIndex().data() == "c"
    proxy.set_row_mask(np.array([True, True, False, False, True]))
    assert not view.currentIndex().isValid() and proxy.rowCount() == 0   # "c" and the mask
    proxy.set_text_filter("")
    assert proxy.rowCount() == 3


def test_the_database_browser_numbers_are_drawn_by_the_delegate(qtbot):
    from evaltrans_qt.engine.data.database import Database, Levels
    from evaltrans_qt.ui.models import SourceTable, TargetTable
    db = Database([Levels("fluency", count=6, gray=2, green=5, perfect=5, firstvalid=1)])
    src = db.add_source("a source")
    db.add_target(src, "the reference", "R", reference=True)
    mean = db.add_target(src, "two judges", "A")
    mean.set_score("fluency", 3, judge="x")
    mean.set_score("fluency", 4, judge="y")
    db.add_target(src, "one judge", "B").set_score("fluency", 4, judge="x")
    db.add_target(src, "estimated", "C").set_score("fluency", 2, extrapolated=True)
    db.add_target(src, "unscored", "D")
    view = QTableView()
    qtbot.addWidget(view)
    targets = TargetTable(*attach_frame_model(view))
    targets.set_database(db)
    targets.set_source(0)
    col = targets.headers.index("fluency")
    p = targets.proxy
    assert p.index(1, col).data() == 3.5                          # the number itself
    assert [cell_text(p.index(r, col)) for r in range(5)] == ["", "3.50", "4", "≈2", ""]
    assert cell_text(p.index(0, 0)) == "1" and p.index(0, 0).data() == 0
    assert p.index(3, col).data(Qt.ToolTipRole) == "extrapolated from similar scored translations"
    assert p.index(3, col).data(Qt.FontRole).italic() and p.index(0, 1).data(Qt.FontRole).bold()
    sources = SourceTable(*attach_frame_model(view))
    sources.set_database(db)
    p = sources.proxy
    assert [cell_text(p.index(0, c)) for c in range(5)] == ["1", "a source", "1", "4", "2/4"]
    assert p.index(0, 4).data(RAW_ROLE) == 0.5                    # sorted by the ratio


# --------------------------------------------------------------------------- export
def test_export_format_from_suffix_or_filter():
    fm = export_dialog.TABLE_FORMATS
    assert export_dialog.chosen_path("/x/a.TEX", "CSV (*.csv)", fm).name == "a.TEX"
    assert export_dialog.chosen_path("/x/a", "LaTeX (*.tex)", fm).name == "a.tex"
    assert export_dialog.chosen_path("/x/a.v2", "JSON (*.json)", fm).name == "a.v2.json"
    assert export_dialog.chosen_path("/x/a", "", fm).name == "a.csv"


def test_export_writes_and_reports_errors_through_the_error_sink(qtbot, tmp_path, monkeypatch):
    from evaltrans_qt.io.export import write_table
    view = QTableView()
    qtbot.addWidget(view)
    answer = {"path": str(tmp_path / "t"), "filter": "LaTeX (*.tex)"}
    asked = []

    def dialog(parent, title, start, filters):
        asked.append((title, start, filters))
        return answer["path"], answer["filter"]

    monkeypatch.setattr(QFileDialog, "getSaveFileName", dialog)
    out = export_dialog.ask_export(view, "systems", lambda p: write_table(FRAME, p),
                                   tmp_path / "demo.etdb.xml")
    assert out == tmp_path / "t.tex" and "\\toprule" in out.read_text(encoding="utf-8")
    assert asked[0] == ("Export table", str(tmp_path / "demo.systems.csv"),
                        "CSV (*.csv);;TSV (*.tsv);;JSON (*.json);;LaTeX (*.tex)")
    # a folder that does not exist: shown by the error sink, nothing raised
    answer["path"] = str(tmp_path / "missing" / "t.csv")
    assert export_dialog.ask_export(view, "systems", lambda p: write_table(FRAME, p)) is None
    assert errors.history and "missing" in str(errors.describe(errors.history[-1]))
    # cancelled: nothing written
    answer["path"] = ""
    assert export_dialog.ask_export(view, "x", lambda p: pytest.fail("written")) is None


# --------------------------------------------------------------------------- every table
def test_every_table_of_the_window_is_a_frame_model_drawn_by_the_delegate(qtbot, main_window,
                                                                          demo_copy):
    w = main_window
    open_db(qtbot, w, demo_copy)
    w.start_session("dora", ["fluency"])
    dlg = w.classes_dialog()
    tables = w.findChildren(QTableView) + dlg.findChildren(QTableView)
    names = {t.objectName() for t in tables}
    assert {"systemTable", "sentenceTable", "correlationTable", "liveCorrelationTable",
            "metricsTable", "rankingTable", "unseenSummary", "classesTable",
            "similarPanel", "sourceList", "targetTable"} <= names
    for t in tables:
        assert isinstance(t.itemDelegate(), NumberDelegate), t.objectName()
        assert isinstance(t.model(), ResultsProxy), t.objectName()
        assert isinstance(t.model().sourceModel(), FrameModel), t.objectName()
    dlg.close()
