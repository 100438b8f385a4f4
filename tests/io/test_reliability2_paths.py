"""Names from data never become paths unchecked, and multi-file outputs are all-or-nothing.

Hostile names (separators, ``..``, control characters, very long, differing only in
case) go through ``io/names.py`` in every writer that builds paths from data: the
mt-metrics-eval export, the per-system reports of ``batch`` and saved alignments.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import unquote

import pytest

from evaltrans_qt.engine.data.database import Database, Levels, Score
from evaltrans_qt.engine.measures.external import ExternalMetric, external_metrics
from evaltrans_qt.errors import SaveError
from evaltrans_qt.io import atomic
from evaltrans_qt.io.mtme import LP_ATTR, export_mtme
from evaltrans_qt.io.names import MAX_PART, file_name_part, file_name_parts

HOSTILE = ["../../escaped", "..", ".", "", "a/b", "a\\b", "x\x00y", "tab\there", "new\nline",
           "/abs", "~user", "%2F", "A" * 300, "é" * 80, ".hidden", "con", "-rf"]


@pytest.mark.parametrize("name", HOSTILE)
def test_a_file_name_part_is_one_safe_component_that_decodes_back(name):
    part = file_name_part(name)
    assert part and len(part) <= MAX_PART
    assert "/" not in part and "\\" not in part and not part.startswith(".")
    assert all(32 < ord(c) < 127 for c in part)
    if len(part) < MAX_PART - 13:
        assert unquote(part) == name or (name == "" and part == "%")


def test_parts_of_names_side_by_side_never_clash():
    names = ["A", "a", "a/b", "a%2Fb", "a_b", "", "B" * 300, "B" * 301]
    parts = file_name_parts(names)
    assert len({p.casefold() for p in parts.values()}) == len(names)


def _hostile_db(system: str, lp: str, metric: str, cls: str) -> Database:
    db = Database([Levels(cls, 0, 0, 1, 1, 0, True, 0.0, 1.0), Levels("isReference", 2, 0, 1, 1)])
    src = db.add_source("one", None, "1")
    ref = db.add_target(src, "eins", "ref")
    db.mark_reference(ref)
    t = db.add_target(src, "ein", system)
    t.scores.append(Score(cls, 0.5))
    m = ExternalMetric(metric, True, file="", fmt="", reference="")
    m.segments[system] = {0: 0.25}
    m.systems[system] = 0.25
    external_metrics(db)[metric] = m
    db.extra_attrs[LP_ATTR] = lp
    return db


@pytest.mark.parametrize("system,lp,metric,cls", [
    ("../../../escaped-system", "en-de", "M", "mqm"),
    ("S", "../../escaped-lp", "M", "mqm"),
    ("S", "en-de", "../../../escaped-metric", "mqm"),
    ("S", "en-de", "M", "../../../escaped-class"),
    ("/abs/x", "..", "..", ".."),
])
def test_export_mtme_writes_only_inside_its_folder(tmp_path, system, lp, metric, cls):
    out = tmp_path / "a" / "b" / "out"
    files = export_mtme(_hostile_db(system, lp, metric, cls), out)
    assert files and all(f.resolve().is_relative_to(out.resolve()) for f in files)
    everything = {p for p in tmp_path.rglob("*") if p.is_file()}
    assert everything == set(files)
    assert not any(p.name.startswith(".") for p in everything)


def test_export_mtme_on_a_failing_disk_leaves_the_old_export(tmp_path, monkeypatch):
    out = tmp_path / "out"
    db = _hostile_db("S", "en-de", "M", "mqm")
    export_mtme(db, out)
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    db.sources[0].targets[1].text = "changed"
    real, calls = atomic.stage_bytes, []

    def full_disk(path, data):
        calls.append(path)
        if len(calls) == 3:
            raise SaveError("cannot write: No space left on device", path)
        return real(path, data)
    monkeypatch.setattr(atomic, "stage_bytes", full_disk)
    with pytest.raises(SaveError, match="no file of the set was changed"):
        export_mtme(db, out)
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


def test_atomic_write_files_is_all_or_nothing_on_a_real_failure(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "missing-dir" / "b.txt"
    a.write_text("old")
    with pytest.raises(SaveError) as err:
        atomic.atomic_write_files([(a, b"new"), (b, b"new")])
    assert Path(err.value.path) == b and a.read_text() == "old"
    assert os.listdir(tmp_path) == ["a.txt"]
    assert atomic.atomic_write_files([(a, b"1"), (tmp_path / "c", b"2")]) == [a, tmp_path / "c"]
    assert a.read_text() == "1" and (tmp_path / "c").read_text() == "2"


def test_batch_report_names_of_hostile_systems_stay_in_the_folder(tmp_path):
    from evaltrans_qt.cli.batch import output_paths
    names = [n for n in HOSTILE if n] + ["A", "a"]
    paths = output_paths(str(tmp_path / "R.xml"), names)
    assert len(set(paths.values())) == len(names)
    for p in paths.values():
        assert p is not None and p.parent == tmp_path and p.name.startswith("R.")
        assert "\x00" not in p.name and "\n" not in p.name and len(p.name) <= MAX_PART + 20


def test_batch_all_systems_on_a_failing_disk_keeps_the_old_reports(tmp_path, monkeypatch):
    from evaltrans_qt.cli.main import main
    src, ref = tmp_path / "src.txt", tmp_path / "ref.txt"
    src.write_text("a b c\nd e\n")
    ref.write_text("a b c\nd e\n")
    for s in ("S1", "S2", "S3"):
        (tmp_path / f"{s}.txt").write_text("a b x\nd e\n")
    args = ["batch", "--source", str(src), "--reference", str(ref),
            *[x for s in ("S1", "S2", "S3") for x in ("--target", f"{s}={tmp_path / s}.txt")],
            "--xml-mode", "--output-file", str(tmp_path / "r.xml"), "--measures", "wer"]
    assert main(args) == 0
    before = {p.name: p.read_bytes() for p in tmp_path.glob("r.*.xml")}
    assert len(before) == 3
    (tmp_path / "S3.txt").write_text("a b c\nd x\n")
    real, calls = atomic.stage_bytes, []

    def full_disk(path, data):
        calls.append(path)
        if len(calls) == 3:
            raise SaveError("cannot write: No space left on device", path)
        return real(path, data)
    monkeypatch.setattr(atomic, "stage_bytes", full_disk)
    assert main(args) == 2
    assert {p.name: p.read_bytes() for p in tmp_path.glob("r.*.xml")} == before
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_a_database_and_the_file_written_with_it_are_one_unit(tmp_path, monkeypatch):
    """``segranks extract`` saves its database with the ``.segments`` file (``also``)."""
    from evaltrans_qt.io import store
    db = _hostile_db("S", "en-de", "M", "mqm")
    path, seg = tmp_path / "d.etdb.xml", tmp_path / "x.segments"
    store.save_with_identity(db, path, [(seg, b"old\n")])
    before = path.read_bytes()
    db.sources[0].targets[1].text = "changed"
    real = store.stage_bytes

    def full_disk(p, data):
        if Path(p) == path:
            raise SaveError("cannot write: No space left on device", p)
        return real(p, data)
    monkeypatch.setattr(store, "stage_bytes", full_disk)
    with pytest.raises(SaveError):
        store.save_with_identity(db, path, [(seg, b"new\n")])
    assert seg.read_bytes() == b"old\n" and path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.etdb.xml", "x.segments"]


def test_segranks_alignment_files_are_named_and_found_through_the_safe_names(tmp_path,
                                                                           capsys):
    """``--save-alignments`` names a system's file by io/names.py, and ``--alignments-dir``
    maps such names back to the system: a hostile system id neither escapes the folder
    nor loses its alignment."""
    import shutil

    from evaltrans_qt.cli.main import main
    from evaltrans_qt.io import etdb
    example = Path(__file__).resolve().parents[2] / "resources" / "segranks_example"
    camp = tmp_path / "camp"
    shutil.copytree(example, camp)
    hostile = {"sysA": "../../sysA", "sysB": "B/ok", "sysC": "C"}
    db = etdb.load_database(camp / "campaign.etdb.xml")
    for _, t in db.iter_targets():
        t.system = hostile.get(t.system or "", t.system)
    etdb.save_database(db, camp / "campaign.etdb.xml")
    parts = file_name_parts(hostile.values())
    al = tmp_path / "al"
    al.mkdir()
    for old, new in hostile.items():
        (camp / f"{old}.pharaoh").rename(al / f"{parts[new]}.pharaoh")
    assert sorted(p.name for p in al.iterdir()) == ["%2E.%2F..%2FsysA.pharaoh",
                                                    "B%2Fok.pharaoh", "C.pharaoh"]
    assert main(["segranks", "extract", "--database", str(camp / "campaign.etdb.xml"),
                 "--trees", str(camp / "sources.ptb"), "--alignments-dir", str(al), "-o",
                 str(tmp_path / "x.segments"), "--output-database",
                 str(tmp_path / "c.etdb.xml"), "--json"]) == 0
    assert '"segments": 7' in capsys.readouterr().out
