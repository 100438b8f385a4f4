"""``evaltrans score`` against the real ``sacrebleu`` command.

Every case runs sacreBLEU 2.x's own ``main()`` (all cases in one subprocess, see
``_SACRE_DRIVER``) and ``evaltrans score`` with the same arguments on the same
files, then compares: JSON field by field (numbers to 1e-9, strings equal),
text output line by line. The corpora are small (sacreBLEU's TER is slow) and
cover the edge cases: empty hypotheses and references, 1-3-word
sentences, CJK, emoji, combining accents, no-break spaces, tabs, references
of different lengths.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from evaltrans_qt.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
EVALTRANS = [sys.executable, "-m", "evaltrans_qt.cli.main"]

# ----------------------------------------------------------------------------- corpora
CORPORA: dict[str, list[str]] = {
    # a few ordinary sentences, two references, three systems
    "ref.a": ["The cat sat on the mat .", "Hello world", "", "A b c d e f",
              "It is raining cats and dogs today, isn't it?", "We meet at 10:30 in Berlin."],
    "ref.b": ["A cat sat on a mat.", "Hi world", "", "A b c",
              "Today it's raining heavily, right?", "The meeting is at 10.30 in Berlin"],
    "hyp.1": ["The cat is on the mat.", "hello World !", "something", "A b c d",
              "It rains cats and dogs today, no?", "We meet at 10:30 in Berlin."],
    "hyp.2": ["The cat sat on the mat.", "Hello", "x", "",
              "it is raining cats and dogs today , is n't it ?", "Meeting in Berlin at 10:30"],
    "hyp.3": ["cat mat", "world", "", "A b c d e f", "It is raining.", "We meet in Berlin."],
    # edge cases: 1-3 words, CJK, emoji, combining accents, NBSP, tabs, empty lines,
    # references of very different lengths
    "edge.ref1": ["a", "the end", "猫が座った。", "我们今天去北京。", "café au lait",
                  "cafe\u0301 au lait", "🙂 great 👍", "x\u00a0y z", "", "one two three",
                  "Ünïcödé ÇASE test", "ΟΔΟΣ ΣΟΦΙΑΣ.", "a b\tc d", "short",
                  "A much longer reference sentence with many more words than the others ."],
    "edge.ref2": ["a b c", "end", "猫は座っていた。", "我们今天要去北京。", "cafe au lait",
                  "café", "great 🙂", "x y z", "nothing", "", "ünïcödé case test",
                  "οδος σοφιας.", "a b c d", "a short one that is long", "longer reference ."],
    "edge.hyp": ["a", "", "猫が座っている。", "我们明天去北京。", "cafe\u0301 au lait",
                 "café au lait", "great 👍🙂", "x\u00a0y\u00a0z", "", "one two",
                 "ÜNÏCÖDÉ case TEST", "Οδος Σοφιας .", "a\tb c d", "short short short",
                 "A longer hypothesis ."],
    "edge.empty": [""] * 15,
    "tab.refs": ["The cat sat on the mat .\tA cat sat on a mat.", "Hello world\tHi world",
                 "x\ty", "A b c d e f\tA b c", "It is raining cats and dogs today, isn't it?\t"
                 "Today it's raining heavily, right?",
                 "We meet at 10:30 in Berlin.\tThe meeting is at 10.30 in Berlin"],
}

BASIC = ["ref.a", "ref.b", "-i", "hyp.1"]
EDGE = ["edge.ref1", "edge.ref2", "-i", "edge.hyp"]
MULTI = ["ref.a", "ref.b", "-i", "hyp.1", "hyp.2", "hyp.3"]

CASES: dict[str, list[str]] = {
    "json-default": BASIC + ["-m", "bleu", "chrf", "ter"],
    "text-w4": BASIC + ["-m", "bleu", "chrf", "ter", "-f", "text", "-w", "4"],
    "short-text": BASIC + ["-m", "bleu", "chrf", "ter", "-f", "text", "--short"],
    # (--short with JSON output, which sacreBLEU ignores, is refused: tests/cli/test_options_walk.py)
    "short-latex": BASIC + ["-m", "ter", "chrf", "--short", "-f", "latex"],
    "score-only": BASIC + ["-m", "bleu", "-b"],
    "score-only-3": BASIC + ["-m", "chrf", "bleu", "ter", "-b", "-w", "3", "-f", "text"],
    "score-only-json": BASIC + ["-m", "bleu", "ter", "-b"],
    "num-refs": ["tab.refs", "-nr", "2", "-i", "hyp.1", "-m", "bleu", "chrf", "ter", "-w", "10"],
    "ci-bleu-text": BASIC + ["-m", "bleu", "-ci", "-f", "text", "-w", "3"],
    "ci-bleu-json": BASIC + ["-m", "bleu", "-ci", "--confidence-n", "200", "-w", "4"],
    "empty-hyps": ["edge.ref1", "edge.ref2", "-i", "edge.empty", "-m", "bleu", "chrf", "ter",
                   "-w", "10"],
    "empty-refs": ["edge.empty", "-i", "edge.hyp", "-m", "bleu", "chrf", "ter", "-w", "10"],
    "empty-refs-text": ["edge.empty", "-i", "edge.hyp", "-m", "bleu", "chrf", "ter", "-f",
                        "text"],
    "lang-zh": EDGE + ["-l", "en-zh", "-m", "bleu", "-w", "10"],
    "multi-text": MULTI + ["-m", "bleu", "chrf", "ter", "-f", "text"],
    "multi-json": MULTI + ["-m", "ter", "bleu", "chrf", "-w", "3"],
    "multi-latex": MULTI + ["-m", "bleu", "ter", "-f", "latex", "-w", "2"],
    "multi-short": MULTI + ["-m", "bleu", "-f", "text", "--short"],
    "paired-bs-text": MULTI + ["-m", "bleu", "chrf", "ter", "--paired-bs", "-f", "text"],
    # (sacreBLEU cannot write chrF/TER bootstrap means as JSON: float32; the text has them)
    "paired-bs-json": MULTI + ["-m", "bleu", "--paired-bs"],
    "paired-bs-latex": MULTI + ["-m", "chrf", "--paired-bs", "-f", "latex"],
    "paired-ar-text": MULTI + ["-m", "ter", "bleu", "--paired-ar", "-f", "text", "-w", "2"],
    "paired-ar-json": MULTI + ["-m", "bleu", "chrf", "--paired-ar", "--paired-ar-n", "2000"],
    "paired-short": MULTI + ["-m", "bleu", "--paired-bs", "--paired-bs-n", "300", "-f",
                             "text", "--short"],
}
# the option matrix, on the edge corpus, JSON with 10 decimals
for _name, _opts in {
    "bleu-none": ["-s", "none"], "bleu-floor": ["-s", "floor"],
    "bleu-floor-0.3": ["-s", "floor", "-sv", "0.3"], "bleu-add-k": ["-s", "add-k"],
    "bleu-add-k-2": ["-s", "add-k", "-sv", "2"], "bleu-exp": ["-s", "exp"],
    "bleu-tok-none": ["-tok", "none"], "bleu-tok-intl": ["-tok", "intl"],
    "bleu-tok-char": ["-tok", "char"], "bleu-tok-zh": ["-tok", "zh"], "bleu-lc": ["-lc"],
    "bleu-lc-intl-none": ["-lc", "-tok", "intl", "-s", "none"], "bleu-force": ["--force"],
}.items():
    CASES[_name] = EDGE + ["-m", "bleu", "-w", "10"] + _opts
for _name, _opts in {
    "chrf-default": [], "chrf++": ["--chrf-word-order", "2"],
    "chrf-c4-b1": ["--chrf-char-order", "4", "--chrf-beta", "1"],
    "chrf-ws": ["--chrf-whitespace"], "chrf-lc": ["--chrf-lowercase"],
    "chrf-eps": ["--chrf-eps-smoothing"],
    "chrf-all": ["-cc", "3", "-cw", "1", "--chrf-beta", "3", "--chrf-whitespace",
                 "--chrf-lowercase", "--chrf-eps-smoothing"],
}.items():
    CASES[_name] = EDGE + ["-m", "chrf", "-w", "10"] + _opts
for _name, _opts in {
    "ter-default": [], "ter-cs": ["--ter-case-sensitive"], "ter-norm": ["--ter-normalized"],
    "ter-no-punct": ["--ter-no-punct"], "ter-asian": ["--ter-asian-support"],
    "ter-all": ["--ter-case-sensitive", "--ter-normalized", "--ter-no-punct",
                "--ter-asian-support"],
}.items():
    CASES[_name] = EDGE + ["-m", "ter", "-w", "10"] + _opts
for _m in ("bleu", "chrf", "ter"):
    CASES[f"sl-{_m}"] = EDGE + ["-m", _m, "-sl", "-w", "8"]
CASES["sl-bleu-none-score-only"] = BASIC + ["-m", "bleu", "-sl", "-s", "none", "-b", "-w", "6"]
CASES["sl-bleu-short"] = BASIC + ["-m", "bleu", "-sl", "--short"]
CASES["sl-chrf++-lc"] = BASIC + ["-m", "chrf", "-sl", "-cw", "2", "--chrf-lowercase", "-w", "8"]

_SACRE_DRIVER = r'''
import json, os, sys
from sacrebleu.sacrebleu import main
keep = []   # sacreBLEU re-opens fds 0 and 1 on every call: never let an old object close one
for c in json.load(open(sys.argv[1])):
    keep += [sys.stdin, sys.stdout]
    os.chdir(c["cwd"])
    sys.stdout.flush()
    saved = os.dup(1)
    fd = os.open(c["out"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(fd, 1)
    sys.argv = ["sacrebleu"] + c["args"]
    rc = 0
    try:
        main()
    except SystemExit as e:
        rc = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except Exception as e:      # sacreBLEU bugs (e.g. -ci with chrF/TER under numpy 2)
        rc = repr(e)
    keep += [sys.stdin, sys.stdout]
    sys.stdout.flush()
    os.dup2(saved, 1)
    os.close(saved)
    os.close(fd)
    with open(c["out"] + ".rc", "w") as fh:
        fh.write(str(rc))
'''


@pytest.fixture(scope="module")
def corpus_dir(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("score")
    for name, lines in CORPORA.items():
        (d / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return d


@pytest.fixture(scope="module")
def sacre(corpus_dir) -> dict[str, tuple[str, str]]:
    """sacreBLEU's (stdout, return code) of every case, computed in one subprocess."""
    jobs = [{"cwd": str(corpus_dir), "out": str(corpus_dir / f"sacre.{k}"), "args": a}
            for k, a in CASES.items()]
    spec = corpus_dir / "cases.json"
    spec.write_text(json.dumps(jobs), encoding="utf-8")
    env = dict(os.environ, NO_COLOR="1", PYTHONIOENCODING="utf-8")
    env.pop("SACREBLEU_FORMAT", None)
    env.pop("SACREBLEU_SEED", None)
    subprocess.run([sys.executable, "-c", _SACRE_DRIVER, str(spec)], check=True, env=env,
                   timeout=300, stderr=subprocess.DEVNULL)
    return {k: ((corpus_dir / f"sacre.{k}").read_text(encoding="utf-8"),
                (corpus_dir / f"sacre.{k}.rc").read_text())
            for k in CASES}


