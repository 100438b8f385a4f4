"""``python -m evaltrans_qt``: the ``evaltrans`` command line (``cli/main.py``)."""

import sys

from evaltrans_qt.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
