"""Positional identity of sources (unlike thesis Appendix A.2) on real WMT21 en-de data.

newstest2021 en-de has no repeated source line (``sort | uniq -d`` is empty), so the
test set is made to repeat: two real source lines are copied onto other lines, each of
which keeps its own references and hypotheses. A tool that pairs by line (sacreBLEU,
jiwer, Moses) is not affected by the source text at all; we must give the same numbers,
whereas the text rule of thesis Appendix A.2 (one source per sentence) would compare those lines'
candidates with the references of every occurrence.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from evaltrans_qt.cli.main import main
from evaltrans_qt.engine.data.database import Levels
from evaltrans_qt.engine.data.merge import merge
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.run.driver import evaluate
from evaltrans_qt.engine.run.executors.local import SerialExecutor
from evaltrans_qt.io import etdb, plaintext, wmt
from evaltrans_qt.io.journal import Journal, change_for, replay
from evaltrans_qt.io.report import read_report

PREFIX = "newstest2021.en-de"
REFS = ("A", "C", "D")
SYSTEMS = ("Facebook-AI", "UEdin")
#: 1-based source line -> lines that get its text (their references/hypotheses stay)
REPEATS = {399: (5, 100, 500, 700, 1000), 942: (50, 250)}   # "It didn't work.", "We stand alone."
REPEATED_LINES = sorted({n for line, copies in REPEATS.items() for n in (line, *copies)})


def _lines(path: Path) -> list[str]:
    return plaintext.read_lines(path)


@pytest.fixture(scope="module")
def data(wmt_dir, tmp_path_factory):
    """A WMT folder whose source repeats two real lines (files written, never the repo)."""
    d = tmp_path_factory.mktemp("wmt-repeated")
    src = _lines(wmt_dir / f"{PREFIX}.src.en")
    for line, copies in REPEATS.items():
        for n in copies:
            src[n - 1] = src[line - 1]
    repeated = {t: c for t, c in Counter(src).items() if c > 1}
    assert sorted(repeated.values()) == [3, 6]
    (d / f"{PREFIX}.src.en").write_text("\n".join(src) + "\n", encoding="utf-8")
    files = {"src": d / f"{PREFIX}.src.en"}
    for r in REFS:
        files[f"ref-{r}"] = d / f"{PREFIX}.ref.{r}.de"
        files[f"ref-{r}"].write_bytes((wmt_dir / f"{PREFIX}.ref.{r}.de").read_bytes())
    for s in SYSTEMS:
        files[s] = d / f"{PREFIX}.hyp.{s}.de"
        files[s].write_bytes((wmt_dir / f"{PREFIX}.hyp.{s}.de").read_bytes())
    text = {k: _lines(p) for k, p in files.items()}
    values = json.loads((wmt_dir / "reference_values.json").read_text(encoding="utf-8"))["systems"]
    return d, files, text, values


_BLEU: dict[str, float] = {}


def sacrebleu_bleu(text: dict, system: str) -> float:
    """sacreBLEU 2.6 ``corpus_bleu(tokenize="13a")`` against refs A, C, D (computed live)."""
    if system not in _BLEU:
        import sacrebleu
        _BLEU[system] = sacrebleu.corpus_bleu(text[system], [text[f"ref-{r}"] for r in REFS],
                                              tokenize="13a").score
    return _BLEU[system]


def tok13a(lines: list[str]) -> list[str]:
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
    tok = Tokenizer13a()
    return [tok(x) for x in lines]


def batch_json(capsys, *argv: str) -> dict:
    assert main(["batch", *argv, "--jobs", "1", "--json"]) == 0
    out = capsys.readouterr()
    assert "warning" not in out.err
    return json.loads(out.out)["systems"]


# ---------------------------------------------------------------- batch --reference
def test_batch_reference_files_equal_sacrebleu(data, capsys):
    """BLEU with refs A, C, D through ``batch --source --reference --target`` = sacreBLEU."""
    _, f, text, _ = data
    got = batch_json(capsys, "--source", str(f["src"]),
                     *[a for r in REFS for a in ("--reference", str(f[f"ref-{r}"]))],
                     *[a for s in SYSTEMS for a in ("--target", f"{s}={f[s]}")],
                     "--measures", "bleu")
    for s in SYSTEMS:
        assert 100 * got[s]["scores"]["bleu"]["value"] == pytest.approx(
            sacrebleu_bleu(text, s), abs=1e-9), s


def test_batch_one_reference_equals_jiwer_and_moses_per_line(data, tmp_path):
    """Ref A only: WER = jiwer on 13a tokens (1e-12); CDER and PER of every line, the
    repeated ones included, = Moses' CderScorer / PerScorer on that line alone."""
    import jiwer
    _, f, text, vals = data
    out = tmp_path / "r.xml"
    assert main(["batch", "--source", str(f["src"]), "--reference", str(f["ref-A"]),
                 *[a for s in SYSTEMS for a in ("--target", f"{s}={f[s]}")],
                 "--measures", "wer,per,cder", "--xml-mode", "--sentences-in-detail",
                 "--correlation-samples", "0", "--jobs", "1", "--output-file", str(out)]) == 0
    for s in SYSTEMS:
        run = read_report(out.with_name(f"r.{s}.xml"))
        sr = run.systems[s]
        assert list(sr.segments) == list(range(1002))          # one source per line
        oracle = jiwer.wer(tok13a(text["ref-A"]), tok13a(text[s]))
        assert sr.scores["wer"].value == pytest.approx(oracle, abs=1e-12), s
        v = vals[f"{PREFIX}.hyp.{s}.de"]
        np.testing.assert_array_equal(sr.stats["cder"][:, :2],
                                      np.asarray(v["moses_cder_refA_sent_stats"]), err_msg=s)
        moses_per = np.asarray(v["moses_per_refA_sent_stats"])          # [matches, I, L]
        np.testing.assert_array_equal(
            sr.stats["per"][:, 0], np.maximum(moses_per[:, 1], moses_per[:, 2]) - moses_per[:, 0])
        np.testing.assert_array_equal(sr.stats["per"][:, 1], moses_per[:, 2])


