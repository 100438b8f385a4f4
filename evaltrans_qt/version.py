"""The package version (one place; the package root, signatures and reports read it)."""

__version__ = "0.1.0"
