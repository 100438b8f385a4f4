"""``--progress auto|always|never`` of the long commands (``cli/progress.py``): a bar on a
terminal, a line every ~10 s in a log, nothing on request; and the first run's "compiling
kernels" notice."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import pytest

from evaltrans_qt.cli import progress
from evaltrans_qt.cli.main import build_parser, main
from evaltrans_qt.cli.progress import ProgressBar
from evaltrans_qt.engine.run.driver import Progress
from evaltrans_qt.io.etdb.reader import load_database


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def _events(bar: ProgressBar, now: list[float], times: list[float], total: int = 100) -> None:
    for k, t in enumerate(times, 1):
        now[0] = t
        bar(Progress(k * total // len(times), total, f"INVWER: {k} of {len(times)} sentence "
                                                     "pairs"))


def test_a_log_gets_a_line_every_interval_and_the_last_one():
    now = [0.0]
    out = io.StringIO()                                   # not a terminal: a log
    bar = ProgressBar(out, clock=lambda: now[0], log_interval=10.0)
    _events(bar, now, [3.0, 9.0, 11.0, 15.0, 22.0, 24.0, 26.5])
    lines = out.getvalue().splitlines()
    assert len(lines) == 3 and "\r" not in out.getvalue()
    assert lines[0].startswith("evaltrans: 42% INVWER: 3 of 7 sentence pairs")
    assert lines[0].endswith("11 s elapsed") and lines[1].endswith("22 s elapsed")
    assert lines[2].startswith("evaltrans: 100% INVWER: 7 of 7") and "left" not in lines[2]


def test_a_short_run_logs_nothing_and_never_is_silent():
    now = [0.0]
    out = io.StringIO()
    _events(ProgressBar(out, clock=lambda: now[0]), now, [1.0, 2.0, 3.0])
    assert out.getvalue() == ""
    tty = Tty()
    _events(ProgressBar(tty, clock=lambda: now[0], mode="never"), now, [5.0, 50.0, 90.0])
    assert tty.getvalue() == ""


def test_the_bar_on_a_terminal_and_with_always():
    now = [0.0]
    for stream, mode in ((Tty(), "auto"), (io.StringIO(), "always")):
        _events(ProgressBar(stream, clock=lambda: now[0], mode=mode, interval=0.0), now,
                [1.0, 2.0])
        text = stream.getvalue()
        assert text.startswith("\r[") and "100% INVWER: 2 of 2" in text and text.endswith("\n")


def test_warnings_are_shown_in_every_mode():
    for mode in progress.PROGRESS_MODES:
        out = io.StringIO()
        ProgressBar(out, mode=mode)(Progress(1, 2, "x", ("LJWER approximated",)))
        assert "evaltrans: warning: LJWER approximated" in out.getvalue()


def test_compilation_is_announced_when_the_kernel_cache_is_missing(monkeypatch):
    import evaltrans_qt.engine.warmup as warmup
    monkeypatch.setattr(warmup, "kernels_cached", lambda: False)
    out = io.StringIO()
    assert ProgressBar(out).announce_compilation()
    assert "compiling kernels (first run only" in out.getvalue()
    quiet = io.StringIO()
    assert not ProgressBar(quiet, mode="never").announce_compilation()
    assert quiet.getvalue() == ""
    monkeypatch.setattr(warmup, "kernels_cached", lambda: True)
    warm = io.StringIO()
    assert not ProgressBar(warm).announce_compilation() and warm.getvalue() == ""


def test_an_empty_numba_cache_is_seen(tmp_path):
    """``kernels_cached`` reads numba's cache index files: with an empty cache folder
    (NUMBA_CACHE_DIR) nothing is cached."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    code = "from evaltrans_qt.engine.warmup import kernels_cached; print(kernels_cached())"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.stdout.strip() == "False", out.stderr


