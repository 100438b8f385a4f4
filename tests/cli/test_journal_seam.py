"""The command line and the application's journal (issue 25, "Done when"): with a journal of
unsaved judgements beside a database -- scores (one of them an undo), protocol changes
(information items and marks, a post-edit, an added reference) and rankings (SegRanks
screens and whole-sentence rankings), committed through the real journal API as the
application commits them -- every command that reads the database reports what it reports
on the database the application shows (``io.store.open_database(path).database``), and
every command that writes it keeps every judgement and, in place, folds the journal.

How: three copies of one world (inputs plus ``db.etdb.xml``) under the same relative paths,
each command run with the same argv in each:

* ``journal``: the file plus its journal (what is on disk while the application has
  unsaved judgements, or after it crashed);
* ``app``: the database the application shows, saved without a journal;
* ``bare``: the file alone (the journal ignored: what commands read before).

A reader's stdout (and the files it writes) in ``journal`` equal those in ``app`` and, for
the commands whose numbers the journal changes, differ from ``bare``. A writer's file
in ``journal`` equals the one it writes in ``app``; replaying the journal onto it changes
nothing (every judgement is in it); in place, the journal is gone.

Plus: a command writing in place refuses while another live process holds the lock
(exit 2, nothing written) and writes with ``--force``; a stale lock (dead pid) does not
stop it; a file changed on disk between the command's read and its write is not replaced;
a command replacing a file with a pending journal refuses, and with ``--force`` sets the
journal aside.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from evaltrans_qt.cli.main import main
from evaltrans_qt.engine.data import schemes
from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.io import protocol_changes as pc
from evaltrans_qt.io import store
from evaltrans_qt.io.etdb import dumps, load_database, save_database
from evaltrans_qt.io.journal import (
    Change,
    Journal,
    apply_entry,
    change_for,
    journal_path,
    replay,
)
from evaltrans_qt.io.segranks import changes as rc
from evaltrans_qt.io.store import lock_path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "resources" / "segranks_example"
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
DB = "db.etdb.xml"
NOTE = f"{DB}: 14 unsaved judgements from the journal included\n"


# --------------------------------------------------------------------------- the world
def _campaign(judged: bool = True) -> Database:
    """The bundled SegRanks campaign with its segments extracted, a fluency class and
    (``judged``) a judge's fluency score of every candidate (what the file holds)."""
    from evaltrans_qt.engine.human.segranks.extract import extract_database
    from evaltrans_qt.engine.human.segranks.model import source_tokens
    from evaltrans_qt.io.segranks import alignments, trees
    db = load_database(EXAMPLE / "campaign.etdb.xml")
    tr = trees.read_ptb(EXAMPLE / "sources.ptb", [source_tokens(s) for s in db.sources])
    al = {s: (alignments.read_pharaoh(EXAMPLE / f"{s}.pharaoh"), f"{s}.pharaoh")
          for s in ("sysA", "sysB", "sysC")}
    extract_database(db, tr, al)
    schemes.add_template(db, "fluency5")
    for si, src in enumerate(db.sources if judged else ()):
        for k, t in enumerate(x for x in src.targets if not db.is_reference(x)):
            t.set_score("fluency", float(1 + (3 * si + 2 * k) % 5), "ann")
    return db


def _commit(db: Database, j: Journal, ch: Change) -> Change:
    """What the application does: journal first (fsync), then apply."""
    ch = j.append(ch)
    apply_entry(db, ch)
    return ch


def _ti(db: Database, si: int, system: str) -> int:
    return [t.system for t in db.sources[si].targets].index(system)


