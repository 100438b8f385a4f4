"""The one "Export…" dialog: every table and plot export of the UI goes through
:func:`ask_export`.

It offers the file beside the database (``io/export.py`` ``suggested_path``), takes the
format from the name's suffix or, when the name has none the formats know, from the
chosen filter (appending its suffix), writes through the caller's writer (tables:
``io/export.py`` ``write_table``; plots: :func:`evaltrans_qt.ui.plots.export_plot`) and
reports a failed write through the UI's one error sink (:mod:`evaltrans_qt.ui.errors`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QWidget

from evaltrans_qt.io.export import suggested_path

#: (filter name, suffix) of tables, as ``io/export.py`` ``write_table`` writes them.
TABLE_FORMATS: tuple[tuple[str, str], ...] = (("CSV", ".csv"), ("TSV", ".tsv"),
                                              ("JSON", ".json"), ("LaTeX", ".tex"))
#: (filter name, suffix) of plots, as ``plots.export_plot`` writes them.
PLOT_FORMATS: tuple[tuple[str, str], ...] = (("PNG", ".png"), ("SVG", ".svg"))


def file_filters(formats: Sequence[tuple[str, str]]) -> str:
    """``"CSV (*.csv);;LaTeX (*.tex)"`` for the file dialog."""
    return ";;".join(f"{name} (*{suffix})" for name, suffix in formats)


def chosen_path(path: str, selected_filter: str, formats: Sequence[tuple[str, str]]) -> Path:
    """``path`` if its suffix is one of ``formats``; otherwise ``path`` with the suffix of
    the chosen filter (the first format when the filter is unknown) appended."""
    p = Path(path)
    suffixes = [s for _n, s in formats]
    if p.suffix.lower() in suffixes:
        return p
    by_filter = {f"{name} (*{suffix})": suffix for name, suffix in formats}
    return p.with_name(p.name + by_filter.get(selected_filter, suffixes[0]))


def ask_export(parent: QWidget, what: str, write: Callable[[Path], object],
               database: Path | None = None,
               formats: Sequence[tuple[str, str]] = TABLE_FORMATS,
               title: str = "Export table") -> Path | None:
    """Ask where to export ``what`` (offered as ``<database stem>.<what><suffix>`` beside
    ``database``), then ``write(path)``; an error is shown, not raised. Returns the file
    written, None if cancelled or failed."""
    start = suggested_path(database, what, formats[0][1])
    path, selected = QFileDialog.getSaveFileName(parent, title, start, file_filters(formats))
    if not path:
        return None
    target = chosen_path(path, selected, formats)
    try:
        write(target)
    except Exception as exc:        # a file that cannot be written, an empty table, a bug
        from evaltrans_qt.ui import errors
        errors.show_error(exc, parent)
        return None
    return target


def ask_export_plot(parent: QWidget, what: str, write: Callable[[Path], object],
                    database: Path | None = None) -> Path | None:
    """:func:`ask_export` for a plot (PNG or SVG)."""
    return ask_export(parent, what, write, database, PLOT_FORMATS, "Export plot")
