"""Tabular writers share the CSV exports' formula rule (io/export.py, OWASP "CSV
Injection"): a text cell a spreadsheet would run gets a leading ``'``; numbers stay."""

from __future__ import annotations

from evaltrans_qt.io.export import formula_safe
from evaltrans_qt.io.sentences import read_sentences, sentences_bytes


def test_the_formula_rule():
    assert formula_safe('=HYPERLINK("http://x")') == '\'=HYPERLINK("http://x")'
    assert formula_safe("@SUM(A1)") == "'@SUM(A1)" and formula_safe("-3") == "-3"
    assert formula_safe(-0.5) == -0.5 and formula_safe("plain") == "plain"


def test_batch_sentences_tsv_escapes_formulas(tmp_path):
    rows = [{"system": '=HYPERLINK("http://evil")', "segment": "1", "wer": -0.5,
             "text": "+1 call me"}]
    data = sentences_bytes("tsv", rows, ["system", "segment", "wer", "text"], {}).decode()
    cells = data.splitlines()[-1].split("\t")
    assert cells == ['\'=HYPERLINK("http://evil")', "1", "-0.5", "'+1 call me"]
    f = tmp_path / "s.tsv"
    f.write_text(data)
    _, columns, back = read_sentences(f)
    assert columns == ["system", "segment", "wer", "text"] and back[0]["wer"] == -0.5


def test_correlate_csv_escapes_a_human_class_named_like_a_formula(tmp_path, capsys):
    from evaltrans_qt.cli.main import main
    from evaltrans_qt.engine.data.database import Database, Levels
    from evaltrans_qt.io import etdb
    cls = '=HYPERLINK("http://evil")'
    db = Database([Levels(cls, 0, 0, 10, 10, 0, True, 0.0, 10.0),
                   Levels("isReference", 2, 0, 1, 1, 0)])
    for i in range(6):
        src = db.add_source(f"a b c d {i}", None, str(i + 1))
        db.add_target(src, f"a b c d {i}", "ref", reference=True)
        for k, s in enumerate(("S", "T")):
            t = db.add_target(src, f"a b x{k} d {i}" if (i + k) % 2 else f"a b c d {i}", s)
            t.set_score(cls, float((i * 3 + k * 5) % 11))
    f = tmp_path / "d.etdb.xml"
    etdb.save_database(db, f)
    capsys.readouterr()
    assert main(["correlate", str(f), "--human", cls, "--csv", "--bootstrap", "0",
                 "--measures", "wer"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) >= 2 and all("'=HYPERLINK" in row for row in out[1:])