def _judge(db: Database, path: Path) -> list[Change]:
    """The unsaved judgements of a session on ``db`` (saved at ``path``): journalled and
    applied to ``db``, which is then what the application shows. Returns the entries."""
    j = Journal.for_database(path)
    steps: list[Callable[[], Change]] = [
        lambda: change_for(db, 0, _ti(db, 0, "sysA"), "fluency", 5, "kim"),
        lambda: change_for(db, 1, _ti(db, 1, "sysA"), "fluency", 2, "kim"),
        lambda: change_for(db, 3, _ti(db, 3, "sysC"), "fluency", 1, "kim"),
        lambda: change_for(db, 2, _ti(db, 2, "sysB"), "fluency", 4, "ann"),  # ann changes hers
        lambda: change_for(db, 4, _ti(db, 4, "sysB"), "fluency", None, "ann"),  # an undo
        lambda: pc.items_change(db, 1, [(0, 2), (2, 4)]),
        lambda: pc.marks_change(db, 1, _ti(db, 1, "sysA"), "kim", ("OK", "syntax")),
        lambda: pc.postedit_change(db, 1, _ti(db, 1, "sysB"), "kim",
                                   "Der Minister sagte am Dienstag , dass die Regierung "
                                   "die Steuern senken würde .", 5.0),
        lambda: pc.reference_change(db, 2, None, "add", text="Bücher haben mich gerettet .",
                                    judge="kim"),
        lambda: rc.segment_ranking_change(db, 0, "kim", {0: [1, 2], 1: [2, 1, 3]}, "t1",
                                          seconds=12.0),
        lambda: rc.segment_ranking_change(db, 0, "ann", {0: [2, 1], 1: [1, 1, 2]}, "t2",
                                          seconds=14.0),
        lambda: rc.segment_ranking_change(db, 0, "kim", {0: [2, 1], 1: [1, 2, 3]}, "t1",
                                          seconds=15.0),               # re-ranked
        lambda: rc.sentence_ranking_change(db, 0, "ann", {1: 2, 2: 1, 3: 3}, "w1", seconds=3.0),
        lambda: rc.sentence_ranking_change(db, 1, "kim", {1: 1, 2: 2, 3: 2}, "w2", seconds=4.0),
    ]
    entries = [_commit(db, j, make()) for make in steps]
    j.close()
    return entries


def _inputs(d: Path) -> None:
    """The files the commands read besides the database (relative paths, the same in every
    world)."""
    for f in EXAMPLE.iterdir():
        if f.suffix in (".ptb", ".pharaoh", ".en", ".de"):
            shutil.copy(f, d / f.name)
    lines = (EXAMPLE / "sysA.de").read_text(encoding="utf-8").splitlines()
    (d / "sysD.de").write_text("".join(f"{x} !\n" for x in lines), encoding="utf-8")
    (d / "metric.tsv").write_text("".join(f"{s}\t{k}\t{0.1 * k + len(s) / 10}\n"
                                          for s in ("sysA", "sysB", "sysC")
                                          for k in range(1, 6)), encoding="utf-8")
    src0 = (EXAMPLE / "sources.en").read_text(encoding="utf-8").splitlines()[0]
    (d / "extra.aachen").write_text(f"SOURCE {src0}\nTARGET 7 Eine neue Brücke .\n",
                                    encoding="utf-8")
    (d / "j.csv").write_text(
        "srclang,trglang,srcIndex,documentId,segmentId,judgeId,system1Number,system1Id,"
        "system2Number,system2Id,system3Number,system3Id,system1rank,system2rank,system3rank\n"
        "en,de,3,-1,3,zoe,1,sysA,2,sysB,3,sysC,2,1,3\n"
        "en,de,4,-1,4,zoe,1,sysA,2,sysB,3,sysC,1,1,2\n", encoding="utf-8")
    (d / "jd.tsv").write_text("system\tline\tclass\tvalue\tjudge\nsysB\t2\tfluency\t3\tlee\n"
                              "sysC\t4\tfluency\t5\tlee\n", encoding="utf-8")
    other = _campaign(judged=False)             # another judge's copy of the campaign
    other.sources[3].targets[2].set_score("fluency", 3, "zoe")
    other.sources[4].targets[1].set_score("fluency", 2, "zoe")
    rc.apply_ranking_change(other, rc.segment_ranking_change(
        other, 1, "zoe", {k: [1] * len(seg.candidates)
                          for k, seg in enumerate(_segments(other, 1))}, "z1", seconds=9.0))
    save_database(other, d / "other.etdb.xml")
    from evaltrans_qt.io.segranks import formats
    formats.write_ranks_json(other, d / "zoe.json")


def _segments(db: Database, si: int) -> list:
    from evaltrans_qt.engine.human.segranks.model import sentence_segments
    return list(sentence_segments(db.sources[si]).segments)


