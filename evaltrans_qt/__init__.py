"""evaltrans_qt: evaluation of machine translation (successor of RWTH EvalTrans).

Layout: ``engine`` (pure computation), ``io`` (file formats), ``ui`` (PySide6),
``cli`` (command line). ``engine`` and ``io`` never import Qt.
"""

__version__ = "0.1.0"
