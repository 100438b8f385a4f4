"""The data commands: import/export/merge/info, exit codes, no partial output."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from evaltrans_qt.cli.main import main
from evaltrans_qt.io import etdb

INFO_KEYS = {"sources", "targets", "references", "candidates", "systems", "scored"}


def run(capsys, *argv) -> tuple[int, str, str]:
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def info_json(capsys, db: Path) -> dict:
    rc, out, _ = run(capsys, "info", db, "--json")
    assert rc == 0
    return json.loads(out)


@pytest.fixture
def files(tmp_path):
    def w(name, text):
        p = tmp_path / name
        p.write_text(text, encoding="utf-8")
        return p
    return {"src": w("src.txt", "eins\nzwei\n"), "ref": w("ref.txt", "one\ntwo\n"),
            "ref2": w("ref2.txt", "one\ndeux\n"), "a": w("a.txt", "one\nto\n"),
            "b": w("b.txt", "won\ntwo\n"), "short": w("short.txt", "one\n"),
            "aachen": w("db.aachen", "SOURCE eins\nTARGET 10 one\nTARGET 4 won\n")}


def test_import_text_and_info_json(capsys, tmp_path, files):
    out = tmp_path / "t.etdb.xml"
    rc, _, err = run(capsys, "import", "text", "--source", files["src"], "--reference", files["ref"],
                     "--reference", files["ref2"], "--system", f"A={files['a']}",
                     "--system", f"B={files['b']}", "-o", out)
    assert rc == 0 and "2 sources" in err
    info = info_json(capsys, out)
    assert INFO_KEYS <= set(info)
    assert (info["sources"], info["targets"], info["references"], info["candidates"]) == (2, 8, 4, 4)
    assert info["systems"] == ["A", "B"] and info["scored"] == {}
    rc, text, _ = run(capsys, "info", out)
    assert rc == 0 and "references  4" in text and "systems     2: A, B" in text


def test_import_wmt_with_scores(capsys, tmp_path, wmt_dir):
    out = tmp_path / "wmt.etdb.xml"
    rc, _, _ = run(capsys, "import", "wmt", wmt_dir, "--scores", wmt_dir / "mqm.tsv",
                   "--score-class", "mqm", "-o", out)
    assert rc == 0
    info = info_json(capsys, out)
    assert (info["sources"], info["references"], len(info["systems"])) == (1002, 3006, 20)
    assert info["scored"] == {"mqm": 527 * 11}


def test_import_sgml_and_aachen_and_export(capsys, tmp_path, files):
    src = tmp_path / "s.sgm"
    src.write_text("<srcset><doc docid=d><seg id=1>eins</seg></doc></srcset>")
    ref = tmp_path / "r.sgm"
    ref.write_text("<refset><doc docid=d sysid=ref-X><seg id=1>one</seg></doc></refset>")
    tst = tmp_path / "t.xml"
    tst.write_text('<?xml version="1.0"?><tstset sysid="mt"><doc docid="d"><seg id="1">won</seg>'
                   "</doc></tstset>")
    out = tmp_path / "s.etdb.xml"
    assert run(capsys, "import", "sgml", "--source", src, "--reference", ref, "--target", tst, "-o", out)[0] == 0
    info = info_json(capsys, out)
    assert (info["references"], info["systems"]) == (1, ["mt"])

    adb = tmp_path / "a.etdb.xml"
    assert run(capsys, "import", "aachen", files["aachen"], "-o", adb)[0] == 0
    assert info_json(capsys, adb)["scored"] == {"score": 2}
    back = tmp_path / "back.aachen"
    assert run(capsys, "export", "aachen", adb, "-o", back)[0] == 0
    assert back.read_text() == files["aachen"].read_text()


def test_merge_prefer(capsys, tmp_path, files):
    a, b = tmp_path / "a.etdb.xml", tmp_path / "b.etdb.xml"
    run(capsys, "import", "aachen", files["aachen"], "-o", a)
    files["aachen"].write_text("SOURCE eins\nTARGET 10 one\nTARGET 6 won\nSOURCE drei\nTARGET 10 three\n")
    run(capsys, "import", "aachen", files["aachen"], "-o", b)
    for prefer, want in (("old", 4), ("new", 6)):
        c = tmp_path / f"c-{prefer}.etdb.xml"
        rc, _, err = run(capsys, "merge", a, b, "-o", c, "--prefer", prefer)
        assert rc == 0 and "1 conflicting" in err
        db = etdb.load_database(c)
        assert len(db.sources) == 2
        assert db.candidates(db.sources[0])[0].value("score") == want


@pytest.mark.parametrize("case", ["mismatch", "missing", "bad-db", "latin1-as-utf8"])
def test_bad_input_exit_2_and_nothing_written(capsys, tmp_path, files, case):
    out = tmp_path / "out.etdb.xml"
    out.write_bytes(b"previous content")
    if case == "mismatch":
        argv = ["import", "text", "--source", files["src"], "--reference", files["short"], "-o", out]
        where = f"{files['short']}:2"
    elif case == "missing":
        argv = ["import", "text", "--source", tmp_path / "nope.txt", "--reference", files["ref"], "-o", out]
        where = "nope.txt"
    elif case == "bad-db":
        bad = tmp_path / "bad.etdb.xml"
        bad.write_text("<database>\n<source>\n</database>")
        argv = ["merge", bad, bad, "-o", out]
        where = f"{bad}:3"
    else:
        files["src"].write_bytes("Grüße\n".encode("iso-8859-1"))
        argv = ["import", "text", "--source", files["src"], "--reference", files["short"], "-o", out]
        where = f"{files['src']}:1"
    rc, stdout, err = run(capsys, *argv)
    assert rc == 2 and stdout == ""
    assert err.startswith("evaltrans: error:") and where in err
    assert out.read_bytes() == b"previous content"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_export_error_writes_nothing(capsys, tmp_path, wmt_dir):
    db = tmp_path / "d.etdb.xml"
    etdb.save_database(etdb.load_database(etdb.demo_database_path()), db)
    out = tmp_path / "x.aachen"
    rc, _, err = run(capsys, "export", "aachen", db, "--score-class", "nosuch", "-o", out)
    assert rc == 2 and "nosuch" in err and not out.exists()


def test_console_entry_point_runs():
    r = subprocess.run([sys.executable, "-m", "evaltrans_qt.cli.main", "info",
                        str(etdb.demo_database_path()), "--json"], capture_output=True, text=True)
    assert r.returncode == 0
    info = json.loads(r.stdout)
    assert INFO_KEYS <= set(info) and info["sources"] == 20


def test_append_keeps_positions_and_refuses_another_test_set(capsys, tmp_path, files):
    """Positional identity: ``--append`` of the same source file joins its lines; a file with
    another sentence at a position is refused naming file and line, and DB is left as it was;
    an appended Aachen file (no positions) is warned about when it merged a sentence."""
    out = tmp_path / "t.etdb.xml"
    assert run(capsys, "import", "text", "--source", files["src"], "--reference", files["ref"],
               "--system", f"A={files['a']}", "-o", out)[0] == 0
    assert run(capsys, "import", "text", "--source", files["src"], "--system", f"B={files['b']}",
               "--append", "-o", out)[0] == 0
    info = info_json(capsys, out)
    assert (info["sources"], info["systems"]) == (2, ["A", "B"])
    before = out.read_bytes()
    other = tmp_path / "other.txt"
    other.write_text("eins\ndrei\n", encoding="utf-8")
    rc, _, err = run(capsys, "import", "text", "--source", other, "--reference", files["ref"],
                     "--append", "-o", out)
    assert rc == 2 and f"{other}:2" in err and "segment 2 is 'zwei' in the database" in err
    assert out.read_bytes() == before
    aachen = tmp_path / "rep.aachen"
    aachen.write_text("SOURCE eins\nTARGET 10 one\nSOURCE eins\nTARGET 10 first\n", encoding="utf-8")
    rc, _, err = run(capsys, "import", "aachen", aachen, "--append", "-o", out)
    assert rc == 0 and "warning: 1 source sentence(s) without segment ids" in err
    db = etdb.load_database(out)
    assert [(s.seg, s.text) for s in db.sources] == [("1", "eins"), ("2", "zwei")]
    # the Aachen sentence joins line 1 by text (Appendix A.2); its references have no system id
    assert [(t.system, t.text) for t in db.references(db.sources[0])] == [
        ("ref-1", "one"), (None, "one"), (None, "first")]