@dataclass
class World:
    root: Path
    entries: list[Change]
    #: The database the application shows (store.open_database of the journal world).
    shown: Database
    journal: Path = field(init=False)
    app: Path = field(init=False)
    bare: Path = field(init=False)

    def __post_init__(self) -> None:
        self.journal, self.app, self.bare = (self.root / n for n in ("journal", "app", "bare"))


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> World:
    """The three worlds, built once (copied for each test)."""
    root = tmp_path_factory.mktemp("seam")
    for name in ("journal", "app", "bare"):
        (root / name).mkdir()
        _inputs(root / name)
    db = _campaign()
    save_database(db, root / "bare" / DB)
    save_database(db, root / "journal" / DB)
    entries = _judge(db, root / "journal" / DB)
    save_database(db, root / "app" / DB)
    shown = store.open_database(root / "journal" / DB).database
    assert dumps(shown) == dumps(db) == (root / "app" / DB).read_bytes()
    assert dumps(shown) != (root / "bare" / DB).read_bytes()
    return World(root, entries, shown)


@pytest.fixture
def world(template, tmp_path) -> World:
    shutil.copytree(template.root, tmp_path / "w")
    return World(tmp_path / "w", template.entries, template.shown)


def cli(monkeypatch, capsys, where: Path, argv: list[str]) -> tuple[int, str, str]:
    """``evaltrans ARGV`` run in folder ``where``: (exit code, stdout, stderr)."""
    monkeypatch.chdir(where)
    capsys.readouterr()
    try:
        code = main(list(argv))
    except SystemExit as exc:                    # argparse
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


# --------------------------------------------------------------------------- readers
def _no_seconds(text: str) -> str:
    """batch --json: without the run's wall-clock seconds."""
    d = json.loads(text)
    d.pop("seconds", None)
    return json.dumps(d, sort_keys=True)


def _no_dates(data: bytes) -> bytes:
    """A report without its date and run time."""
    return re.sub(rb"<(date|seconds|time)[^>]*>[^<]*</\1>|(date|seconds|time)=\"[^\"]*\"",
                  b"", data)


def _as_is(x):
    return x


@dataclass(frozen=True)
class Reader:
    argv: tuple[str, ...]
    #: Files it writes (compared between the worlds).
    files: tuple[str, ...] = ()
    #: Whether the journal changes its output (else only equality with the app is asked).
    changes: bool = True
    #: What is compared of its stdout / of each file it writes.
    norm: Callable[[str], str] = _as_is
    norm_file: Callable[[bytes], bytes] = _as_is


MEASURES = ("--measures", "bleu,wer")
READERS = {
    "info --json": Reader(("info", DB, "--json")),
    "info": Reader(("info", DB)),
    "classes --json": Reader(("classes", DB, "--json")),
    "classes": Reader(("classes", DB)),
    "batch --json --extrapolate": Reader(("batch", "--database", DB, "--all-systems", "--json",
                                          *MEASURES, "--extrapolate"), norm=_no_seconds),
    "batch --xml-mode": Reader(("batch", "--database", DB, "--all-systems", "--xml-mode",
                                *MEASURES, "--correlation-samples", "20", "--output-file",
                                "r.xml"), files=("r.sysA.xml", "r.sysB.xml", "r.sysC.xml"),
                               norm_file=_no_dates),
    "unseen --leave-one-out": Reader(("unseen", DB, "--leave-one-out", "--json")),
    "unseen --method closest": Reader(("unseen", DB, "--system", "sysB", "--method", "closest",
                                       "--json")),
    "segranks export .json": Reader(("segranks", "export", DB, "-o", "ranks.json"),
                                    files=("ranks.json",)),
    "segranks export .segments": Reader(("segranks", "export", DB, "-o", "y.segments"),
                                        files=("y.segments",), changes=False),
    "segranks agreement": Reader(("segranks", "agreement", DB, "--json")),
    "ranking wins": Reader(("ranking", "wins", DB, "--json")),
    "ranking wins --sentences": Reader(("ranking", "wins", DB, "--sentences", "--json", "-o",
                                        "wins.csv"), files=("wins.csv",)),
    "ranking agreement": Reader(("ranking", "agreement", DB, "--json")),
    "ranking agreement --sentences": Reader(("ranking", "agreement", DB, "--sentences",
                                             "--json")),
    "export aachen": Reader(("export", "aachen", DB, "--score-class", "fluency", "-o",
                             "out.aachen"), files=("out.aachen",)),
    "export mtme": Reader(("export", "mtme", DB, "--lp", "en-de", "--measures", "bleu", "-o",
                           "mtme"), files=("mtme",)),
    "human": Reader(("human", DB, "--json")),
    "human --judge": Reader(("human", DB, "--judge", "kim", "--json")),
    "judge-agreement": Reader(("judge-agreement", DB, "--json")),
    "extrapolate": Reader(("extrapolate", DB, "--json")),
    "items (list)": Reader(("items", DB, "--source", "2", "--json")),
    # the journal holds no error spans: the same as the application's, not asked to differ
    "spans --list": Reader(("spans", DB, "--source", "2", "--system", "sysB", "--list",
                            "--json"), changes=False),
    "spans --export-json": Reader(("spans", DB, "--export-json", "spans.jsonl"),
                                  files=("spans.jsonl",), changes=False),
    "correlate": Reader(("correlate", DB, "--human", "fluency", *MEASURES, "--level", "both",
                         "--bootstrap", "50", "--json")),
    "significance": Reader(("significance", DB, "--measure", "bleu", "--samples", "50",
                            "--seed", "1", "--json")),
    "significance --human": Reader(("significance", DB, "--human", "fluency", "--samples",
                                    "50", "--seed", "1", "--json")),
    "combine": Reader(("combine", DB, *MEASURES, "--folds", "2", "--json")),
    "orange": Reader(("orange", DB, "--measures", "bleu", "--json")),
    "wmt14-tables": Reader(("wmt14-tables", f"en-de={DB}", "--human", "fluency", "--measures",
                            "bleu", "--bootstrap", "20", "--json")),
}


