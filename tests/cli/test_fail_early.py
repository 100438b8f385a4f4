"""Outputs and required values are checked before any computation: a missing or unwritable
output folder, an output that is a folder (or a file where a folder is written), and a
language pair ``export mtme`` needs fail at once, naming the option and the path, with
nothing written; ``import text``/``import wmt`` record the language pair their options or
file names give, so ``export mtme`` needs no ``--lp``."""

from __future__ import annotations

import os

import pytest

from evaltrans_qt.cli.main import main
from evaltrans_qt.io.mtme import LP_ATTR
from evaltrans_qt.io.store import open_database


def run(capsys, *argv) -> tuple[int, str, str]:
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.fixture
def no_evaluation(monkeypatch):
    """Any evaluation started fails the test: the checks come before computing."""
    def refuse(*_a, **_k):
        raise AssertionError("computation started before the outputs were checked")
    import evaltrans_qt.cli.batch as batch
    import evaltrans_qt.engine.run.driver as driver
    monkeypatch.setattr(batch, "evaluate", refuse)
    monkeypatch.setattr(driver, "evaluate", refuse)


@pytest.fixture
def wmt_folder(tmp_path):
    d = tmp_path / "wmt"
    d.mkdir()
    (d / "t.de-en.src.de").write_text("ein Haus\nzwei\n", encoding="utf-8")
    (d / "t.de-en.ref.A.en").write_text("a house\ntwo\n", encoding="utf-8")
    (d / "t.de-en.hyp.S1.en").write_text("one house\ntwo\n", encoding="utf-8")
    return d


def _commands(demo, tmp_path, out):
    """Every command that writes a file, with ``out`` as the file it writes."""
    src = tmp_path / "s.txt"
    src.write_text("a\n", encoding="utf-8")
    return {
        "batch": ["batch", "--database", demo, "--all-systems", "--xml-mode",
                  "--output-file", out],
        "batch --sentences": ["batch", "--database", demo, "--system", "WebTrans",
                              "--sentences", out.with_suffix(".tsv")],
        "import text": ["import", "text", "--source", src, "--reference", src, "-o", out],
        "export aachen": ["export", "aachen", demo, "-o", out],
        "merge": ["merge", demo, demo, "-o", out],
        "classes": ["classes", demo, "--add-template", "fluency5", "--name", "f2", "-o", out],
        "extrapolate": ["extrapolate", demo, "--human", "fluency", "-o", out],
        "reference": ["reference", demo, "--source", "1", "--system", "WebTrans", "-o", out],
        "ranking wins": ["ranking", "wins", demo, "-o", out],
        "segranks export": ["segranks", "export", demo, "-o", out.with_suffix(".json")],
        "wmt14-tables": ["wmt14-tables", f"de-en={demo}", "--human", "fluency", "-o", out],
    }


@pytest.mark.parametrize("command", ["batch", "batch --sentences", "import text",
                                     "export aachen", "merge", "classes", "extrapolate",
                                     "reference", "ranking wins", "segranks export",
                                     "wmt14-tables"])
def test_missing_output_folder_fails_before_computing(command, demo, tmp_path, capsys,
                                                      no_evaluation):
    out = tmp_path / "missing" / "out.xml"
    argv = _commands(demo, tmp_path, out)[command]
    rc, _, err = run(capsys, *argv)
    assert rc == 2
    assert "does not exist" in err and "missing" in err, err
    assert not (tmp_path / "missing").exists()


def test_output_that_is_a_folder_is_refused(demo, tmp_path, capsys, no_evaluation):
    folder = tmp_path / "out.xml"
    folder.mkdir()
    rc, _, err = run(capsys, "batch", "--database", demo, "--system", "WebTrans", "--xml-mode",
                     "--output-file", folder)
    assert rc == 2 and "--output-file: this is a folder" in err


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_unwritable_output_folder_is_refused(demo, tmp_path, capsys, no_evaluation):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        rc, _, err = run(capsys, "export", "aachen", demo, "-o", ro / "x.txt")
    finally:
        ro.chmod(0o700)
    assert rc == 2 and "cannot write" in err


def test_export_mtme_needs_the_language_pair_before_computing(demo, tmp_path, capsys,
                                                              no_evaluation):
    rc, _, err = run(capsys, "export", "mtme", demo, "-o", tmp_path / "mt")
    assert rc == 2 and "--lp" in err
    assert not (tmp_path / "mt").exists()


def test_export_mtme_refuses_a_file_as_its_folder(demo, tmp_path, capsys, no_evaluation):
    f = tmp_path / "mt"
    f.write_text("x", encoding="utf-8")
    rc, _, err = run(capsys, "export", "mtme", demo, "--lp", "de-en", "-o", f)
    assert rc == 2 and "not a folder" in err


def test_import_wmt_records_the_language_pair_of_its_file_names(wmt_folder, tmp_path, capsys):
    db = tmp_path / "w.etdb.xml"
    assert run(capsys, "import", "wmt", wmt_folder, "-o", db)[0] == 0
    assert open_database(db).database.extra_attrs[LP_ATTR] == "de-en"
    rc, _, err = run(capsys, "export", "mtme", db, "--no-measures", "-o", tmp_path / "mt")
    assert rc == 0, err
    assert (tmp_path / "mt" / "sources" / "de-en.txt").read_text(encoding="utf-8") \
        == "ein Haus\nzwei\n"


def test_import_text_records_the_language_pair(tmp_path, capsys):
    src, ref, other = tmp_path / "t.de", tmp_path / "t.en", tmp_path / "t.txt"
    for p in (src, ref, other):
        p.write_text("a\n", encoding="utf-8")
    by_names, by_option, unknown = (tmp_path / f"{n}.etdb.xml" for n in ("n", "o", "u"))
    assert run(capsys, "import", "text", "--source", src, "--reference", ref, "-o",
               by_names)[0] == 0
    assert open_database(by_names).database.extra_attrs[LP_ATTR] == "de-en"
    assert run(capsys, "import", "text", "--source", other, "--reference", other, "--lp",
               "fr-en", "-o", by_option)[0] == 0
    assert open_database(by_option).database.extra_attrs[LP_ATTR] == "fr-en"
    assert run(capsys, "import", "text", "--source", other, "--reference", other, "-o",
               unknown)[0] == 0
    assert LP_ATTR not in open_database(unknown).database.extra_attrs
    # appending another pair to a database that records one is an error
    rc, _, err = run(capsys, "import", "text", "--source", other, "--reference", other,
                     "--lp", "it-en", "--append", "-o", by_option)
    assert rc == 2 and "fr-en" in err and "it-en" in err


def test_bad_language_pair_is_a_one_line_argument_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["import", "text", "--source", "s", "-o", str(tmp_path / "x.etdb.xml"),
              "--lp", "german"])
    assert exc.value.code == 2
    assert "SRC-TGT" in capsys.readouterr().err


def test_import_wmtxml_records_the_language_pair_it_declares(tmp_path, capsys):
    xml = tmp_path / "t.xml"
    xml.write_text('<dataset id="t"><collection id="c"><doc id="d" origlang="de">'
                   '<src lang="de"><p><seg id="1">eins</seg></p></src>'
                   '<ref lang="en" translator="A"><p><seg id="1">one</seg></p></ref>'
                   '</doc></collection></dataset>', encoding="utf-8")
    db = tmp_path / "x.etdb.xml"
    assert run(capsys, "import", "wmtxml", xml, "-o", db)[0] == 0
    assert open_database(db).database.extra_attrs[LP_ATTR] == "de-en"
