"""The main window's controllers: one object per concern, composed by
:class:`~evaltrans_qt.ui.main_window.MainWindow`.

* :mod:`.files` -- open, save, save as, autosave, recent files, changes on disk, closing;
* :mod:`.browse` -- the sources and translations tables, their filters, the selection
  (``workspace.selection``) and the compare view following it;
* :mod:`.session` -- scoring sessions (score panel, similar translations), score
  classes, undo and redo;
* :mod:`.results` -- the results and live-correlation panels, the Evaluate menu;
* :mod:`.ranking` -- the ranking screens;
* :mod:`.layout` -- panel layout on the screen, window settings.

Each controller owns its widgets, actions and state as its own attributes; none writes
an attribute of the window or of another controller. They reach each other through the
window's public attributes (``window.files.save()``) and observe the workspace.
"""