def _outputs(where: Path, reader: Reader, out: str) -> list:
    got: list = [reader.norm(out)]
    for name in reader.files:
        p = where / name
        files = sorted(x for x in p.rglob("*") if x.is_file()) if p.is_dir() else [p]
        got += [(str(f.relative_to(where)), reader.norm_file(f.read_bytes())) for f in files]
    return got


@pytest.mark.parametrize("name", list(READERS))
def test_every_reader_reports_what_the_application_shows(name, world, monkeypatch, capsys):
    reader = READERS[name]
    before = (world.journal / DB).read_bytes(), journal_path(world.journal / DB).read_bytes()
    results = {}
    for w in ("journal", "app", "bare"):
        where = getattr(world, w)
        code, out, err = cli(monkeypatch, capsys, where, list(reader.argv))
        assert err.count("unsaved judgement") == (w == "journal"), (w, err)
        if w == "journal":
            assert NOTE in err
        if code != 0 and w == "bare":            # needs what only the journal has
            results[w] = ["exit", code, err]
            continue
        assert code == 0, (w, err)
        results[w] = _outputs(where, reader, out)
    assert results["journal"] == results["app"]
    if reader.changes:
        assert results["journal"] != results["bare"]
    # a reader changes nothing on disk
    after = (world.journal / DB).read_bytes(), journal_path(world.journal / DB).read_bytes()
    assert after == before


def test_counts_rankings_and_human_scores_are_the_shown_databases(world, monkeypatch, capsys):
    """Explicitly: ``info --json``, ``ranking wins --json`` and ``human --json`` on the file
    with its journal are computed from the database the application shows."""
    from evaltrans_qt.engine.human import protocol_scores
    from evaltrans_qt.engine.human.ranking import database_rank_scores
    from evaltrans_qt.engine.options import EvalOptions
    shown = world.shown
    from evaltrans_qt.cli.data import database_extras
    code, out, _ = cli(monkeypatch, capsys, world.journal, ["info", DB, "--json"])
    assert code == 0 and json.loads(out) == json.loads(json.dumps(
        {**shown.counts(), **database_extras(shown)}))
    assert json.loads(out)["scored"]["fluency"] == 15 - 1       # ann's 15, one undone
    code, out, _ = cli(monkeypatch, capsys, world.journal, ["ranking", "wins", DB, "--json"])
    assert code == 0
    assert json.loads(out) == json.loads(json.dumps(
        database_rank_scores(shown, "segments", "rank").to_dict()))
    assert json.loads(out)["rankings"] > 0
    code, out, _ = cli(monkeypatch, capsys, world.journal, ["human", DB, "--json"])
    table = protocol_scores.summary(shown, EvalOptions())
    got = json.loads(out)["systems"]
    assert {s: {n: v["sentences"] for n, v in row.items()} for s, row in got.items()} == \
        {s: {n: v.sentences for n, v in row.items()} for s, row in table.items()}


# --------------------------------------------------------------------------- writers
@dataclass(frozen=True)
class Writer:
    argv: tuple[str, ...]
    #: The database it writes.
    output: str = DB
    #: Journal entry kinds the command itself replaces (re-extraction drops the old
    #: segments' rankings, in every world alike).
    replaces: tuple[type, ...] = ()

    @property
    def in_place(self) -> bool:
        return self.output == DB


