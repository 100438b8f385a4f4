"""``evaltrans batch`` (EvalTransBatchEval, thesis Appendix A.1, Tables A.1-A.8)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from lxml import etree

from evaltrans_qt.cli.main import build_parser, main
from evaltrans_qt.engine.options import PRESETS, EvalOptions, option_fields
from evaltrans_qt.io.etdb import save_database
from evaltrans_qt.io.report import read_report
from tests.engine.measures.toymeasure import small_db

SOURCES = ["s one", "s two", "s three", "s four", "s five"]


@pytest.fixture()
def files(tmp_path: Path) -> dict[str, Path]:
    db = tmp_path / "test.etdb.xml"
    save_database(small_db(), db)
    src = tmp_path / "src.txt"
    src.write_text("\n".join(SOURCES[::-1]) + "\n", encoding="utf-8")   # order differs from db
    hyp = tmp_path / "hyp.txt"
    hyp.write_text("m n o\nk\np q r\nx y\na b c d e\n", encoding="utf-8")
    ref = tmp_path / "ref.txt"
    ref.write_text("m n o\nk l\np q\nx y z\na b c d\n", encoding="utf-8")
    return {"db": db, "src": src, "hyp": hyp, "ref": ref, "dir": tmp_path}


def test_database_source_target_matched_by_text(files, capsys):
    out = files["dir"] / "r.xml"
    rc = main(["batch", "--database", str(files["db"]), "--source", str(files["src"]),
               "--target", str(files["hyp"]), "--measures", "tlen,tgram,wer", "--xml-mode",
               "--sentences-in-detail", "--include-sentences", "--output-file", str(out),
               "--jobs", "1", "--wer-ref-length-rule", "lowestError", "--comment", "hello"])
    assert rc == 0
    run = read_report(out)
    sr = run.systems["hyp.txt"]
    # line i of hyp.txt translates source line i of src.txt = database source 4 - i
    assert sr.segments == (4, 3, 2, 1, 0)
    assert sr.target_indices == (-1,) * 5
    # tlen: |I - L_r| minimum over the database's references (see toymeasure.small_db)
    assert sr.stats["tlen"][:, 0].tolist() == [0, 0, 1, 0, 1]
    assert run.options.wer_ref_length_rule == "lowestError"
    assert run.meta["comment"] == "hello"
    root = etree.parse(str(out)).getroot()
    cmd = root.findtext("files/command-line")
    assert "--wer-ref-length-rule lowestError" in cmd and "--xml-mode" in cmd
    assert root.findtext("files/database-file") == str(files["db"])


def test_reference_files_instead_of_database(files):
    out = files["dir"] / "r.xml"
    rc = main(["batch", "--source", str(files["src"]), "--reference", str(files["ref"]),
               "--target", f"mine={files['hyp']}", "--measures", "tlen,bleu", "--xml-mode",
               "--output-file", str(out), "--bleu-pad-rule", "both", "--case", "ignore"])
    assert rc == 0
    run = read_report(out)
    assert run.systems["mine"].scores["tlen"].details["sum"] == 0 + 1 + 1 + 1 + 1
    assert run.options == EvalOptions(bleu_pad_rule="both", case="ignore")


def test_every_option_has_its_flag():
    """Every option of the registry is accepted with its thesis flag name and value names."""
    argv = ["batch", "--source", "s", "--reference", "r", "--target", "t"]
    expected = {}
    for f in option_fields():
        md = f.metadata
        if md.get("kind") == "flag":
            argv.append(f"--{md['flag']}")
            expected[f.name] = True
        elif md["choices"]:
            v = md["choices"][-1] if md["choices"][-1] != f.default else md["choices"][0]
            argv += [f"--{md['flag']}", v]
            expected[f.name] = v
    argv += ["--nper-max-ngram", "3", "--transposition-costs", "2,1,1,1,1",
             "--leaving-one-out", "BLEU,mWER"]
    args = build_parser().parse_args(argv)
    from evaltrans_qt.cli._common import options_from_args
    opts = options_from_args(args)
    for k, v in expected.items():
        assert getattr(opts, k) == v, k
    assert opts.nper_max_ngram == 3 and opts.transposition_costs == (2, 1, 1, 1, 1)
    assert opts.leaving_one_out == ("BLEU", "mWER")


@pytest.mark.parametrize("flag", ["--wer-ref-length-rule lowestError", "--bleu-pad-rule both",
                                  "--substitution-cost-rule prefix", "--sentences-in-detail",
                                  "--include-sentences", "--xml-mode", "--allow-transpositions",
                                  "--allow-long-jumps", "--tokenization mteval",
                                  "--case ignore", "--encoding iso8859-1", "--comment x",
                                  "--output-file o.xml", "--cder-coverage-rule half",
                                  "--nist-ref-length-rule minimumNearest",
                                  "--nper-choose-references-separately", "--all-ngrams",
                                  "--max-bigram-skip 2", "--extrapolate"])
def test_thesis_flag_names(flag):
    build_parser().parse_args(["batch", "--source", "s"] + flag.split())


def test_all_systems_json_and_summary(files, capsys):
    out = files["dir"] / "rep.xml"
    rc = main(["batch", "--database", str(files["db"]), "--all-systems", "--measures",
               "tlen", "--xml-mode", "--output-file", str(out), "--json"])
    assert rc == 0
    summary = json.loads(capsys.readouterr().out)
    assert set(summary["systems"]) == {"A", "B"}
    for name in ("A", "B"):
        path = Path(summary["systems"][name]["report"])
        assert path == files["dir"] / f"rep.{name}.xml"
        back = read_report(path)
        assert back.systems[name].scores["tlen"].value == pytest.approx(
            summary["systems"][name]["scores"]["tlen"]["value"])
    assert json.loads((files["dir"] / "rep.summary.json").read_text()) == summary
    # A: d = 0,1,1,2,0 over L* = 3.5+2.5+3.5+1.5+3 (toymeasure.small_db)
    assert summary["systems"]["A"]["scores"]["tlen"]["value"] == pytest.approx(4 / 14)


def test_text_mode_prints_summary(files, capsys):
    rc = main(["batch", "--database", str(files["db"]), "--system", "A", "--measures", "tlen"])
    assert rc == 0
    out = capsys.readouterr().out
    assert "system: A" in out and "tlen: 0.2857" in out


@pytest.mark.parametrize("case", ["missing-file", "unknown-source", "line-count",
                                  "both-inputs", "bad-measure", "no-target", "bad-encoding",
                                  "bad-costs"])
def test_bad_input_exit_2_and_nothing_written(files, case, capsys):
    out = files["dir"] / "r.xml"
    base = ["batch", "--xml-mode", "--output-file", str(out), "--measures", "tlen"]
    bad = files["dir"] / "bad.txt"
    if case == "missing-file":
        argv = base + ["--source", str(files["src"]), "--reference", "nope.txt",
                       "--target", str(files["hyp"])]
    elif case == "unknown-source":
        bad.write_text("s one\nnot in the database\ns three\ns four\ns five\n")
        argv = base + ["--database", str(files["db"]), "--source", str(bad),
                       "--target", str(files["hyp"])]
    elif case == "line-count":
        bad.write_text("a\nb\n")
        argv = base + ["--database", str(files["db"]), "--source", str(files["src"]),
                       "--target", str(bad)]
    elif case == "both-inputs":
        argv = base + ["--database", str(files["db"]), "--reference", str(files["ref"]),
                       "--source", str(files["src"]), "--target", str(files["hyp"])]
    elif case == "bad-measure":
        argv = base[:-1] + ["nosuch", "--database", str(files["db"]), "--all-systems"]
    elif case == "no-target":
        argv = base + ["--database", str(files["db"])]
    elif case == "bad-encoding":
        argv = base + ["--database", str(files["db"]), "--all-systems", "--encoding", "nope"]
    else:
        argv = base + ["--database", str(files["db"]), "--all-systems",
                       "--transposition-costs", "0,1,1,1,1"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "evaltrans: error:" in err
    if case == "unknown-source":
        assert f"{bad}:2" in err
    if case == "line-count":
        assert f"{bad}:3" in err
    assert not out.exists()
    assert not list(files["dir"].glob("r*.xml"))


def test_bad_choice_is_usage_error(files):
    with pytest.raises(SystemExit) as e:
        main(["batch", "--database", str(files["db"]), "--bleu-pad-rule", "sideways"])
    assert e.value.code == 2


# --------------------------------------------------------------------------- WMT, 3 refs
@pytest.mark.slow
def test_wmt_all_systems_three_references(wmt_dir, tmp_path, capsys):
    """All 20 WMT21 en-de systems against refs A, C, D: a valid report per system that
    round-trips, and BLEU equal to sacreBLEU's (reference_values.json, printed to 2 dp)."""
    import sacrebleu  # noqa: F401  (the oracle's tool; just make sure the env is complete)

    from evaltrans_qt.engine.measures import load_all
    from evaltrans_qt.io.etdb import save_database as save
    from evaltrans_qt.io.wmt import import_wmt
    db_path = tmp_path / "wmt.etdb.xml"
    save(import_wmt(wmt_dir), db_path)
    out = tmp_path / "wmt.xml"
    rc = main(["batch", "--database", str(db_path), "--all-systems", "--xml-mode",
               "--output-file", str(out), "--json"])
    assert rc == 0
    summary = json.loads(capsys.readouterr().out)
    ref_values = json.loads((wmt_dir / "reference_values.json").read_text())["systems"]
    assert len(summary["systems"]) == 20
    for name, info in summary["systems"].items():
        back = read_report(info["report"])
        assert set(back.measures) == set(summary["measures"])
        for m, sc in back.systems[name].scores.items():
            assert sc.value == pytest.approx(info["scores"][m]["value"], rel=1e-12, abs=1e-12)
        if "bleu" in load_all():
            key = f"newstest2021.en-de.hyp.{name}.de"
            assert round(100 * info["scores"]["bleu"]["value"], 2) == pytest.approx(
                round(ref_values[key]["bleu_allrefs"], 2), abs=0.0101)