def ours(args: list[str], cwd: Path, capsys, monkeypatch) -> tuple[str, int]:
    monkeypatch.chdir(cwd)
    monkeypatch.delenv("SACREBLEU_FORMAT", raising=False)
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    capsys.readouterr()
    rc = main(["score", *args, "-q"])
    return capsys.readouterr().out, rc


def _close(a, b, path: str, rel: float) -> None:
    if isinstance(a, dict):
        assert isinstance(b, dict) and list(a) == list(b), f"{path}: keys {list(a)} != {list(b)}"
        for k in a:
            _close(a[k], b[k], f"{path}.{k}", rel)
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            _close(x, y, f"{path}[{i}]", rel)
    elif isinstance(a, float) or isinstance(b, float):
        assert isinstance(a, (int, float)) and isinstance(b, (int, float)), path
        assert math.isclose(a, b, rel_tol=rel, abs_tol=1e-9), f"{path}: {a} != {b}"
    else:
        assert a == b, f"{path}: {a!r} != {b!r}"


def compare_output(theirs: str, mine: str, case: str) -> None:
    args = CASES[case]
    fmt = args[args.index("-f") + 1] if "-f" in args else "json"
    if fmt == "json" and "-b" not in args and "-sl" not in args:
        # paired bootstrap: sacreBLEU sums resampled statistics in float32 (means and
        # intervals agree to ~1e-6 relative); scores and p-values to 1e-9
        rel = 1e-6 if "--paired-bs" in args else 1e-12
        _close(json.loads(theirs), json.loads(mine), case, rel)
    else:
        assert mine.splitlines() == theirs.splitlines()


