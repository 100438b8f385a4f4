"""CSV/TSV exports are plain tables (``pandas.read_csv(file)`` reads them unmodified);
their signatures go into the sidecar ``STEM.signature.txt``."""

from __future__ import annotations

import pandas as pd

from evaltrans_qt.io.export import signature_path, write_table

SIGS = {"bleu": "nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0",
        "chrf": "nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:2.6.0"}


def test_csv_reads_unmodified_and_sidecar_names_every_measure(tmp_path):
    frame = pd.DataFrame({"system": ["a", "b"], "BLEU": [25.0, 50.5], "chrF": [40.0, 61.25]})
    out = write_table(frame, tmp_path / "systems.csv", signatures=SIGS)
    assert not out.read_text().startswith("#")
    assert pd.read_csv(out).equals(frame)
    side = signature_path(out)
    assert side == tmp_path / "systems.signature.txt"
    assert side.read_text().splitlines() == [f"{m}: {s}" for m, s in SIGS.items()]


def test_tsv_too_and_no_sidecar_without_signatures(tmp_path):
    frame = pd.DataFrame({"system": ["x"], "TER": [0.5]})
    out = write_table(frame, tmp_path / "t.tsv", signatures=SIGS)
    assert pd.read_csv(out, sep="\t").equals(frame)
    assert signature_path(out).exists()
    plain = write_table(frame, tmp_path / "u.csv")
    assert pd.read_csv(plain).equals(frame)
    assert not signature_path(plain).exists()


def test_latex_keeps_its_comment_lines(tmp_path):
    frame = pd.DataFrame({"system": ["a"], "BLEU": [25.0]})
    tex = write_table(frame, tmp_path / "t.tex", signatures=SIGS).read_text()
    assert tex.startswith(f"% signature bleu: {SIGS['bleu']}\n")
    assert not signature_path(tmp_path / "t.tex").exists()