WRITERS = {
    "classes --add-template": Writer(("classes", DB, "--add-template", "adequacy5")),
    "classes -o": Writer(("classes", DB, "--add-template", "adequacy5", "-o", "out.etdb.xml"),
                         "out.etdb.xml"),
    "reference (promote)": Writer(("reference", DB, "--source", "4", "--system", "sysB")),
    "reference --add": Writer(("reference", DB, "--source", "5", "--add", "Ein Satz .")),
    "items --define": Writer(("items", DB, "--source", "4", "--define", "1-2,3-4")),
    "items --marks": Writer(("items", DB, "--source", "2", "--system", "sysC", "--judge", "lee",
                             "--marks", "OK,meaning")),
    "postedit": Writer(("postedit", DB, "--source", "3", "--system", "sysA", "--judge", "lee",
                        "--text", "Bearbeitet .", "--seconds", "3")),
    "import scores": Writer(("import", "scores", "metric.tsv", "--database", DB, "--name",
                             "M", "--format", "tsv")),
    "import scores -o": Writer(("import", "scores", "metric.tsv", "--database", DB, "--name",
                                "M", "--format", "tsv", "-o", "out.etdb.xml"), "out.etdb.xml"),
    "import text --append": Writer(("import", "text", "--source", "sources.en", "--system",
                                    "sysD=sysD.de", "--append", "-o", DB)),
    "import aachen --append": Writer(("import", "aachen", "extra.aachen", "--append", "-o",
                                      DB)),
    "merge DB X -o DB": Writer(("merge", DB, "other.etdb.xml", "-o", DB)),
    "merge X DB -o DB": Writer(("merge", "other.etdb.xml", DB, "-o", DB)),
    "merge DB X -o C": Writer(("merge", DB, "other.etdb.xml", "-o", "out.etdb.xml"),
                              "out.etdb.xml"),
    "extrapolate -o DB": Writer(("extrapolate", DB, "--human", "fluency", "--judge", "db",
                                 "-o", DB)),
    "segranks import .json": Writer(("segranks", "import", "zoe.json", "--database", DB,
                                     "--judge", "zoe")),
    "segranks extract": Writer(("segranks", "extract", "--database", DB, "--trees",
                                "sources.ptb", "--alignments-dir", ".", "-o", "x.segments"),
                               replaces=(rc.SegmentRankingChange,)),
    "segranks extract --output-database": Writer(
        ("segranks", "extract", "--database", DB, "--trees", "sources.ptb", "--alignments-dir",
         ".", "-o", "x.segments", "--output-database", "out.etdb.xml"), "out.etdb.xml",
        replaces=(rc.SegmentRankingChange,)),
    "ranking import-wmt": Writer(("ranking", "import-wmt", "j.csv", "--database", DB, "-o",
                                  DB)),
}
IN_PLACE = [n for n, w in WRITERS.items() if w.in_place]
#: Writers of single judgements that commit through the journal under the lock, as the
#: application does (io.judgements.commit_changes): in place only, and deliberately without
#: --force (two programs' changes would mix in one journal).
JOURNALLED = {
    "judge": Writer(("judge", DB, "--source", "3", "--system", "sysA", "--class", "fluency",
                     "--value", "4", "--judge", "lee")),
    "import judgements": Writer(("import", "judgements", "jd.tsv", "--database", DB)),
    "spans": Writer(("spans", DB, "--source", "2", "--system", "sysB", "--judge", "lee",
                     "--add", "0:3", "--severity", "major")),
}


def _canonical(db: Database) -> bytes:
    """``db`` written with each target's scores in one order (a replayed score is appended
    after the others: the same judgements, another order)."""
    for _src, t in db.iter_targets():
        t.scores.sort(key=repr)
    return dumps(db)


def _kept(path: Path, entries: list[Change]) -> None:
    """Every journalled judgement is in the file at ``path``: replaying them changes
    nothing."""
    db = load_database(path)
    before = _canonical(db)
    report = replay(db, entries)
    assert not report.missing and not report.rejected
    assert _canonical(db) == before