@pytest.mark.parametrize("case", list(CASES))
def test_same_output_as_sacrebleu(case, sacre, corpus_dir, capsys, monkeypatch):
    theirs, rc = sacre[case]
    assert rc == "0", f"sacreBLEU failed on {case}: {rc}"
    mine, my_rc = ours(CASES[case], corpus_dir, capsys, monkeypatch)
    assert my_rc == 0
    compare_output(theirs, mine, case)


def test_json_fields_one_by_one(sacre, corpus_dir, capsys, monkeypatch):
    """The single-system JSON object: same keys in the same order, same signature."""
    mine, _ = ours(CASES["json-default"], corpus_dir, capsys, monkeypatch)
    theirs = json.loads(sacre["json-default"][0])
    mine = json.loads(mine)
    assert [list(d) for d in mine] == [list(d) for d in theirs]
    assert [d["signature"] for d in mine] == [d["signature"] for d in theirs]
    assert list(theirs[0])[:4] == ["name", "score", "signature", "verbose_score"]


def test_stdin_tab_separated_systems(corpus_dir):
    """Without -i: systems are the tab-separated columns of stdin (sacreBLEU)."""
    h1 = CORPORA["hyp.2"]       # (sacreBLEU right-strips the line: the last system must
    h2 = CORPORA["hyp.1"]       # not be empty)
    stdin = "\n".join(f"{a}\t{b}" for a, b in zip(h1, h2)) + "\n"
    env = dict(os.environ, NO_COLOR="1")
    env.pop("SACREBLEU_FORMAT", None)
    for extra in (["-f", "text"], ["--paired-bs", "-f", "text"]):
        args = ["ref.a", "ref.b", "-m", "bleu", "chrf", *extra]
        s = subprocess.run([sys.executable, "-m", "sacrebleu", *args], input=stdin, text=True,
                           capture_output=True, cwd=corpus_dir, env=env, timeout=120)
        m = subprocess.run(EVALTRANS + ["score", *args], input=stdin, text=True,
                           capture_output=True, cwd=corpus_dir, env=env, timeout=120)
        assert m.returncode == 0, m.stderr
        assert m.stdout.splitlines() == s.stdout.splitlines()
        assert "System 1" in m.stdout or "Baseline" in m.stdout