@pytest.mark.parametrize("argv", [
    ["batch", "--database", "x", "--all-systems"],
    ["correlate", "x"],
    ["significance", "x"],
    ["combine", "x"],
    ["export", "mtme", "x", "-o", "y"],
    ["wmt14-tables", "en-de=x"],
    ["extrapolate", "x"],
    ["unseen", "x", "--leave-one-out"],
    ["segranks", "extract", "--database", "x", "--trees", "t", "-o", "y"],
    ["score", "r.txt"],
])
def test_every_long_command_has_the_option(argv):
    parser = build_parser(argv[0])
    assert parser.parse_args([*argv, "--progress", "never"]).progress == "never"
    # score decides its default at run time (auto, never with --quiet): sacreBLEU's stderr
    assert parser.parse_args(argv).progress == (None if argv[0] == "score" else "auto")


def test_the_bar_waits_for_its_delay_under_auto_only():
    now = [0.0]
    short = Tty()
    _events(ProgressBar(short, clock=lambda: now[0], interval=0.0, delay=2.0), now,
            [0.5, 1.0, 1.9])
    assert short.getvalue() == ""                      # over before the delay: nothing
    now[0] = 0.0
    long_run = Tty()
    _events(ProgressBar(long_run, clock=lambda: now[0], interval=0.0, delay=2.0), now,
            [1.0, 2.5, 4.0])
    assert long_run.getvalue().count("\r[") == 2 and "100%" in long_run.getvalue()
    now[0] = 0.0
    forced = io.StringIO()
    _events(ProgressBar(forced, clock=lambda: now[0], interval=0.0, delay=2.0,
                        mode="always"), now, [0.1, 0.2])
    assert forced.getvalue().count("\r[") == 2


def _score_files(tmp_path):
    ref = tmp_path / "r.txt"
    hyp = tmp_path / "h.txt"
    ref.write_text("the cat sat on the mat .\nit rained all day .\n", encoding="utf-8")
    hyp.write_text("the cat sat on a mat .\nit was raining all day .\n", encoding="utf-8")
    return str(ref), str(hyp)


def test_score_without_the_option_prints_what_sacrebleu_prints(tmp_path, monkeypatch, capsys):
    """No --progress: stdout equal to --progress never, nothing on stderr for a short run,
    on a terminal too (the bar waits SHOW_AFTER seconds); always: the bar on stderr only."""
    import evaltrans_qt.engine.warmup as warmup
    from evaltrans_qt.cli import score
    monkeypatch.setattr(warmup, "kernels_cached", lambda: True)
    # "short" by the clock: this run may take seconds on a loaded test machine
    monkeypatch.setattr(score, "SHOW_AFTER", 3600.0)
    ref, hyp = _score_files(tmp_path)
    base = ["score", ref, "-i", hyp, "-m", "bleu", "chrf", "ter"]
    seen = {}
    for extra in ([], ["--progress", "never"], ["--progress", "always"]):
        tty = Tty()
        monkeypatch.setattr(sys, "stderr", tty)
        assert main([*base, *extra]) == 0
        seen[tuple(extra)] = (capsys.readouterr().out, tty.getvalue())
    assert seen[()][0] == seen[("--progress", "never")][0] and '"name": "BLEU"' in seen[()][0]
    assert seen[()][1] == "" == seen[("--progress", "never")][1]
    out, err = seen[("--progress", "always")]
    assert out == seen[()][0]
    assert "\r[" in err and "100% ter of " in err


def test_score_quiet_means_no_progress(tmp_path, monkeypatch):
    from evaltrans_qt.cli import score
    parser = build_parser("score")
    args = parser.parse_args(["score", "r.txt", "-q"])
    monkeypatch.setattr(progress.ProgressBar, "announce_compilation", lambda self: False)
    assert score._progress(args).mode == "never"
    args = parser.parse_args(["score", "r.txt", "-q", "--progress", "always"])
    assert score._progress(args).mode == "always"


