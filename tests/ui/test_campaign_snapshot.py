"""The Campaign menu's Create dialog sets the ranking protocol's screen size (as
``evaltrans campaign create --rank-size``), and its QC report and Agreement compute on a
copy of the open result made when the action starts: the judgements the user changes
meanwhile do not reach the worker (docs/campaigns.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaltrans_qt.engine.campaign.agreement import campaign_agreement
from evaltrans_qt.engine.campaign.definition import DEFAULT_RANK_SIZE, PROTOCOLS
from evaltrans_qt.engine.data.database import Score
from evaltrans_qt.io.campaign_bundle import bundle_items, write_bundles
from evaltrans_qt.io.campaign_collect import collect
from evaltrans_qt.io.campaign_file import create_campaign, read_campaign
from evaltrans_qt.io.campaign_qc import qc_report, read_result, set_result
from evaltrans_qt.io.etdb import load_database, save_database
from evaltrans_qt.ui.campaign_dialogs import CreateDialog
from tests.ui.conftest import open_db
from tests.ui.test_campaign_ui import _accept, _database


@pytest.fixture
def window(main_window):
    main_window.resize(1366, 768)
    return main_window


# ------------------------------------------------------------------ the screen size
def test_create_dialog_makes_a_ranking_campaign_of_the_size_given(qtbot, window, tmp_path):
    save_database(_database(), tmp_path / "db.etdb.xml")
    out = tmp_path / "r.etcampaign.json"

    def create(dlg):
        assert not dlg.rank_size.isEnabled()            # esa, the dialog's first protocol
        dlg.database.set_path(tmp_path / "db.etdb.xml")
        dlg.protocol.setCurrentText("ranking")
        assert dlg.rank_size.isEnabled()
        assert dlg.rank_size.value() == DEFAULT_RANK_SIZE     # the command line's default
        dlg.rank_size.setValue(3)
        dlg.annotators.setText("anna, ben")
        dlg.output.setText(str(out))
    d = _accept(qtbot, window, window.campaign.act_create, create)
    assert d.protocol == "ranking" and d.rank_size == 3
    assert read_campaign(out).rank_size == 3
    assert json.loads(out.read_text())["rank_size"] == 3


def test_screen_size_is_only_for_ranking(qtbot, tmp_path):
    save_database(_database(), tmp_path / "db.etdb.xml")
    dlg = CreateDialog(tmp_path / "db.etdb.xml")
    qtbot.addWidget(dlg)
    for name, spec in PROTOCOLS.items():
        dlg.protocol.setCurrentText(name)
        assert dlg.rank_size.isEnabled() == spec.ranking, name
        assert dlg.classes.isEnabled() == (name == "classes"), name
        assert dlg.documents.isEnabled() == (not spec.ranking), name
    # a size left in the disabled field is not passed: a da campaign as without --rank-size
    dlg.protocol.setCurrentText("da")
    dlg.rank_size.setValue(3)
    dlg.classes.setText("no-such-class")                # disabled too: not passed either
    dlg.annotators.setText("anna")
    dlg.output.setText(str(tmp_path / "da.etcampaign.json"))
    d = dlg.job()()
    assert d.protocol == "da"
    assert "rank_size" not in json.loads((tmp_path / "da.etcampaign.json").read_text())
    want = create_campaign(tmp_path / "db.etdb.xml", tmp_path / "cli.etcampaign.json",
                           protocol="da", annotators=["anna"])
    assert d.campaign_id == want.campaign_id


# ------------------------------------------------------------------ the worker's copy
def _result(tmp_path: Path) -> Path:
    """A collected da campaign of two annotators who judge differently."""
    save_database(_database(), tmp_path / "db.etdb.xml")
    create_campaign(tmp_path / "db.etdb.xml", tmp_path / "c.etcampaign.json", protocol="da",
                    annotators=["anna", "ben"], redundancy=2, batch=6, seed=1)
    paths = write_bundles(tmp_path / "c.etcampaign.json", tmp_path / "bundles")
    for k, p in enumerate(sorted(paths)):
        db = load_database(p)
        for n, x in enumerate(bundle_items(db)):
            db.sources[x.source_index].targets[x.target_index].set_score(
                "da", (17 * n + 40 * k) % 100, judge=p.name.split(".")[0],
                time="2026-01-01T00:00:05")
        save_database(db, p)
    collect(tmp_path / "c.etcampaign.json", paths, tmp_path / "result.etdb.xml")
    return tmp_path / "result.etdb.xml"


def _text(report) -> str:
    return json.dumps(report.to_dict(), sort_keys=True, default=str)


def _captured(monkeypatch, c) -> list:
    jobs: list = []
    monkeypatch.setattr(c, "_run", lambda job, done, what: jobs.append((job, done)))
    return jobs


def _rescore(db) -> None:
    """What scoring and a merge do meanwhile: ben's scores replaced, a judge added in place."""
    for _src, t in db.iter_candidates():
        for s in [x for x in t.scores if x.judge == "ben"]:
            t.set_score("da", 100 - s.value, judge="ben")
        t.scores.append(Score("da", 50, "carl"))


def test_agreement_computes_on_the_database_as_it_was_when_asked(qtbot, window, tmp_path,
                                                                  monkeypatch):
    path = _result(tmp_path)
    before = _text(campaign_agreement(load_database(path)))
    db = open_db(qtbot, window, path)
    c = window.campaign
    jobs = _captured(monkeypatch, c)
    c.agreement()
    (job, done), = jobs
    _rescore(db)                                     # after the action started
    assert _text(campaign_agreement(db)) != before   # the change matters to the agreement
    report = job()                                   # the worker's job, run now
    assert _text(report) == before
    assert "carl" not in report.judges
    done(report)
    assert c.last_report is report and c.last_dialog is not None


def test_qc_report_computes_on_the_result_as_it_was_when_asked(qtbot, window, tmp_path,
                                                                monkeypatch):
    path = _result(tmp_path)
    before = _text(qc_report(load_database(path)))
    db = open_db(qtbot, window, path)
    c = window.campaign
    jobs = _captured(monkeypatch, c)
    c.qc_report()
    (job, _done), = jobs
    data = read_result(db)
    assert data is not None
    del data.annotators["ben"]                       # a collection meanwhile replaces it
    set_result(db, data)
    assert _text(qc_report(db)) != before
    assert _text(job()) == before


def test_rescoring_while_the_agreement_runs_leaves_its_report_alone(qtbot, window, tmp_path):
    """The real worker: the change is made right after the action, while it may run."""
    from evaltrans_qt.ui import errors
    path = _result(tmp_path)
    before = _text(campaign_agreement(load_database(path)))
    db = open_db(qtbot, window, path)
    c = window.campaign
    wk = c.agreement()
    assert wk is not None
    _rescore(db)
    qtbot.waitUntil(lambda: wk.result is not None or wk.error is not None, timeout=30000)
    assert wk.error is None and not errors.history
    assert _text(wk.result) == before
    qtbot.waitUntil(lambda: c.last_report is wk.result, timeout=5000)
