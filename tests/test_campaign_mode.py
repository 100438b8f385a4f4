"""Annotator mode as a Qt-free model (evaltrans_qt/campaign_mode.py): a bundle opened in
the workspace makes it active, its progress follows every commit, undo and redo exactly
as a full recount (io/campaign_bundle.py's bundle_progress) says, and any other database
leaves it."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from evaltrans_qt.campaign_mode import SCORING, SPANS, AnnotatorMode
from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.io.campaign_bundle import bundle_items, bundle_progress, write_bundles
from evaltrans_qt.io.campaign_file import create_campaign
from evaltrans_qt.io.etdb import save_database
from evaltrans_qt.io.journal import change_for
from evaltrans_qt.workspace import Workspace


def _campaign(folder: Path, protocol: str, instructions: str = "",
              items: bool = False) -> Path:
    rng = random.Random(1)
    words = "house tree river stone cloud bread window garden".split()
    db = Database()
    for i in range(10):
        src = db.add_source(" ".join(rng.choice(words) for _ in range(5)), seg=str(i + 1))
        if items:                                   # information items: 2 words, 3 words
            src.items = [(0, 1), (2, 4)]
        db.add_target(src, "ref " + " ".join(rng.choice(words) for _ in range(5)), "R",
                      reference=True)
        for s in ("A", "B"):
            db.add_target(src, " ".join(rng.choice(words) for _ in range(6)), s)
    folder.mkdir()
    save_database(db, folder / "db.etdb.xml")
    md = None
    if instructions:
        md = folder / "howto.md"
        md.write_text(instructions)
    create_campaign(folder / "db.etdb.xml", folder / "c.etcampaign.json", protocol=protocol,
                    annotators=["anna", "ben"], redundancy=1, batch=3, seed=2,
                    instructions=md)
    write_bundles(folder / "c.etcampaign.json", folder / "bundles")
    return folder / "bundles" / "anna.etdb.xml"


@pytest.fixture
def ws():
    w = Workspace(autosave=False)
    yield w
    w.close()


def test_a_bundle_makes_it_active_and_progress_follows_commits_undo_redo(ws, tmp_path):
    path = _campaign(tmp_path / "c", "da-ref", "# Read\n\nthe **source**.")
    mode = AnnotatorMode(ws)
    seen: list[bool] = []
    texts: list[str] = []
    mode.changed.connect(seen.append)
    mode.progress_changed.connect(texts.append)
    assert not mode.active and mode.status_text() == ""
    _open(ws, path)
    assert seen == [True] and mode.active and mode.annotator == "anna"
    assert mode.screen == SCORING and mode.instructions.startswith("# Read")
    db = ws.database
    assert mode.status_text() == bundle_progress(db).text
    items = bundle_items(db)
    rng = random.Random(3)
    for step in range(25):
        x = rng.choice(items)
        if step % 5 == 4:
            ws.history.undo()
        else:
            value = rng.choice([None, 40.0, 90.0])           # None: the score cleared
            ch = change_for(db, x.source_index, x.target_index, "da", value, "anna",
                            "2026-01-01T00:00:00")
            ws.history.commit(ch, "score")
        assert texts[-1] == mode.status_text() == bundle_progress(db).text
    assert mode.progress().done == bundle_progress(db).done > 0
    ws.set_database(Database(), None)
    assert seen == [True, False] and not mode.active


@pytest.mark.parametrize("protocol", ["postedit", "items"])
def test_post_edits_and_item_marks_count_as_progress_through_commits_undo(ws, tmp_path,
                                                                           protocol):
    from evaltrans_qt.campaign_mode import OTHER
    from evaltrans_qt.io.protocol_changes import marks_change, postedit_change
    path = _campaign(tmp_path / "c", protocol, items=protocol == "items")
    mode = AnnotatorMode(ws)
    texts: list[str] = []
    mode.progress_changed.connect(texts.append)
    _open(ws, path)
    assert mode.active and mode.screen == OTHER
    db = ws.database
    items = bundle_items(db)
    assert mode.status_text() == bundle_progress(db).text and mode.progress().done == 0
    rng = random.Random(5)
    for step in range(20):
        x = rng.choice(items)
        if step % 4 == 3:
            ws.history.undo()
        elif protocol == "postedit":
            text = rng.choice([None, "a post-edit", "another one"])   # None: removed
            ws.history.commit(postedit_change(db, x.source_index, x.target_index, "anna",
                                              text, 3.0), "post-edit")
        else:
            marks = rng.choice([None, ("OK", "error"), ("meaning", "OK")])
            ws.history.commit(marks_change(db, x.source_index, x.target_index, "anna",
                                           marks), "item marks")
        assert texts[-1] == mode.status_text() == bundle_progress(db).text
    assert mode.progress().done == bundle_progress(db).done > 0


def test_span_protocol_and_default_instructions(ws, tmp_path):
    path = _campaign(tmp_path / "c", "esa")
    mode = AnnotatorMode(ws)
    _open(ws, path)
    assert mode.screen == SPANS and mode.protocol.spans
    assert "error span annotation" in mode.instructions      # the protocol, said plainly


def test_a_malformed_bundle_element_is_an_error_naming_the_file(ws, tmp_path):
    path = _campaign(tmp_path / "c", "da-ref")
    db, rec = _load(path)
    db.extra_children = [x.replace('version="1"', 'version="9"') for x in db.extra_children]
    mode = AnnotatorMode(ws)
    ws.set_database(db, path, rec)
    assert not mode.active
    assert mode.error is not None and "version" in mode.error.problem \
        and mode.error.path is not None and Path(mode.error.path) == path


def _load(path: Path):
    from evaltrans_qt.workspace import load_with_journal
    return load_with_journal(path)


def _open(ws: Workspace, path: Path) -> None:
    db, recovered = _load(path)
    ws.set_database(db, path, recovered)
