"""The EvalTrans database file (``.etdb.xml``, thesis Appendix A.2): :mod:`.reader`,
:mod:`.writer`, the human-evaluation protocol extensions (:mod:`.protocols`) and the
SegRanks extension (:mod:`.segranks`), over the safe XML of :mod:`evaltrans_qt.io.xmlsafe`.
"""

from __future__ import annotations

from evaltrans_qt.io.etdb.reader import demo_database_path, load_database, loads
from evaltrans_qt.io.etdb.writer import checked_bytes, dumps, save_database

__all__ = ["checked_bytes", "demo_database_path", "dumps", "load_database", "loads",
           "save_database"]
