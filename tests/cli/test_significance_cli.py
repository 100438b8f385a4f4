"""``evaltrans significance``: sacreBLEU's paired bootstrap / approximate randomisation on a
WMT21 en-de slice imported as a database, against sacreBLEU's own ``PairedTest``; options,
the baseline table and errors on the demo database."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from evaltrans_qt.cli.main import main
from evaltrans_qt.io.etdb import demo_database_path

LINES = 150                     # no repeated source line among the first 150
SYSTEMS = ["Online-A", "HuaweiTSC", "UEdin", "VolcTrans-AT"]


def _run(capsys, *argv):
    rc = main([str(a) for a in argv])
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.fixture(autouse=True)
def _default_seed(monkeypatch):
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)


@pytest.fixture(scope="module")
def wmt_slice(wmt_dir, tmp_path_factory):
    """A WMT folder with the first LINES lines of the source, the three references and four
    systems (in a temporary folder, never in the repository), imported as a database."""
    d = tmp_path_factory.mktemp("wmt")
    names = (["newstest2021.en-de.src.en"] + [f"newstest2021.en-de.ref.{x}.de" for x in "ACD"]
             + [f"newstest2021.en-de.hyp.{s}.de" for s in SYSTEMS])
    texts = {}
    for n in names:
        lines = (wmt_dir / n).read_text(encoding="utf-8").splitlines()[:LINES]
        (d / "in").mkdir(exist_ok=True)
        (d / "in" / n).write_text("\n".join(lines) + "\n", encoding="utf-8")
        texts[n] = lines
    assert len(set(texts[names[0]])) == LINES
    db = d / "wmt.etdb.xml"
    assert main(["import", "wmt", str(d / "in"), "-o", str(db)]) == 0
    refs = [texts[f"newstest2021.en-de.ref.{x}.de"] for x in "ACD"]
    hyps = {s: texts[f"newstest2021.en-de.hyp.{s}.de"] for s in SYSTEMS}
    return db, refs, hyps


def sacre(metric, order, refs, hyps, test_type, n):
    from sacrebleu.significance import PairedTest
    _, scores = PairedTest([(s, hyps[s]) for s in order], {"m": metric}, refs,
                           test_type=test_type, n_samples=n)()
    (key,) = [k for k in scores if k != "System"]
    return scores[key]


@pytest.mark.parametrize("measure,method,n", [("chrf", "bootstrap", 1000),
                                               ("bleu", "bootstrap", 1000),
                                               ("chrf", "randomization", 3000)])
def test_baseline_json_equals_sacrebleu(wmt_slice, capsys, measure, method, n):
    from sacrebleu.metrics import BLEU, CHRF
    db, refs, hyps = wmt_slice
    rc, out, err = _run(capsys, "significance", db, "--measure", measure, "--method", method,
                        "--samples", n, "--baseline", "UEdin", "--json")
    assert rc == 0, err
    res = json.loads(out)
    order = [r["system"] for r in res["systems"]]
    assert order[0] == "UEdin" and sorted(order) == sorted(SYSTEMS)
    assert res["seed"] == 12345 and res["n_sentences"] == LINES and res["samples"] == n
    # BLEU: sacreBLEU's exp smoothing changes nothing here (every order has matches)
    metric = CHRF() if measure == "chrf" else BLEU()
    theirs = sacre(metric, order, refs, hyps, "bs" if method == "bootstrap" else "ar", n)
    for o, t in zip(res["systems"], theirs):
        assert 100 * o["score"] == pytest.approx(t.score, rel=1e-12)
        if t.p_value is None:
            assert o["p_value"] is None
        else:
            assert o["p_value"] == pytest.approx(t.p_value, abs=1e-12), o["system"]
        if method == "bootstrap":
            assert 100 * o["mean"] == pytest.approx(t.mean, abs=1e-5)
            assert 100 * o["ci"] == pytest.approx(t.ci, abs=1e-5)
        else:
            assert o["mean"] is None and t.mean is None


def test_matrix_rows_are_the_baseline_views(wmt_slice, capsys):
    db, _, _ = wmt_slice
    rc, out, _ = _run(capsys, "significance", db, "--measure", "chrf", "--json")
    mat = json.loads(out)
    p = np.array(mat["p_values"])
    assert rc == 0 and np.allclose(p, p.T) and mat["method"] == "bootstrap"
    for b in (0, 2):
        rc, out, _ = _run(capsys, "significance", db, "--measure", "chrf", "--json",
                          "--baseline", mat["systems"][b])
        view = json.loads(out)
        for r in view["systems"][1:]:
            assert r["p_value"] == pytest.approx(p[b, mat["systems"].index(r["system"])],
                                                 abs=1e-12)
        assert [r["mean"] for r in view["systems"]] == pytest.approx(
            [mat["means"][mat["systems"].index(r["system"])] for r in view["systems"]], abs=1e-15)


def test_text_table_seed_and_methods(demo, capsys, monkeypatch):
    rc, out, _ = _run(capsys, "significance", demo, "--measure", "bleu", "--baseline")
    assert rc == 0
    assert "sacreBLEU paired_bs" in out and "seed 12345" in out and "1000 resamples" in out
    assert "Baseline: Lumen-NMT" in out and "bleu (μ ± 95% CI)" in out and "(p = " in out
    assert "Paired bootstrap resampling test with 1000 resampling trials" in out
    # randomisation defaults to sacreBLEU's 10000 trials; text matrix output
    rc, out, _ = _run(capsys, "significance", demo, "--human", "fluency", "--method",
                      "randomization")
    assert rc == 0 and "10000 trials" in out and "p-values" in out
    # the seed: SACREBLEU_SEED, --seed wins, 'none' draws one and prints it
    monkeypatch.setenv("SACREBLEU_SEED", "77")
    rc, out, _ = _run(capsys, "significance", demo, "--samples", "200", "--json")
    env = json.loads(out)
    assert env["seed"] == 77
    rc, out, _ = _run(capsys, "significance", demo, "--samples", "200", "--json", "--seed", "77")
    assert json.loads(out)["p_values"] == env["p_values"]
    rc, out, _ = _run(capsys, "significance", demo, "--samples", "200", "--seed", "None")
    assert rc == 0 and "seed none (drawn: " in out
    # the centred variant is only an option, and is a different statistic
    rc, out, _ = _run(capsys, "significance", demo, "--samples", "200", "--json", "--seed", "77",
                      "--method", "bootstrap-centred")
    centred = json.loads(out)
    assert rc == 0 and centred["method"] == "bootstrap-centred"
    assert centred["scores"] == env["scores"] and centred["means"] == env["means"]


@pytest.mark.parametrize("argv,message", [
    (["--seed", "abc"], "seed 'abc' is neither an integer nor 'none'"),
    (["--baseline", "NoSuchSystem"], "baseline 'NoSuchSystem' is not among the systems"),
    (["--samples", "-5"], "must be positive"),
])
def test_bad_arguments_are_clear_errors(demo, capsys, argv, message):
    rc, _, err = _run(capsys, "significance", demo, *argv)
    assert rc == 2 and message in err


@pytest.mark.parametrize("method,kind", [("bootstrap", "bs"), ("randomization", "ar")])
def test_signature_names_the_test_like_sacrebleu(wmt_slice, capsys, method, kind):
    """The tested numbers carry sacreBLEU's signature with its bs/ar and seed fields."""
    from sacrebleu.metrics import CHRF
    from sacrebleu.significance import PairedTest
    db, refs, hyps = wmt_slice
    rc, out, err = _run(capsys, "significance", db, "--measure", "chrf", "--method", method,
                        "--samples", 200, "--baseline", "UEdin", "--json")
    assert rc == 0, err
    sigs, _ = PairedTest([(s, hyps[s]) for s in ["UEdin", "HuaweiTSC"]], {"chrF2": CHRF()},
                         refs, test_type=kind, n_samples=200)()
    (theirs,) = sigs.values()
    assert json.loads(out)["signature"] == theirs.format()
    assert f"|{kind}:200|seed:12345|" in json.loads(out)["signature"]
    rc, out, err = _run(capsys, "significance", db, "--measure", "chrf", "--samples", 200,
                        "--method", method)
    assert rc == 0 and f"signature: {theirs.format()}\n" in out


def test_human_significance_has_an_extended_signature(capsys, tmp_path):
    db = tmp_path / "demo.etdb.xml"
    shutil.copy(demo_database_path(), db)
    rc, out, err = _run(capsys, "significance", db, "--human", "fluency", "--samples", 100,
                        "--method", "bootstrap-centred", "--json")
    assert rc == 0, err
    sig = json.loads(out)["signature"]
    assert sig.startswith("human:fluency|weighted:yes|bs:100|seed:12345|evaltrans:")
    assert sig.endswith("|statistic:centred")