@pytest.mark.parametrize("name", [*WRITERS, *JOURNALLED])
def test_every_writer_keeps_the_journalled_judgements(name, world, monkeypatch, capsys):
    writer = WRITERS.get(name) or JOURNALLED[name]
    jp = journal_path(world.journal / DB)
    before, journal_before = (world.journal / DB).read_bytes(), jp.read_bytes()
    for w in ("journal", "app"):
        code, _out, err = cli(monkeypatch, capsys, getattr(world, w), list(writer.argv))
        assert code == 0, (w, err)
        assert (NOTE in err) == (w == "journal"), err
    written = world.journal / writer.output
    # judge, import judgements and spans stamp their judgements with the time of the
    # command: the two runs may fall in different seconds
    same = _no_dates if name in JOURNALLED else _as_is
    assert same(written.read_bytes()) == same((world.app / writer.output).read_bytes())
    _kept(written, [e for e in world.entries if not isinstance(e, writer.replaces)])
    if writer.in_place:
        assert not jp.exists()                           # folded: its entries are in the file
        assert store.open_database(written).note is None
        assert not list(world.journal.glob("*.unapplied")) + list(world.journal.glob("*.replaced"))
    else:                                                # elsewhere: the input untouched
        assert (world.journal / DB).read_bytes() == before and jp.read_bytes() == journal_before
        assert not journal_path(written).exists()


@pytest.mark.parametrize("argv", [
    ("import", "text", "--source", "sources.en", "--reference", "ref=reference.de", "--system",
     "sysA=sysA.de", "-o", DB),
    ("import", "aachen", "extra.aachen", "-o", DB),
    ("classes", "other.etdb.xml", "--add-template", "adequacy5", "-o", DB),
    ("merge", "other.etdb.xml", "other.etdb.xml", "-o", DB),
    ("postedit", "other.etdb.xml", "--source", "1", "--system", "sysA", "--judge", "x",
     "--text", "y", "-o", DB),
], ids=lambda a: " ".join(a[:2]))
def test_replacing_a_file_with_a_journal_refuses_and_force_sets_it_aside(
        argv, world, monkeypatch, capsys):
    """A command that would replace the file the journal belongs to (another database
    written over it) refuses: the journal's judgements would be orphaned (its replay would
    fail). With --force the file is replaced and the journal kept aside."""
    jp = journal_path(world.journal / DB)
    before, journal_before = (world.journal / DB).read_bytes(), jp.read_bytes()
    code, _, err = cli(monkeypatch, capsys, world.journal, list(argv))
    assert code == 2
    assert err == (f"evaltrans: error: {DB}: 14 unsaved judgements in {DB}.journal would be "
                   "orphaned: this write replaces the file they belong to; open it first "
                   "(evaltrans-qt, or a command that includes the journal) or write "
                   "elsewhere\n")
    assert (world.journal / DB).read_bytes() == before and jp.read_bytes() == journal_before
    code, _, err = cli(monkeypatch, capsys, world.journal, [*argv, "--force"])
    assert code == 0, err
    aside = world.journal / f"{DB}.journal.replaced"
    assert f"{DB}: journal entries that are not in the written file kept in {aside.name}" in err
    assert not jp.exists() and len(Journal(aside).entries()) == 14


# --------------------------------------------------------------------------- lock
@pytest.fixture(scope="module")
def live_pid():
    """A live process other than this one (its pid goes into a lock file)."""
    proc = subprocess.Popen(["sleep", "300"])
    yield proc.pid
    proc.kill()
    proc.wait(30)


def _lock(path: Path, pid: int) -> None:
    lock_path(path).write_text(json.dumps({
        "evaltrans-lock": 1, "pid": pid, "host": socket.gethostname(),
        "started": "2025-01-01T00:00:00.000Z", "program": "evaltrans-qt", "token": "theirs"}))


@pytest.mark.parametrize("name", IN_PLACE)
def test_a_writer_refuses_a_locked_file_and_force_writes(name, world, live_pid, monkeypatch,
                                                          capsys):
    writer = WRITERS[name]
    path, jp = world.journal / DB, journal_path(world.journal / DB)
    _lock(path, live_pid)
    before, journal_before = path.read_bytes(), jp.read_bytes()
    code, _, err = cli(monkeypatch, capsys, world.journal, list(writer.argv))
    assert code == 2
    assert err.endswith(f"evaltrans: error: {DB}: open in evaltrans-qt, pid {live_pid}: close "
                        "it there or write elsewhere with -o (--force writes anyway, which is "
                        "unsafe: that program may overwrite it)\n"), err
    assert path.read_bytes() == before and jp.read_bytes() == journal_before
    code, _, err = cli(monkeypatch, capsys, world.journal, [*writer.argv, "--force"])
    assert code == 0, err
    _kept(path, [e for e in world.entries if not isinstance(e, writer.replaces)])
    assert not jp.exists() and lock_path(path).exists()      # their lock is theirs