def test_single_system_from_stdin(corpus_dir):
    stdin = "\n".join(h.replace("\t", " ") for h in CORPORA["edge.hyp"]) + "\n"
    args = ["edge.ref1", "edge.ref2", "-m", "bleu", "ter", "-w", "8"]
    s = subprocess.run([sys.executable, "-m", "sacrebleu", *args], input=stdin, text=True,
                       capture_output=True, cwd=corpus_dir, timeout=120)
    m = subprocess.run(EVALTRANS + ["score", *args], input=stdin, text=True,
                       capture_output=True, cwd=corpus_dir, timeout=120)
    assert m.returncode == 0, m.stderr
    _close(json.loads(s.stdout), json.loads(m.stdout), "stdin", 1e-12)


# ----------------------------------------------------------------------------- confidence
@pytest.mark.parametrize("metric", ["chrf", "ter"])
def test_confidence_of_chrf_and_ter(metric, corpus_dir, capsys, monkeypatch):
    """sacreBLEU's command line crashes on -ci with chrF/TER under numpy 2 (statistics.mean
    of float32); compare with its own resampling (``_bootstrap_resample``) and
    ``significance.estimate_ci`` instead."""
    import numpy as np
    from sacrebleu.metrics import CHRF, TER
    from sacrebleu.significance import _bootstrap_resample, estimate_ci

    refs = [CORPORA["ref.a"], CORPORA["ref.b"]]
    hyps = CORPORA["hyp.1"]
    m = CHRF() if metric == "chrf" else TER()
    stats = m._extract_corpus_statistics(hyps, refs)
    seed, scores = _bootstrap_resample(stats, m, 1000)
    mean, ci = estimate_ci(np.array([s.score for s in scores], float))
    out, rc = ours(BASIC + ["-m", metric, "-ci", "-w", "10"], corpus_dir, capsys, monkeypatch)
    d = json.loads(out)
    assert rc == 0 and d["bs"] == "1000" and d["seed"] == seed
    assert d["confidence_mean"] == pytest.approx(mean, rel=1e-6)
    assert d["confidence_var"] == pytest.approx(ci, rel=1e-5)


