"""File formats (no Qt): EvalTrans database and report, Aachen text, plain text,
NIST SGML/XML, WMT folders, CSV/JSON/LaTeX export."""
