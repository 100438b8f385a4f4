"""The ``evaltrans`` command line. Each module here adds sub-commands (see main.py)."""