@pytest.mark.slow
def test_wmt_one_system_in_detail_round_trips(wmt_dir, tmp_path):
    d = wmt_dir
    out = tmp_path / "one.xml"
    rc = main(["batch", "--source", str(d / "newstest2021.en-de.src.en"),
               "--reference", str(d / "newstest2021.en-de.ref.A.de"),
               "--reference", str(d / "newstest2021.en-de.ref.C.de"),
               "--reference", str(d / "newstest2021.en-de.ref.D.de"),
               "--target", f"UEdin={d / 'newstest2021.en-de.hyp.UEdin.de'}",
               "--xml-mode", "--sentences-in-detail", "--include-sentences",
               "--output-file", str(out)])
    assert rc == 0
    run = read_report(out)
    sr = run.systems["UEdin"]
    assert len(sr.segments) == 1002 and len(sr.target_texts) == 1002
    for m in run.measures:
        if m in sr.stats:
            assert sr.stats[m].shape[0] == 1002
            total = run.measure(m).score(sr.stats[m].sum(axis=0))
            assert total.value == pytest.approx(sr.scores[m].value, rel=1e-9)
    assert all(len(r) == 3 for r in sr.reference_texts)
    if "wer" in sr.ref_distances:
        assert sr.ref_distances["wer"].shape == (1002, 3)
        assert np.all(sr.stats["wer"][:, 0] == np.nanmin(sr.ref_distances["wer"], axis=1))


