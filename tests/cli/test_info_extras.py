"""``evaltrans info`` lists what a database holds beyond its counts -- the language pair an
import recorded, the human-evaluation protocols' data, the external metrics -- and
``evaltrans score`` reports a byte that is not valid in the encoding as ``file:line:column``,
as every other reader does."""

from __future__ import annotations

import json

from evaltrans_qt.cli.main import main


def run(capsys, *argv) -> tuple[int, str, str]:
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def test_info_lists_protocols_external_metrics_and_language_pair(demo, tmp_path, capsys):
    scores = tmp_path / "comet.tsv"
    scores.write_text("WebTrans\t1\t0.5\nWebTrans\t2\t0.25\nRuleMT\t1\t0.125\n",
                      encoding="utf-8")
    db = tmp_path / "x.etdb.xml"
    assert run(capsys, "import", "scores", scores, "--database", demo, "-o", db)[0] == 0
    rc, out, _ = run(capsys, "info", db)
    assert rc == 0
    assert "external    comet (higher is better): 3 segment scores, 0 system scores" in out
    # the demo database's protocol data (items, marks, post-edits, an added reference)
    assert "protocols   2 sources with items, 4 item marks, 3 post-edits, 1 added " \
           "references" in out
    assert "language    -" in out
    rc, out, _ = run(capsys, "info", db, "--json")
    info = json.loads(out)
    assert info["external_metrics"] == {"comet": {"higher_is_better": True,
                                                  "segment_scores": 3, "system_scores": 0}}
    assert info["protocols"]["postedits"] == 3 and info["language_pair"] is None


def test_info_shows_the_recorded_language_pair(tmp_path, capsys):
    (tmp_path / "t.de").write_text("ein Haus\n", encoding="utf-8")
    (tmp_path / "t.en").write_text("a house\n", encoding="utf-8")
    db = tmp_path / "t.etdb.xml"
    assert run(capsys, "import", "text", "--source", tmp_path / "t.de", "--reference",
               tmp_path / "t.en", "-o", db)[0] == 0
    rc, out, _ = run(capsys, "info", db)
    assert rc == 0 and "language    de-en" in out
    assert "external    -" in out and "protocols   -" in out


def test_score_names_file_line_and_column_of_a_bad_byte(tmp_path, capsys):
    ref = tmp_path / "ref.txt"
    ref.write_text("a b c\nd e f\n", encoding="utf-8")
    hyp = tmp_path / "hyp.txt"
    hyp.write_bytes(b"a b c\nd \xff f\n")
    rc, _, err = run(capsys, "score", ref, "-i", hyp)
    assert rc == 2
    assert f"{hyp}:2:3: not valid utf-8 (byte 0xff)" in err
    rc, _, err = run(capsys, "score", hyp, "-i", ref)
    assert rc == 2 and f"{hyp}:2:3:" in err