# ----------------------------------------------------------------------------- our measures
def test_our_measures_with_extended_signatures(corpus_dir, capsys, monkeypatch):
    import jiwer
    out, rc = ours(["ref.a", "-i", "hyp.1", "-m", "wer", "bleu", "cder", "nist", "-w", "10",
                    "-tok", "none"], corpus_dir, capsys, monkeypatch)
    assert rc == 0
    res = {d["name"]: d for d in json.loads(out)}
    assert list(res) == ["BLEU", "CDER", "NIST", "WER"]       # sacreBLEU sorts by name
    wer = res["WER"]
    assert wer["signature"].endswith("|evaltrans:0.1.0")
    assert "tok:none" in wer["signature"] and wer["tok"] == "none"
    refs = CORPORA["ref.a"]
    hyps = CORPORA["hyp.1"]
    # jiwer's corpus WER (Σ edits / Σ reference words), skipping its empty-reference line
    keep = [i for i, r in enumerate(refs) if r.split()]
    want = jiwer.wer([refs[i] for i in keep], [hyps[i] for i in keep])
    extra = sum(len(hyps[i].split()) for i in range(len(refs)) if i not in keep)
    total = sum(len(refs[i].split()) for i in keep)
    assert wer["score"] == pytest.approx(100 * (want * total + extra) / total, abs=1e-8)


def test_sentence_level_of_our_measure(corpus_dir, capsys, monkeypatch):
    out, rc = ours(["ref.a", "-i", "hyp.1", "-m", "per", "-sl", "-w", "4", "--case", "ignore"],
                   corpus_dir, capsys, monkeypatch)
    lines = out.splitlines()
    assert rc == 0 and len(lines) == len(CORPORA["ref.a"])
    assert all(line.startswith("PER|nrefs:1|tok:13a|case:lc|") for line in lines)
    assert lines[0].endswith(" = 14.2857")          # "the cat is on the mat ." vs 7 ref words


# ----------------------------------------------------------------------------- errors
@pytest.mark.parametrize("args,msg", [
    (["-t", "wmt21", "-l", "en-de", "-i", "hyp.1"], "never downloads"),
    (["ref.a", "--echo", "src"], "never downloads"),
    (["--list"], "never downloads"),
    (["ref.a", "-i", "hyp.1", "-tok", "flores101"], "download"),
    (["ref.a", "-i", "hyp.1", "-tok", "spm"], "download"),
    (["-i", "hyp.1"], "no reference file"),
    (["ref.a", "-i", "edge.hyp"], "different lengths"),
    (["ref.a", "-i", "hyp.1", "-m", "nosuch"], "unknown measure 'nosuch'"),
    (["ref.a", "-i", "hyp.1", "hyp.2", "-sl"], "one system"),
    (["ref.a", "-i", "hyp.1", "-m", "bleu", "ter", "-sl"], "one metric"),
    (["ref.a", "-i", "hyp.1", "--paired-bs"], "several systems"),
    (["ref.a", "-i", "hyp.1", "hyp.2", "-ci"], "--paired-bs"),
    (["ref.a", "-i", "hyp.1", "hyp.1"], "already used"),
    (["ref.a", "ref.b", "-nr", "2", "-i", "hyp.1"], "--num-refs"),
    (["ref.a", "-nr", "2", "-i", "hyp.1"], "expected 2 tab-separated"),
    (["ref.a", "-i", "missing.txt"], "missing.txt"),
])
def test_clear_errors_exit_2(args, msg, corpus_dir, capsys, monkeypatch):
    monkeypatch.chdir(corpus_dir)
    rc = main(["score", *args])
    err = capsys.readouterr().err
    assert rc == 2 and msg in err, err


def test_baseline_given_twice_is_ignored_in_paired_mode(corpus_dir, capsys, monkeypatch):
    out, rc = ours(["ref.a", "-i", "hyp.1", "hyp.2", "hyp.1", "--paired-bs", "-f", "json"],
                   corpus_dir, capsys, monkeypatch)
    assert rc == 0 and [d["system"] for d in json.loads(out)] == ["Baseline: hyp.1", "hyp.2"]