# ---------------------------------------------------------------- databases
@pytest.fixture(scope="module")
def folder_db(data):
    """The WMT folder import (positional) saved and loaded again."""
    d, *_ = data
    db = wmt.import_wmt(d)
    path = d / "folder.etdb.xml"
    etdb.save_database(db, path)
    return path


def test_folder_import_keeps_one_source_per_line_through_save_and_load(data, folder_db):
    _, _, text, _ = data
    db = etdb.load_database(folder_db)
    assert len(db.sources) == 1002
    assert [s.seg for s in db.sources] == [str(i + 1) for i in range(1002)]
    assert [s.text for s in db.sources] == text["src"]
    for n in REPEATED_LINES:
        src = db.sources[n - 1]
        assert [t.text for t in db.references(src)] == [text[f"ref-{r}"][n - 1] for r in REFS]
        assert [t.text for t in db.candidates(src)] == [text[s][n - 1] for s in SYSTEMS]
    assert plaintext.repeated_source_warnings(db) == []
    assert etdb.dumps(etdb.load_database(folder_db)) == folder_db.read_bytes()


def test_batch_database_equals_sacrebleu(data, folder_db, tmp_path, capsys):
    """WMT folder import + ``batch --database --all-systems``; text import of the references
    + ``batch --database --source --target`` (lines matched by position)."""
    _, f, text, _ = data
    got = batch_json(capsys, "--database", str(folder_db), "--all-systems", "--measures", "bleu")
    for s in SYSTEMS:
        assert 100 * got[s]["scores"]["bleu"]["value"] == pytest.approx(
            sacrebleu_bleu(text, s), abs=1e-9), s
    refs_db = tmp_path / "refs.etdb.xml"
    assert main(["import", "text", "--source", str(f["src"]),
                 *[a for r in REFS for a in ("--reference", f"ref-{r}={f[f'ref-{r}']}")],
                 "-o", str(refs_db)]) == 0
    assert "warning" not in capsys.readouterr().err
    got = batch_json(capsys, "--database", str(refs_db), "--source", str(f["src"]),
                     *[a for s in SYSTEMS for a in ("--target", f"{s}={f[s]}")],
                     "--measures", "bleu")
    for s in SYSTEMS:
        assert 100 * got[s]["scores"]["bleu"]["value"] == pytest.approx(
            sacrebleu_bleu(text, s), abs=1e-9), s