def test_extrapolate_progress_in_a_log(demo, tmp_path, monkeypatch, capsys):
    """Per source sentence, for the leave-one-out report and for the filling with -o; the
    report is the same in every mode."""
    monkeypatch.setattr(progress, "LOG_INTERVAL", 0.0)
    base = ["extrapolate", str(demo), "--human", "fluency", "-o", str(tmp_path / "o.etdb.xml"),
            "--json"]
    outs, errs = {}, {}
    for mode in progress.PROGRESS_MODES:
        assert main([*base, "--progress", mode]) == 0
        captured = capsys.readouterr()
        outs[mode], errs[mode] = captured.out, captured.err
    n = len(load_database(demo).sources)
    assert f"evaltrans: 100% 'fluency' leave-one-out: sources: {n} of {n}" in errs["auto"]
    assert f"evaltrans: 100% 'fluency' extrapolated: sources: {n} of {n}" in errs["auto"]
    assert "evaltrans: 50% 'fluency' leave-one-out" in errs["auto"]
    assert "\r[" in errs["always"] and "%" not in errs["never"]
    assert outs["auto"] == outs["always"] == outs["never"]


def test_the_engine_loops_report_every_unit(demo):
    from evaltrans_qt.engine.human import similar
    db = load_database(demo)
    n = len(db.sources)
    seen: list[tuple[int, int]] = []
    similar.leave_one_out(db, "fluency", progress=lambda d, t: seen.append((d, t)))
    assert seen == [(k, n) for k in range(1, n + 1)]
    seen.clear()
    similar.extrapolate(db, "fluency", progress=lambda d, t: seen.append((d, t)))
    assert seen == [(k, n) for k in range(1, n + 1)]


def test_align_says_when_it_compiles_the_kernels(monkeypatch, capsys):
    import evaltrans_qt.engine.warmup as warmup
    argv = ["align", "--measure", "wer", "a b c d", "a c b d"]
    monkeypatch.setattr(warmup, "kernels_cached", lambda: False)
    assert main(argv) == 0
    cold = capsys.readouterr()
    assert "compiling kernels (first run only" in cold.err
    monkeypatch.setattr(warmup, "kernels_cached", lambda: True)
    assert main(argv) == 0
    warm = capsys.readouterr()
    assert warm.err == "" and warm.out == cold.out


def test_batch_progress_in_a_log(demo, tmp_path, monkeypatch, capsys):
    """``--progress auto`` with stderr not a terminal writes log lines (interval 0 here); the
    bar with ``always``; nothing with ``never`` -- and the numbers are the same."""
    monkeypatch.setattr(progress, "LOG_INTERVAL", 0.0)
    base = ["batch", "--database", str(demo), "--all-systems", "--measures", "wer,bleu",
            "--jobs", "1", "--json"]
    outs, errs = {}, {}
    for mode in progress.PROGRESS_MODES:
        assert main([*base, "--progress", mode]) == 0
        captured = capsys.readouterr()
        outs[mode], errs[mode] = captured.out, captured.err
    assert "evaltrans: 100% " in errs["auto"] and "elapsed" in errs["auto"]
    assert "\r[" not in errs["auto"]
    assert "\r[" in errs["always"] and "100%" in errs["always"]
    assert "%" not in errs["never"]
    systems = [json.loads(outs[m])["systems"] for m in progress.PROGRESS_MODES]
    assert systems[0] == systems[1] == systems[2] and len(systems[0]) == 4


def test_a_message_after_an_unfinished_bar_starts_its_own_line():
    now = [0.0]
    out = Tty()
    bar = ProgressBar(out, clock=lambda: now[0], interval=0.0)
    bar.break_line()
    assert out.getvalue() == ""                        # nothing drawn: nothing to end
    bar.step(1, 3, "bleu of A")
    bar.break_line()
    text = out.getvalue()
    assert text.endswith("\n") and text.rstrip().endswith("bleu of A") and text.count("\n") == 1
    bar.step(3, 3, "done")
    bar.break_line()                                   # the finished bar ended its line
    text = out.getvalue()
    assert text.rstrip().endswith("done") and text.count("\n") == 2