def test_startup_does_not_import_heavy_modules():
    code = ("import sys; from evaltrans_qt.cli.main import build_parser; build_parser(); "
            "print(','.join(m for m in ('numba', 'sacrebleu', 'tabulate', "
            "'evaltrans_qt.engine.run.scoring') if m in sys.modules))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       cwd=ROOT, timeout=120)
    assert "evaltrans_qt.engine.run.scoring" not in r.stdout and "tabulate" not in r.stdout


def test_jiwer_measures_equal_jiwer(corpus_dir, capsys, monkeypatch):
    """``-m wer mer wil wip cer`` equal jiwer's corpus values to 1e-12. (jiwer splits words
    on " " only, ``-tok none`` on any whitespace as sacreBLEU: no tabs or NBSP here.)"""
    jiwer = pytest.importorskip("jiwer")

    def plain(t: str) -> str:
        return t.replace("\t", " ").replace("\u00a0", " ")
    refs = [plain(r) for r in CORPORA["edge.ref1"] if r.strip()]
    hyps = [plain(h) if h.strip() else "x" for h in CORPORA["edge.hyp"][:len(refs)]]
    (corpus_dir / "j.ref").write_text("\n".join(refs) + "\n", encoding="utf-8")
    (corpus_dir / "j.hyp").write_text("\n".join(hyps) + "\n", encoding="utf-8")
    out, rc = ours(["j.ref", "-i", "j.hyp", "-m", "wer", "mer", "wil", "wip", "cer",
                    "-tok", "none", "-w", "15"], corpus_dir, capsys, monkeypatch)
    assert rc == 0
    got = {d["name"]: d["score"] / 100 for d in json.loads(out)}
    refs = [r.rstrip() for r in refs]
    hyps = [h.rstrip() for h in hyps]
    for name, fn in (("WER", jiwer.wer), ("MER", jiwer.mer), ("WIL", jiwer.wil),
                     ("WIP", jiwer.wip), ("CER", jiwer.cer)):
        assert got[name] == pytest.approx(fn(refs, hyps), abs=1e-12), name


def test_wmt21_against_sacrebleu(wmt_dir, tmp_path, capsys, monkeypatch):
    """Real WMT21 en-de data: BLEU/chrF of 3 systems with 3 references (scores to 1e-9,
    signatures equal), paired bootstrap and randomisation tables (same p-values and
    markers), and TER on the first 60 lines (sacreBLEU's TER is slow)."""
    refs = [str(wmt_dir / f"newstest2021.en-de.ref.{r}.de") for r in "ACD"]
    hyps = [str(wmt_dir / f"newstest2021.en-de.hyp.{s}.de")
            for s in ("Online-B", "Facebook-AI", "nuclear_trans")]
    short = []
    for k, p in enumerate(refs + hyps[:1]):
        lines = Path(p).read_text(encoding="utf-8").split("\n")[:60]
        q = tmp_path / f"short{k}"
        q.write_text("\n".join(lines) + "\n", encoding="utf-8")
        short.append(str(q))
    cases = {
        "wmt-json": refs + ["-i", hyps[0], "-m", "bleu", "chrf", "-w", "12"],
        "wmt-ter": short[:3] + ["-i", short[3], "-m", "ter", "bleu", "-w", "12"],
        "wmt-bs": refs + ["-i", *hyps, "-m", "bleu", "--paired-bs", "-f", "text", "-w", "3"],
        "wmt-ar": refs + ["-i", *hyps, "-m", "bleu", "--paired-ar", "-parn", "2000", "-f",
                          "text", "-w", "3"],
    }
    spec = tmp_path / "cases.json"
    spec.write_text(json.dumps([{"cwd": str(tmp_path), "out": str(tmp_path / f"s.{k}"),
                                 "args": a} for k, a in cases.items()]), encoding="utf-8")
    env = dict(os.environ, NO_COLOR="1")
    env.pop("SACREBLEU_SEED", None)
    env.pop("SACREBLEU_FORMAT", None)
    subprocess.run([sys.executable, "-c", _SACRE_DRIVER, str(spec)], check=True, env=env,
                   timeout=300, stderr=subprocess.DEVNULL)
    for k, args in cases.items():
        theirs = (tmp_path / f"s.{k}").read_text(encoding="utf-8")
        assert (tmp_path / f"s.{k}.rc").read_text() == "0"
        mine, rc = ours(args, tmp_path, capsys, monkeypatch)
        assert rc == 0
        if "-f" in args:
            assert mine.splitlines() == theirs.splitlines(), k
        else:
            _close(json.loads(theirs), json.loads(mine), k, 1e-12)
            for d in json.loads(mine):
                assert d["signature"].startswith("nrefs:3|") and "evaltrans" not in d["signature"]