def test_journal_replay_after_a_crash_hits_the_repeated_line(data, folder_db, tmp_path):
    """A score given to line 700 (a copy of line 399), journalled but never saved: the
    replay after the crash puts it on line 700's candidate and nowhere else."""
    path = tmp_path / "scored.etdb.xml"
    db = etdb.load_database(folder_db)
    db.add_class(Levels("fluency", count=6, gray=2, green=5, perfect=5, firstvalid=1))
    etdb.save_database(db, path)
    ti = next(i for i, t in enumerate(db.sources[699].targets) if t.system == "UEdin")
    j = Journal.for_database(path)
    j.append(change_for(db, 699, ti, "fluency", 4, "kim"))
    j.close()                                   # the process dies here: nothing saved
    fresh = etdb.load_database(path)
    rep = replay(fresh, Journal.for_database(path).entries())
    assert len(rep.applied) == 1 and not rep.missing
    scored = [(i + 1, t.system) for i, s in enumerate(fresh.sources) for t in s.targets
              if t.value("fluency") is not None]
    assert scored == [(700, "UEdin")]


def test_merge_of_positional_databases_keeps_repeated_lines_apart(data, tmp_path):
    """Two imports of the same test set with one system each, merged: still one source
    per line with its own references, and BLEU of each system = sacreBLEU."""
    d, f, text, _ = data
    parts = []
    for s in SYSTEMS:
        sub = tmp_path / s
        sub.mkdir()
        for k in ("src", *[f"ref-{r}" for r in REFS], s):
            (sub / f[k].name).write_bytes(f[k].read_bytes())
        parts.append(wmt.import_wmt(sub))
    db, other = parts
    rep = merge(db, other, "old")
    assert rep.added_sources == 0 and rep.added_targets == 1002 and rep.conflicts == []
    assert len(db.sources) == 1002 and db.systems() == list(SYSTEMS)
    for n in REPEATED_LINES:
        assert [t.text for t in db.references(db.sources[n - 1])] == [
            text[f"ref-{r}"][n - 1] for r in REFS]
    run = evaluate(db, EvalOptions(), ["bleu"], executor=SerialExecutor())
    for s in SYSTEMS:
        assert 100 * run.systems[s].scores["bleu"].value == pytest.approx(
            sacrebleu_bleu(text, s), abs=1e-9), s


def test_old_file_without_seg_still_merges_and_warns(data, folder_db, tmp_path, capsys):
    """The same database written without seg attributes (an old EvalTrans file): identical
    sources merge (Appendix A.2), the merge is warned about, and BLEU then differs from sacreBLEU
    -- the difference positional identity removes."""
    _, _, text, _ = data
    old = tmp_path / "old.etdb.xml"
    old.write_bytes(re.sub(rb'<source seg="\d+">', b"<source>", folder_db.read_bytes()))
    db = etdb.load_database(old)
    assert len(db.sources) == 1002 - (len(REPEATED_LINES) - len(REPEATS))
    merged = [s for s in db.sources if s.occurrences > 1]
    assert sorted(s.occurrences for s in merged) == [3, 6]
    assert all(len(db.references(s)) == 3 * s.occurrences for s in merged)
    notes = plaintext.repeated_source_warnings(db)
    assert notes[0].startswith("2 source sentence(s) without segment ids")
    assert main(["batch", "--database", str(old), "--all-systems", "--measures", "bleu",
                 "--jobs", "1", "--json"]) == 0
    out = capsys.readouterr()
    assert "warning: 2 source sentence(s) without segment ids" in out.err
    got = json.loads(out.out)["systems"]
    for s in SYSTEMS:
        assert abs(100 * got[s]["scores"]["bleu"]["value"] - sacrebleu_bleu(text, s)) > 1e-4, s