def test_segranks_extract_progress_per_source(tmp_path, monkeypatch, capsys):
    """``segranks extract`` reports its stages and each source's extraction; the numbers it
    prints do not depend on --progress."""
    from pathlib import Path
    example = Path(__file__).resolve().parents[2] / "resources" / "segranks_example"
    monkeypatch.setattr(progress, "LOG_INTERVAL", 0.0)
    outs, errs = {}, {}
    for mode in progress.PROGRESS_MODES:
        assert main(["segranks", "extract", "--database", str(example / "campaign.etdb.xml"),
                     "--trees", str(example / "sources.ptb"), "--alignments-dir", str(example),
                     "-o", str(tmp_path / f"{mode}.segments"), "--output-database",
                     str(tmp_path / f"{mode}.etdb.xml"), "--json", "--progress", mode]) == 0
        captured = capsys.readouterr()
        outs[mode], errs[mode] = captured.out, captured.err
    n = len(load_database(example / "campaign.etdb.xml").sources)
    assert f"evaltrans: 100% segments extracted: sources: {n} of {n}" in errs["auto"]
    assert "evaltrans: 0% reading the parse trees" in errs["auto"]
    assert "\r[" in errs["always"] and "%" not in errs["never"]
    assert outs["auto"] == outs["always"] == outs["never"] and json.loads(outs["auto"])


def test_unseen_leave_one_out_progress_per_system(tmp_path, monkeypatch, capsys):
    """``unseen --leave-one-out`` reports each system left out; its report does not depend
    on --progress."""
    from evaltrans_qt.engine.human.unseen import matching
    from evaltrans_qt.io.etdb import save_database
    from tests.engine.human.unseen_db import make_db
    db = make_db()
    save_database(db, tmp_path / "u.etdb.xml")
    seen: list[tuple[int, int]] = []
    n = len(matching.leave_one_system_out(db, progress=lambda d, t: seen.append((d, t))))
    assert n >= 2 and seen == [(k, n) for k in range(1, n + 1)]
    monkeypatch.setattr(progress, "LOG_INTERVAL", 0.0)
    outs, errs = {}, {}
    for mode in progress.PROGRESS_MODES:
        assert main(["unseen", str(tmp_path / "u.etdb.xml"), "--leave-one-out", "--json",
                     "--progress", mode]) == 0
        captured = capsys.readouterr()
        outs[mode], errs[mode] = captured.out, captured.err
    assert f"evaltrans: 100% systems left out: {n} of {n}" in errs["auto"]
    assert "\r[" in errs["always"] and "%" not in errs["never"]
    assert outs["auto"] == outs["always"] == outs["never"]


def test_score_says_when_it_compiles_the_kernels(tmp_path, monkeypatch, capsys):
    """TER runs compiled kernels: with their cache missing score says so on stderr (stdout
    unchanged), not with --progress never or --quiet. (BLEU of a small input loads no
    kernels and says nothing: test_main_startup.)"""
    import evaltrans_qt.engine.warmup as warmup
    ref, hyp = _score_files(tmp_path)
    base = ["score", ref, "-i", hyp, "-m", "ter"]
    monkeypatch.setattr(warmup, "kernels_cached", lambda: False)
    got = {}
    for extra in ([], ["--progress", "never"], ["-q"]):
        assert main([*base, *extra]) == 0
        got[tuple(extra)] = capsys.readouterr()
    assert got[()].err.startswith("evaltrans: compiling kernels (first run only")
    assert "compiling" not in got[("--progress", "never")].err + got[("-q",)].err
    assert got[()].out == got[("--progress", "never")].out