@pytest.mark.parametrize("name", list(JOURNALLED))
def test_a_journalled_writer_refuses_a_locked_file(name, world, live_pid, monkeypatch, capsys):
    """``judge``, ``import judgements``, ``spans``: refused while another live process holds
    the lock, the file and its journal untouched (they have no --force)."""
    writer = JOURNALLED[name]
    path, jp = world.journal / DB, journal_path(world.journal / DB)
    _lock(path, live_pid)
    before, journal_before = path.read_bytes(), jp.read_bytes()
    code, _, err = cli(monkeypatch, capsys, world.journal, list(writer.argv))
    assert code == 2
    assert f"evaltrans: error: {DB}: open in evaltrans-qt, pid {live_pid}" in err, err
    assert "written" in err and err.count("\n") == 1, err
    assert path.read_bytes() == before and jp.read_bytes() == journal_before
    code, _, err = cli(monkeypatch, capsys, world.journal, [*writer.argv, "--force"])
    assert code == 2 and "--force" in err                     # no --force to override it


@pytest.mark.parametrize("name", ["classes --add-template", "merge X DB -o DB",
                                  "import scores", "postedit"])
def test_a_stale_lock_does_not_stop_a_writer(name, world, monkeypatch, capsys):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait(30)
    path = world.journal / DB
    _lock(path, dead.pid)
    code, _, err = cli(monkeypatch, capsys, world.journal, list(WRITERS[name].argv))
    assert code == 0, err
    _kept(path, world.entries)
    assert not journal_path(path).exists()


HOLD = textwrap.dedent("""
    import sys, time
    from evaltrans_qt.io.store import acquire_lock
    acquire_lock(sys.argv[1])
    print("locked", flush=True)
    time.sleep(120)
""")


def test_the_application_s_lock_refuses_in_place_and_allows_elsewhere(world, monkeypatch,
                                                                      capsys):
    """Another process takes the lock the way the application does (acquire_lock): a
    command writing in place refuses, -o elsewhere works, --force writes; once the holder
    died (SIGKILL: its lock file is left behind) the lock is stale and the command writes."""
    path = world.journal / DB
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(path)], stdout=subprocess.PIPE,
                              env=ENV)
    argv = ["classes", DB, "--add-template", "adequacy5"]
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"locked\n"
        code, _, err = cli(monkeypatch, capsys, world.journal, argv)
        assert code == 2 and f"open in evaltrans-qt, pid {holder.pid}" in err
        code, _, err = cli(monkeypatch, capsys, world.journal, [*argv, "-o", "out.etdb.xml"])
        assert code == 0, err
        _kept(world.journal / "out.etdb.xml", world.entries)
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait(30)
        if holder.stdout is not None:
            holder.stdout.close()
    assert lock_path(path).exists()
    code, _, err = cli(monkeypatch, capsys, world.journal, argv)
    assert code == 0, err
    _kept(path, world.entries)
    assert not journal_path(path).exists()


# --------------------------------------------------------------------------- changed on disk
@pytest.mark.parametrize("name", IN_PLACE)
def test_a_file_changed_since_the_command_read_it_is_not_replaced(name, world, monkeypatch,
                                                                   capsys):
    """Another program saves the file between the command's read and its write: the
    command refuses (exit 2), their file and the journal stay as they are."""
    writer = WRITERS[name]
    path, jp = world.journal / DB, journal_path(world.journal / DB)
    theirs = load_database(path)
    theirs.sources[2].targets[3].set_score("fluency", 5, "other")
    real = store.write_database

    def after_the_read(*args, **kwargs):
        save_database(theirs, path)
        return real(*args, **kwargs)

    monkeypatch.setattr(store, "write_database", after_the_read)
    journal_before = jp.read_bytes()
    code, _, err = cli(monkeypatch, capsys, world.journal, list(writer.argv))
    assert code == 2
    assert err.endswith(f"evaltrans: error: {DB}: changed on disk since this command read it; "
                        "nothing was written (run the command again)\n"), err
    assert load_database(path) == theirs and jp.read_bytes() == journal_before
