"""Where the window and its panels go on the screen, and the settings that remember it.

The window never grows beyond the available screen area (without task bars): the
default layout fits 1366x768 and up, a saved layout made for a larger screen is replaced
by the default one, and showing a panel keeps the window on the screen.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, QRect, Qt
from PySide6.QtWidgets import QApplication

#: Panels closed while they have nothing to show (and by the default layout).
CONTENT_PANELS = ("Scoring", "Similar scored translations", "Live correlation")


class WindowLayout(QObject):
    """The window's size, position, panel layout and their settings (module doc)."""

    def __init__(self, window: Any) -> None:
        """``window``: the :class:`~evaltrans_qt.ui.main_window.MainWindow` composing this."""
        super().__init__(window)
        self.window = window

    def available_geometry(self) -> QRect:
        """The screen's available area (without task bars) the window lives on."""
        screen = self.window.screen() or QApplication.primaryScreen()
        return screen.availableGeometry()

    def _frame_margins(self) -> tuple[int, int]:
        """Width and height the window frame adds to the client area (0 before it is shown)."""
        w = self.window
        return (max(w.frameGeometry().width() - w.geometry().width(), 0),
                max(w.frameGeometry().height() - w.geometry().height(), 0))

    def fits_screen(self) -> bool:
        """Whether the whole window (frame included) lies inside the available screen area."""
        avail = self.available_geometry()
        frame = self.window.frameGeometry()
        return avail.contains(frame) or (frame.width() <= avail.width()
                                         and frame.height() <= avail.height()
                                         and not self.window.isVisible())

    def default_layout(self) -> None:
        """A layout that fits the available screen (never larger; 1366x768 and up): the
        compare view in the middle, sources left, translations below; the results share
        the bottom area with the translations (a tab) so tables and plots get its whole
        height; panels with nothing to show yet (scoring, similar translations, results,
        live correlation) stay closed until they have something."""
        win = self.window
        avail = self.available_geometry()
        fw, fh = self._frame_margins()
        w = min(1600, avail.width() - fw)
        h = min(1000, avail.height() - fh)
        p = win.panels
        # closed first: a hidden panel's minimum size cannot push the window off the screen
        for title in (*CONTENT_PANELS, "Results"):
            if title in p:
                p[title].hide()
        if "Results" in p:
            win.tabifyDockWidget(p["Translations"], p["Results"])
        if "Live correlation" in p:
            win.tabifyDockWidget(p["Similar scored translations"], p["Live correlation"])
        win.resize(w, h)
        win.move(avail.x() + max(0, (avail.width() - w - fw) // 2),
                 avail.y() + max(0, (avail.height() - h - fh) // 2))
        for title in ("Sources", "Translations"):
            p[title].show()
        p["Translations"].raise_()
        win.resizeDocks([p["Sources"]], [int(w * 0.26)], Qt.Orientation.Horizontal)
        win.resizeDocks([p["Translations"]], [int(h * 0.30)], Qt.Orientation.Vertical)

    def show_panel(self, title: str) -> None:
        """Show a panel (and bring its tab to the front), keeping the window on the screen."""
        dock = self.window.panels[title]
        dock.show()
        dock.raise_()
        self.fit_to_screen()

    def fit_to_screen(self) -> None:
        """Never larger than the available screen (a panel's minimum size can grow the window)."""
        win = self.window
        avail = self.available_geometry()
        fw, fh = self._frame_margins()
        w = min(win.width(), avail.width() - fw)
        h = min(win.height(), avail.height() - fh)
        if (w, h) != (win.width(), win.height()):
            win.resize(w, h)
        frame = win.frameGeometry()
        if not avail.contains(frame):     # moved back onto the screen
            win.move(max(avail.x(), min(frame.x(), avail.right() - frame.width() + 1)),
                     max(avail.y(), min(frame.y(), avail.bottom() - frame.height() + 1)))

    def layout_for_content(self) -> None:
        """Panels follow what there is to show (a new database has no results yet)."""
        if self.window.session is None:
            for title in CONTENT_PANELS:
                if title in self.window.panels:
                    self.window.panels[title].hide()

    # ------------------------------------------------------------ settings
    def restore_settings(self) -> None:
        """Geometry and panel state (if they fit this screen), compare measure, autosave."""
        win = self.window
        s = win.settings
        geo = s.value("window/geometry")
        st = s.value("window/state")
        if geo is not None and win.restoreGeometry(geo) and self.fits_screen():
            if st is not None:
                win.restoreState(st)
            if not self.fits_screen():         # a saved layout made for a larger screen
                self.default_layout()
        else:
            self.default_layout()
        measure = s.value("compare/measure")
        if measure:
            win.workspace.selection.set_measure(str(measure))
        auto = s.value("autosave", True)
        act = win.files.act_autosave
        act.setChecked(auto not in (False, "false", 0, "0"))
        win.workspace.set_autosave(act.isChecked())

    def store_settings(self) -> None:
        """Remembered for the next start (not for runs that must leave the settings alone)."""
        win = self.window
        if not win.persist_settings:
            return
        s = win.settings
        s.setValue("window/geometry", win.saveGeometry())
        s.setValue("window/state", win.saveState())
        s.setValue("compare/measure", win.compare_view.measure)
        s.setValue("autosave", win.workspace.autosave)
        s.sync()


__all__ = ["WindowLayout", "CONTENT_PANELS"]