def test_extrapolate_records_estimated_human_scores(files, capsys):
    """--extrapolate (Table A.2): a file candidate identical to a scored one gets its score."""
    from evaltrans_qt.engine.data.database import Levels
    db = small_db()
    db.levels.insert(0, Levels("fluency", count=6, gray=2, green=5, perfect=5, firstvalid=1))
    a0 = next(t for t in db.sources[0].targets if t.system == "A")      # "a b c"
    a0.set_score("fluency", 4, judge="j")
    path = files["dir"] / "h.etdb.xml"
    save_database(db, path)
    src = files["dir"] / "s.txt"
    src.write_text("s one\ns two\n", encoding="utf-8")
    hyp = files["dir"] / "h.txt"
    hyp.write_text("a b c\nsomething new\n", encoding="utf-8")
    out = files["dir"] / "x.xml"
    rc = main(["batch", "--database", str(path), "--source", str(src), "--target",
               f"H={hyp}", "--measures", "tlen", "--extrapolate", "--xml-mode",
               "--output-file", str(out), "--json"])
    assert rc == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["systems"]["H"]["human"]["fluency"] == {"value": 4.0, "scored": 0,
                                                           "extrapolated": 1}
    run = read_report(out)
    assert run.options.extrapolate is True
    (attrs, value), = run.meta["candidate-statistics"]["human-score"]
    assert attrs == {"class": "fluency", "scored": 0, "extrapolated": 1} and value == 4.0
    assert main(["batch", "--source", str(src), "--reference", str(hyp), "--target",
                 str(hyp), "--extrapolate"]) == 2


def test_progress_bar_only_on_a_terminal():
    import io

    from evaltrans_qt.cli.batch import ProgressBar
    from evaltrans_qt.engine.run.driver import Progress

    class Tty(io.StringIO):
        def isatty(self):
            return True
    tty, pipe = Tty(), io.StringIO()
    for stream in (tty, pipe):
        bar = ProgressBar(stream)
        for p in (Progress(0, 0, "tokenising"), Progress(5, 10, "A"), Progress(10, 10, "B")):
            bar(p)
    assert "50%" in tty.getvalue() and "100%" in tty.getvalue() and "\r" in tty.getvalue()
    assert pipe.getvalue() == ""


def test_recorded_command_line_reproduces_the_run(files):
    """A report records every option needed to reproduce it (thesis Appendix A.3)."""
    import shlex
    out = files["dir"] / "first.xml"
    assert main(["batch", "--source", str(files["src"]), "--reference", str(files["ref"]),
                 "--target", f"H={files['hyp']}", "--measures", "tlen,tgram,sbper", "--xml-mode",
                 "--sentences-in-detail", "--output-file", str(out), "--preset",
                 "thesis default", "--max-bigram-skip", "2"]) == 0
    first = read_report(out)
    argv = shlex.split(etree.parse(str(out)).getroot().findtext("files/command-line"))
    assert argv[:2] == ["evaltrans", "batch"] and "--preset" not in argv
    again = files["dir"] / "again.xml"
    argv[argv.index("--output-file") + 1] = str(again)
    assert main(argv[1:]) == 0
    second = read_report(again)
    assert first.options == PRESETS["thesis default"].replace(max_bigram_skip=2)
    # the options that matter to the measures are spelled out, so the numbers and their
    # signatures are the same; options no measure uses are left out (they would be refused)
    assert second.signatures() == first.signatures()
    for m in first.measures:
        np.testing.assert_array_equal(first.systems["H"].stats[m], second.systems["H"].stats[m])

