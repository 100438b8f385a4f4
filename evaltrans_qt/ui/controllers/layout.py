"""Where the window and its panels go on the screen, and the settings that remember it.

The window never grows beyond the available screen area (without task bars), its frame
(the window manager's title bar and borders) included: the default layout fits 1366x768
and up, a saved layout made for a larger screen is replaced by the default one, and
showing a panel keeps the window on the screen. Until the window manager has framed the
window its decorations are not known; the layout then reserves :data:`FRAME_GUESS` and
fits again once they are (:meth:`WindowLayout.after_shown`). Remembered for the next
start: geometry, the maximised state, the panels, and the sizes of every splitter.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QObject, QRect, QSize, Qt, QTimer
from PySide6.QtWidgets import QApplication, QSplitter, QWidget

from evaltrans_qt.ui.options_dialog import DECORATION

#: Panels closed while they have nothing to show (and by the default layout).
CONTENT_PANELS = ("Scoring", "Similar scored translations", "Live correlation")
#: Width and height reserved for the window manager's frame before it is known (a title
#: bar and borders: openbox, GNOME, KDE and Windows 10/11 stay below) -- the dialogs'
#: :data:`~evaltrans_qt.ui.options_dialog.DECORATION`.
FRAME_GUESS = (DECORATION.width(), DECORATION.height())
#: Share of the window's height the Results panel gets when it is shown (its tables and
#: the correlation plot under them need it; the translations share that area as a tab).
RESULTS_SHARE = 0.55
#: Milliseconds after the first show at which the window is fitted again (the window
#: manager's frame arrives asynchronously).
REFIT_MS = (0, 150, 600, 1500)


class WindowLayout(QObject):
    """The window's size, position, panel layout and their settings (module doc)."""

    def __init__(self, window: Any) -> None:
        """``window``: the :class:`~evaltrans_qt.ui.main_window.MainWindow` composing this."""
        super().__init__(window)
        self.window = window
        window.installEventFilter(self)     # its dialogs: fitted to the screen when shown
        #: No window manager will frame the window (``--screenshot`` on the offscreen
        #: platform): no room is kept for a frame that cannot be measured.
        self.unframed = False
        #: The size was chosen by :meth:`default_layout` with a guessed frame: fitted to
        #: the available area once the real frame is known.
        self._guessed_size: tuple[int, int] | None = None

    # ------------------------------------------------------------ dialogs
    def eventFilter(self, obj: QObject, ev: QEvent) -> bool:
        """Every dialog and window the window owns (a child window polished) is fitted to
        the available screen when it is shown (:func:`fit_dialog`)."""
        kind = ev.type()
        # polished (not added: a child is added while it is still being constructed)
        if kind == QEvent.Type.ChildPolished and obj is self.window:
            child = ev.child()          # type: ignore[attr-defined]
            if _framed_window(child):         # dialogs, ranking screens (not menus)
                child.installEventFilter(self)
        elif kind == QEvent.Type.Show and isinstance(obj, QWidget) and _framed_window(obj):
            fit_dialog(obj, self.available_geometry())
        return False

    def available_geometry(self) -> QRect:
        """The screen's available area (without task bars) the window lives on."""
        screen = self.window.screen() or QApplication.primaryScreen()
        return screen.availableGeometry()

    def _frame_margins(self) -> tuple[int, int]:
        """Width and height the window frame adds to the client area; :data:`FRAME_GUESS`
        while the window is not framed yet (a platform without frames: none)."""
        w = self.window
        fw = max(w.frameGeometry().width() - w.geometry().width(), 0)
        fh = max(w.frameGeometry().height() - w.geometry().height(), 0)
        if fw or fh or self.unframed:
            return fw, fh
        return FRAME_GUESS

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
        self._guessed_size = (w, h) if (fw, fh) == FRAME_GUESS else None
        win.move(avail.x() + max(0, (avail.width() - w - fw) // 2),
                 avail.y() + max(0, (avail.height() - h - fh) // 2))
        for title in ("Sources", "Translations"):
            p[title].show()
        p["Translations"].raise_()
        win.resizeDocks([p["Sources"]], [int(w * 0.26)], Qt.Orientation.Horizontal)
        win.resizeDocks([p["Translations"]], [int(h * 0.30)], Qt.Orientation.Vertical)

    def show_panel(self, title: str) -> None:
        """Show a panel (and bring its tab to the front), keeping the window on the screen."""
        win = self.window
        dock = win.panels[title]
        dock.show()
        dock.raise_()
        if title == "Results" and dock.height() < int(win.height() * RESULTS_SHARE):
            win.resizeDocks([dock], [int(win.height() * RESULTS_SHARE)], Qt.Orientation.Vertical)
        self.fit_to_screen()

    def assume_unframed(self) -> None:
        """No window manager will frame the window (the ``--screenshot`` mode)."""
        self.unframed = True

    def after_shown(self) -> None:
        """The first show: fitted now and again once the window manager framed the window."""
        for ms in REFIT_MS:
            QTimer.singleShot(ms, self, self.fit_to_screen)   # not after the window is gone

    def fit_to_screen(self) -> None:
        """Never larger than the available screen (a panel's minimum size can grow the window)."""
        win = self.window
        if win.isMaximized() or win.isFullScreen():   # the window manager's size
            return
        avail = self.available_geometry()
        fw, fh = self._frame_margins()
        if (self._guessed_size == (win.width(), win.height()) and win.isVisible()
                and win.frameGeometry() != win.geometry()):   # framed now: the real margins
            self._guessed_size = None
            win.resize(min(1600, avail.width() - fw), min(1000, avail.height() - fh))
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
        self._restore_splitters()
        if s.value("window/maximized", False) in (True, "true", 1, "1"):
            win.setWindowState(win.windowState() | Qt.WindowState.WindowMaximized)
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
        s.setValue("window/maximized", win.isMaximized())
        for key, split in self.splitters().items():
            s.setValue(f"splitters/{key}", split.saveState())
        s.setValue("compare/measure", win.compare_view.measure)
        s.setValue("autosave", win.workspace.autosave)
        s.sync()

    # ------------------------------------------------------------ splitters
    def splitters(self) -> dict[str, QSplitter]:
        """Every splitter of the window and its panels by a stable key: the object names
        (class names where there is none) of its ancestors up to the window."""
        out: dict[str, QSplitter] = {}
        for split in self.window.findChildren(QSplitter):
            parts: list[str] = []
            w: QWidget | None = split
            while w is not None and w is not self.window:
                parent = w.parentWidget()
                name = w.objectName() or type(w).__name__
                if parent is not None and not w.objectName():   # siblings of one kind
                    same = [c for c in parent.findChildren(type(w), options=Qt.FindChildOption.FindDirectChildrenOnly)
                            if not c.objectName()]
                    name += str(same.index(w)) if w in same else ""
                parts.append(name)
                w = parent
            out["/".join(reversed(parts))] = split
        return out

    def _restore_splitters(self) -> None:
        s = self.window.settings
        for key, split in self.splitters().items():
            state = s.value(f"splitters/{key}")
            if state is not None:
                split.restoreState(state)


def _framed_window(obj: QObject) -> bool:
    """A dialog or window the window manager frames (not a menu, tooltip or popup)."""
    return isinstance(obj, QWidget) and obj.isWindow() and obj.windowType() in (
        Qt.WindowType.Window, Qt.WindowType.Dialog)


def fit_dialog(dialog: QWidget, available: QRect) -> None:
    """``dialog`` and its window manager's frame (:data:`FRAME_GUESS` until the frame is
    known) inside ``available``: made smaller if needed (never below its minimum size; a
    long dialog scrolls), moved onto the screen if it sticks out."""
    frame_w = dialog.frameGeometry().width() - dialog.width()
    frame_h = dialog.frameGeometry().height() - dialog.height()
    fw, fh = (frame_w, frame_h) if frame_w or frame_h else FRAME_GUESS
    room = QSize(available.width() - fw, available.height() - fh)
    size = dialog.size().boundedTo(room).expandedTo(dialog.minimumSize())
    if size != dialog.size():
        dialog.resize(size)
    x = max(available.x(), min(dialog.x(), available.right() + 1 - size.width() - fw))
    y = max(available.y(), min(dialog.y(), available.bottom() + 1 - size.height() - fh))
    if (x, y) != (dialog.x(), dialog.y()):
        dialog.move(x, y)


__all__ = ["WindowLayout", "CONTENT_PANELS", "FRAME_GUESS", "fit_dialog"]
