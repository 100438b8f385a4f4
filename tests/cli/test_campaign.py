"""A whole campaign through the command line (``evaltrans campaign``, docs/campaigns.md):
create, bundle, annotators scoring their bundles through the Python API, collect (shuffled
order, one bundle missing, one partial), quality control, and the bad inputs."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest

import evaltrans_qt.api as api
from evaltrans_qt.cli.main import main
from evaltrans_qt.engine.campaign.assignment import assign
from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.human.spans.model import ErrorSpan
from evaltrans_qt.io.campaign_bundle import open_bundle
from evaltrans_qt.io.campaign_file import read_campaign
from evaltrans_qt.io.etdb import load_database, save_database
from evaltrans_qt.io.protocol_changes import spans_change
from evaltrans_qt.io.span_store import commit_span_changes

WORDS = ("house tree river stone cloud bread window garden music letter street winter "
         "candle bridge forest summer paper market island silver").split()
#: true quality of each system (what a careful annotator perceives, 0..100)
QUALITY = {"Alpha": 85.0, "Beta": 70.0, "Gamma": 50.0, "Delta": 30.0}
ANNOTATORS = ("ann1", "ann2", "rand", "blind", "late")


def _sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 14)))


def _database() -> Database:
    rng = random.Random(0)
    db = Database()
    for i in range(24):
        src = db.add_source(f"Quelle {i} " + _sentence(rng), doc=f"d{i // 6}", seg=str(i + 1))
        db.add_target(src, _sentence(rng), "ref-A", reference=True)
        for system in QUALITY:
            t = db.add_target(src, _sentence(rng), system)
            if i == 0:
                t.set_score("isReference", 0, judge="oldjudge")   # another judge's score
    return db


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    """The campaign folder: db, campaign file, bundles (in ``bundles/``)."""
    d = tmp_path_factory.mktemp("campaign")
    save_database(_database(), d / "db.etdb.xml")
    (d / "howto.md").write_text("# Instructions\nMark every error, then score.\n")
    assert main(["campaign", "create", str(d / "db.etdb.xml"), "--protocol", "esa",
                 "--annotators", ",".join(ANNOTATORS), "--redundancy", "2", "--batch", "20",
                 "--seed", "7", "--qc", "bad-refs=0.25,injected=0.2,repeats=0.15",
                 "--instructions", str(d / "howto.md"),
                 "-o", str(d / "c.etcampaign.json")]) == 0
    assert main(["campaign", "bundle", str(d / "c.etcampaign.json"), "-o",
                 str(d / "bundles")]) == 0
    return d


def _originals() -> dict[str, dict[str, str]]:
    """source text -> {candidate text: system}: what the careful annotator 'knows'."""
    db = _database()
    return {s.text: {t.text: t.system or "" for t in db.candidates(s)} for s in db.sources}


def _damage(text: str, originals: dict[str, str]) -> tuple[int, int] | None:
    """The changed region of a QC copy (None: an unchanged candidate)."""
    if text in originals:
        return None
    best = max(originals, key=lambda o: len(_common(o, text)) + len(_common(o[::-1],
                                                                           text[::-1])))
    pre = len(_common(best, text))
    suf = len(_common(best[::-1][:len(best) - pre], text[::-1][:len(text) - pre]))
    return pre, len(text) - suf


def _common(a: str, b: str) -> str:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return a[:n]


def _work(bundle: Path, style: str, share: float = 1.0) -> list[tuple]:
    """The annotator scores their bundle through the API (scores as a judgements file,
    error spans through the spans commit path); returns (source text, candidate, value,
    seconds, spans) of each judged real candidate."""
    db, info = open_bundle(bundle)
    rng = random.Random(style + info.annotator)
    originals = _originals()
    rows, spans, done = ["seg\tsystem\tclass\tvalue\tjudge\tseconds"], [], []
    items = api.bundle_items(db)
    for it in items[:round(share * len(items))]:
        orig = originals[it.source]
        damage = _damage(it.candidate, orig)
        system = orig.get(it.candidate) or "Gamma"
        value = min(100.0, max(0.0, QUALITY[system] + rng.gauss(0, 4)))
        if damage is not None:
            value = max(0.0, value - 40)
        if style == "random":
            value = rng.uniform(0, 100)
        value = round(value, 1)
        seconds = round(rng.uniform(8, 40), 1)
        rows.append(f"{it.n}\t{it.system}\tesa\t{value}\t{info.annotator}\t{seconds}")
        marked: list[ErrorSpan] = []
        if damage is not None and style == "careful":
            marked = [ErrorSpan("Major", "Accuracy", damage[0], damage[1])]
        spans.append((it.source_index, it.target_index, marked))
        if damage is None:
            done.append((it.source, it.candidate, value, seconds, tuple(marked)))
    tsv = bundle.with_suffix(".tsv")
    tsv.write_text("\n".join(rows) + "\n", encoding="utf-8")
    assert api.import_judgements(bundle, tsv) == len(rows) - 1
    commit_span_changes(bundle, lambda b: [spans_change(b, si, ti, info.annotator, m,
                                                        protocol="esa")
                                           for si, ti, m in spans])
    return done


@pytest.fixture(scope="module")
def returned(campaign, tmp_path_factory):
    """The annotators' returned bundles (``late`` never returns; ``ann2`` is partial)."""
    out = tmp_path_factory.mktemp("returned")
    styles = {"ann1": ("careful", 1.0), "ann2": ("careful", 0.8), "rand": ("random", 1.0),
              "blind": ("blind", 1.0)}
    for a, (style, share) in styles.items():
        shutil.copy(campaign / "bundles" / f"{a}.etdb.xml", out / f"{a}.etdb.xml")
        _work(out / f"{a}.etdb.xml", style, share)
    return out


def test_bundles_hold_only_their_items_no_system_names_no_references(campaign):
    text = {a: (campaign / "bundles" / f"{a}.etdb.xml").read_text(encoding="utf-8")
            for a in ANNOTATORS}
    for a, t in text.items():
        for system in QUALITY:
            assert f'sys="{system}"' not in t and system not in t
        assert "ref-A" not in t and "oldjudge" not in t and "<eval" not in t
        db, info = open_bundle(campaign / "bundles" / f"{a}.etdb.xml")
        assert info.annotator == a and info.instructions.startswith("# Instructions")
        assert [lv.name for lv in db.levels] == ["esa", "isReference"]
        assert not api.bundle_progress(db).done
        assert api.bundle_progress(db).text.startswith(f"0 of {len(db.sources)}, ")
    # per-annotator ids: no opaque id is shared between two bundles
    ids = [{t.system for s in load_database(campaign / "bundles" / f"{a}.etdb.xml").sources
            for t in s.targets} for a in ANNOTATORS]
    assert all(x.isdisjoint(y) for k, x in enumerate(ids) for y in ids[k + 1:])


def test_same_definition_and_seed_give_byte_identical_files(campaign, tmp_path):
    args = ["campaign", "create", str(campaign / "db.etdb.xml"), "--protocol", "esa",
            "--annotators", ",".join(ANNOTATORS), "--redundancy", "2", "--batch", "20",
            "--seed", "7", "--qc", "bad-refs=0.25,injected=0.2,repeats=0.15",
            "--instructions", str(campaign / "howto.md")]
    shutil.copy(campaign / "db.etdb.xml", tmp_path / "db.etdb.xml")
    assert main([*args, "-o", str(campaign / "again.etcampaign.json")]) == 0
    assert (campaign / "again.etcampaign.json").read_bytes() == \
        (campaign / "c.etcampaign.json").read_bytes()
    assert main(["campaign", "bundle", str(campaign / "again.etcampaign.json"), "-o",
                 str(tmp_path / "b2")]) == 0
    for a in ANNOTATORS:
        assert (tmp_path / "b2" / f"{a}.etdb.xml").read_bytes() == \
            (campaign / "bundles" / f"{a}.etdb.xml").read_bytes()
    args[args.index("7")] = "8"
    assert main([*args, "-o", str(tmp_path / "other.etcampaign.json")]) == 0
    assert main(["campaign", "bundle", str(tmp_path / "other.etcampaign.json"), "-o",
                 str(tmp_path / "b3")]) == 0
    assert (tmp_path / "b3" / "ann1.etdb.xml").read_bytes() != \
        (campaign / "bundles" / "ann1.etdb.xml").read_bytes()


def test_collect_checks_against_the_positions_the_bundle_was_written_from(campaign):
    """collect computes each bundle's positions from the definition instead of rebuilding
    it: they equal those read back from the written file, checksum included, and a
    change of one candidate is the first difference named."""
    from evaltrans_qt.io.campaign_bundle import (
        bundle_levels,
        bundle_positions,
        expected_info,
        item_texts,
        positions_of,
        slot_texts,
    )
    from evaltrans_qt.io.campaign_collect import first_difference
    from evaltrans_qt.io.campaign_file import load_campaign_database
    d = read_campaign(campaign / "c.etcampaign.json")
    db = load_campaign_database(d, campaign / "c.etcampaign.json")
    plans, texts = assign(d), item_texts(d, db)
    for a in ANNOTATORS:
        bdb, info = open_bundle(campaign / "bundles" / f"{a}.etdb.xml")
        expected = bundle_positions(d, db, plans[a], slot_texts(d, db, plans[a], texts))
        assert positions_of(bdb) == expected
        assert expected_info(d, plans[a], expected) == info
        assert first_difference(bundle_levels(d, db), expected, bdb) is None
    n = next(k for k, p in enumerate(expected) if not p.targets[-1][2])
    bdb.sources[n].targets[-1].text += " x"
    diff = first_difference(bundle_levels(d, db), expected, bdb)
    assert diff is not None and diff.startswith(f"position {n + 1}: the candidate changed: "
                                                f"expected {expected[n].targets[-1][1][:20]!r}"[:-1])


def _collect(campaign: Path, files: list[Path], out: Path, capsys) -> tuple[int, str, str]:
    capsys.readouterr()
    rc = main(["campaign", "collect", str(campaign / "c.etcampaign.json"),
               *map(str, files), "-o", str(out)])
    o, e = capsys.readouterr()
    return rc, o, e


def test_whole_campaign_qc_flags_exactly_the_careless(campaign, returned, tmp_path, capsys):
    order = [returned / f"{a}.etdb.xml" for a in ("rand", "ann2", "blind", "ann1")]
    rc, out, err = _collect(campaign, order, tmp_path / "result.etdb.xml", capsys)
    assert rc == 0, err
    assert "no bundle yet from late" in out
    capsys.readouterr()
    assert main(["campaign", "qc", str(tmp_path / "result.etdb.xml"), "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["missing"] == ["late"]
    by = {a["annotator"]: a for a in rep["annotators"]}
    assert {a for a, r in by.items() if not r["passed"]} == {"rand", "blind"}, by
    assert [r.split(":")[0] for r in by["blind"]["reasons"]] == ["injected"]
    assert any(r.startswith("bad-refs") for r in by["rand"]["reasons"])
    assert by["ann2"]["done"] < by["ann2"]["assigned"]        # the partial bundle
    assert by["ann1"]["done"] == by["ann1"]["assigned"]
    assert 8 <= by["ann1"]["median_seconds"] <= 40
    capsys.readouterr()
    assert main(["campaign", "qc", str(tmp_path / "result.etdb.xml")]) == 0
    text = capsys.readouterr().out
    assert "blind: FAIL" in text and "ann1: PASS" in text and "late" in text


def test_results_equal_scoring_the_same_judgements_in_one_database(campaign, returned,
                                                                   tmp_path, capsys):
    files = [returned / f"{a}.etdb.xml" for a in ("blind", "ann1", "rand", "ann2")]
    rc, _, err = _collect(campaign, files, tmp_path / "r.etdb.xml", capsys)
    assert rc == 0, err
    result = load_database(tmp_path / "r.etdb.xml")
    # the same judgements straight into one copy of the database
    one = tmp_path / "one.etdb.xml"
    shutil.copy(campaign / "db.etdb.xml", one)
    db = load_database(one)
    where = {(s.text, t.text): (i, k) for i, s in enumerate(db.sources)
             for k, t in enumerate(s.targets)}
    rows = ["doc\tseg\tsystem\tclass\tvalue\tjudge\tseconds"]
    span_changes = []
    plans = assign(read_campaign(campaign / "c.etcampaign.json"))
    for a in ("ann1", "ann2", "rand", "blind"):
        b = returned / f"{a}.etdb.xml"
        bdb, info = open_bundle(b)
        for it in api.bundle_items(bdb):
            t = bdb.sources[it.source_index].targets[it.target_index]
            key = (it.source, it.candidate)
            if plans[a].slots[it.n - 1].kind != "real" or not t.scores:
                continue                            # a QC copy (the coordinator knows), or
            assert key in where                     # not judged
            i, k = where[key]
            s, real = db.sources[i], db.sources[i].targets[k]
            sc = t.scores[0]
            rows.append(f"{s.doc}\t{s.seg}\t{real.system}\tesa\t{sc.value:g}\t{a}\t"
                        f"{sc.extra_attrs['seconds']}")
            span_changes.append((key, a, i, k, t.span_annotations[0].errors))
    (tmp_path / "one.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    if not db.has_class("esa"):
        assert main(["classes", str(one), "--add-template", "esa"]) == 0
    api.import_judgements(one, tmp_path / "one.tsv")
    commit_span_changes(one, lambda d: [spans_change(d, i, k, a, e, protocol="esa")
                                        for _, a, i, k, e in span_changes])
    direct = load_database(one)

    def judgements(d: Database) -> list:
        return sorted((i, t.system, s.cls, s.value, s.judge, s.extra_attrs.get("seconds"))
                      for i, src in enumerate(d.sources) for t in src.targets
                      for s in t.scores if s.cls == "esa")

    def spans(d: Database) -> list:
        return sorted((i, t.system, a.judge, a.protocol, tuple(a.errors))
                      for i, src in enumerate(d.sources) for t in src.targets
                      for a in t.span_annotations)

    assert judgements(result) == judgements(direct) and len(judgements(result)) > 100
    assert spans(result) == spans(direct)

    def means(d: Database) -> dict:
        out: dict[str, list[float]] = {}
        for _, t in d.iter_candidates():
            v = t.value("esa")
            if v is not None:
                out.setdefault(t.system or "", []).append(v)
        return {k: sum(v) / len(v) for k, v in out.items()}

    assert means(result) == means(direct)
    assert means(result)["Alpha"] > means(result)["Delta"]


def test_a_bundle_given_twice_is_merged_once_with_a_warning(campaign, returned, tmp_path,
                                                            capsys):
    f = returned / "ann1.etdb.xml"
    copy = tmp_path / "copy-of-ann1.etdb.xml"
    shutil.copy(f, copy)
    rc, _, err = _collect(campaign, [f, copy], tmp_path / "r.etdb.xml", capsys)
    assert rc == 0 and f"{copy}: the same bundle as {f}" in err
    before = (tmp_path / "r.etdb.xml").read_bytes()
    rc, _, err = _collect(campaign, [f], tmp_path / "r.etdb.xml", capsys)
    assert rc == 0 and "already collected" in err and str(f) in err
    assert (tmp_path / "r.etdb.xml").read_bytes() == before


def test_bad_bundles_exit_2_naming_file_and_problem_and_nothing_is_lost(campaign, returned,
                                                                       tmp_path, capsys):
    out = tmp_path / "r.etdb.xml"
    assert _collect(campaign, [returned / "ann1.etdb.xml"], out, capsys)[0] == 0
    before = out.read_bytes()
    # tampered: a candidate edited
    tampered = tmp_path / "tampered.etdb.xml"
    db = load_database(returned / "rand.etdb.xml")
    cand = db.sources[4].targets[-1]
    text = (returned / "rand.etdb.xml").read_text(encoding="utf-8")
    tampered.write_text(text.replace(f"<t_sent>{cand.text}</t_sent>",
                                     f"<t_sent>{cand.text} extra</t_sent>", 1),
                        encoding="utf-8")
    rc, _, err = _collect(campaign, [returned / "blind.etdb.xml", tampered], out, capsys)
    assert rc == 2 and str(tampered) in err and "position 5" in err and "candidate" in err
    assert out.read_bytes() == before                       # blind's was not merged either
    # another campaign's bundle
    other_dir = tmp_path / "other"
    shutil.copy(campaign / "db.etdb.xml", tmp_path / "db.etdb.xml")
    assert main(["campaign", "create", str(tmp_path / "db.etdb.xml"), "--protocol", "esa",
                 "--annotators", "ann1,ann2", "-o", str(tmp_path / "o.etcampaign.json")]) == 0
    assert main(["campaign", "bundle", str(tmp_path / "o.etcampaign.json"), "-o",
                 str(other_dir)]) == 0
    rc, _, err = _collect(campaign, [other_dir / "ann1.etdb.xml"], out, capsys)
    assert rc == 2 and str(other_dir / "ann1.etdb.xml") in err and "campaign" in err
    # two different bundles of one annotator
    partial = tmp_path / "ann1-early.etdb.xml"
    shutil.copy(campaign / "bundles" / "ann1.etdb.xml", partial)
    rc, _, err = _collect(campaign, [returned / "ann1.etdb.xml", partial], out, capsys)
    assert rc == 2 and "second, different bundle of annotator 'ann1'" in err
    # a judgement by somebody else inside a bundle
    foreign = tmp_path / "foreign.etdb.xml"
    shutil.copy(campaign / "bundles" / "ann2.etdb.xml", foreign)
    b = load_database(foreign)
    api.judge(foreign, 0, b.sources[0].targets[-1].system or "", "esa", 50.0, judge="eve")
    rc, _, err = _collect(campaign, [foreign], out, capsys)
    assert rc == 2 and "'eve'" in err and "position 1" in err
    # the classes changed
    levels = tmp_path / "levels.etdb.xml"
    levels.write_text((campaign / "bundles" / "ann2.etdb.xml").read_text(encoding="utf-8")
                      .replace('maximum="100"', 'maximum="10"'), encoding="utf-8")
    rc, _, err = _collect(campaign, [levels], out, capsys)
    assert rc == 2 and "score classes" in err
    assert out.read_bytes() == before


def test_create_refuses_bad_input(campaign, tmp_path, capsys):
    base = ["campaign", "create", str(campaign / "db.etdb.xml"), "-o",
            str(tmp_path / "x.etcampaign.json")]
    for extra, needle in (
            (["--protocol", "esa", "--annotators", "a,b,a"], "named twice"),
            (["--protocol", "esa", "--annotators", "a", "--redundancy", "2"], "redundancy 2"),
            (["--protocol", "segranks", "--annotators", "a"], "cannot run as a campaign"),
            (["--protocol", "esa", "--annotators", "a", "--rank-size", "3"],
             "--rank-size is only used with --protocol ranking"),
            (["--protocol", "ranking", "--annotators", "a", "--rank-size", "1"],
             "at least 2 candidates"),
            (["--protocol", "ranking", "--annotators", "a", "--qc", "injected=0.1"],
             "injected is not supported"),
            (["--protocol", "sser", "--annotators", "a", "--qc", "injected=0.1"],
             "injected errors"),
            (["--protocol", "esa", "--annotators", "a", "--systems", "Nope"], "Nope"),
            (["--protocol", "esa", "--annotators", "a", "--qc", "bogus=1"], "bogus"),
            (["--protocol", "esa", "--annotators", "a", "--classes", "esa"], "--classes")):
        capsys.readouterr()
        assert main([*base, *extra]) == 2, extra
        assert needle in capsys.readouterr().err, extra
    assert not (tmp_path / "x.etcampaign.json").exists()


def test_edited_campaign_file_and_changed_database_are_refused(campaign, tmp_path, capsys):
    for f in ("db.etdb.xml", "c.etcampaign.json"):
        shutil.copy(campaign / f, tmp_path / f)
    c = tmp_path / "c.etcampaign.json"
    c.write_text(c.read_text(encoding="utf-8").replace('"batch": 20', '"batch": 21'),
                 encoding="utf-8")
    capsys.readouterr()
    assert main(["campaign", "bundle", str(c), "-o", str(tmp_path / "b")]) == 2
    assert "edited after it was made" in capsys.readouterr().err
    shutil.copy(campaign / "c.etcampaign.json", c)
    db = load_database(tmp_path / "db.etdb.xml")
    db.sources[3].targets[2].text += " changed"
    save_database(db, tmp_path / "db.etdb.xml")
    assert main(["campaign", "bundle", str(c), "-o", str(tmp_path / "b")]) == 2
    assert "changed since the campaign was made" in capsys.readouterr().err


def test_reference_based_protocol_shows_references(tmp_path, capsys):
    save_database(_database(), tmp_path / "db.etdb.xml")
    assert main(["campaign", "create", str(tmp_path / "db.etdb.xml"), "--protocol", "sser",
                 "--annotators", "a,b", "--qc", "bad-refs=0.2,repeats=0.1",
                 "-o", str(tmp_path / "s.etcampaign.json")]) == 0
    assert main(["campaign", "bundle", str(tmp_path / "s.etcampaign.json"), "-o",
                 str(tmp_path / "b")]) == 0
    db, info = open_bundle(tmp_path / "b" / "a.etdb.xml")
    assert [lv.name for lv in db.levels] == ["sser", "isReference"]
    assert all(len(db.references(s)) == 1 and s.targets[0].system == "reference-1"
               for s in db.sources)
    plan = assign(read_campaign(tmp_path / "s.etcampaign.json"))["a"]
    item = next(it for it in api.bundle_items(db) if plan.slots[it.n - 1].kind == "real")
    api.judge(tmp_path / "b" / "a.etdb.xml", item.source_index, item.system, "sser", 7.0,
              judge="a", seconds=3.0)
    db, _ = open_bundle(tmp_path / "b" / "a.etdb.xml")
    assert api.bundle_progress(db).done == 1
    assert main(["campaign", "collect", str(tmp_path / "s.etcampaign.json"),
                 str(tmp_path / "b" / "a.etdb.xml"), "-o", str(tmp_path / "r.etdb.xml")]) == 0
    r = load_database(tmp_path / "r.etdb.xml")
    got = [(s.value, s.judge) for _, t in r.iter_candidates() for s in t.scores
           if s.cls == "sser"]
    assert got == [(7.0, "a")]


def test_mqm_campaign_with_documents_spans_and_injected_errors(tmp_path, capsys):
    save_database(_database(), tmp_path / "db.etdb.xml")
    assert main(["campaign", "create", str(tmp_path / "db.etdb.xml"), "--protocol", "mqm",
                 "--annotators", "a,b,c", "--redundancy", "2", "--documents", "--batch", "6",
                 "--qc", "injected=0.3", "-o", str(tmp_path / "m.etcampaign.json")]) == 0
    assert main(["campaign", "bundle", str(tmp_path / "m.etcampaign.json"), "-o",
                 str(tmp_path / "b")]) == 0
    d = read_campaign(tmp_path / "m.etcampaign.json")
    plans = assign(d)
    order = {s.text: i for i, s in enumerate(_database().sources)}
    for a in "abc":
        path = tmp_path / "b" / f"{a}.etdb.xml"
        db, info = open_bundle(path)
        assert [lv.name for lv in db.levels] == ["isReference"] and not db.references(
            db.sources[0])
        # a document of a system: consecutive positions, in the database's order
        groups: dict[str, list[int]] = {}
        for k, s in enumerate(db.sources):
            groups.setdefault(s.doc or "", []).append(k)
        for ks in groups.values():
            assert ks == list(range(ks[0], ks[0] + len(ks)))
            assert [order[db.sources[k].text] for k in ks] == sorted(
                order[db.sources[k].text] for k in ks)
        # a careful annotator: one Minor error on every real item, the injected span marked
        # (a finds them, b marks the first word instead, c nothing at all)
        from evaltrans_qt.io.campaign_bundle import slot_texts
        texts = slot_texts(d, load_database(tmp_path / "db.etdb.xml"), plans[a])
        changes = []
        for it in api.bundle_items(db):
            slot, st = plans[a].slots[it.n - 1], texts[it.n - 1]
            if slot.kind == "injected" and a == "a":
                errs = [ErrorSpan("Major", "Accuracy/Mistranslation", *st.injected)]
            elif a == "c" and slot.kind == "injected":
                errs = []
            else:
                errs = [ErrorSpan("Minor", "Fluency", 0, 1)]
            changes.append((it.source_index, it.target_index, errs))
        commit_span_changes(path, lambda b, ch=changes, j=a: [
            spans_change(b, si, ti, j, e, seconds=12.0) for si, ti, e in ch])
    assert main(["campaign", "collect", str(tmp_path / "m.etcampaign.json"),
                 *(str(tmp_path / "b" / f"{a}.etdb.xml") for a in "cab"),
                 "-o", str(tmp_path / "r.etdb.xml")]) == 0
    r = load_database(tmp_path / "r.etdb.xml")
    anns = [(t.system, x.judge, x.errors) for _, t in r.iter_candidates()
            for x in t.span_annotations]
    assert len(anns) == 2 * len(d.items)                     # r = 2, real items only
    assert all(list(e) == [ErrorSpan("Minor", "Fluency", 0, 1)] for _, _, e in anns)
    capsys.readouterr()
    assert main(["campaign", "qc", str(tmp_path / "r.etdb.xml"), "--json"]) == 0
    rep = {a["annotator"]: a for a in json.loads(capsys.readouterr().out)["annotators"]}
    inj = {a: next(c for c in rep[a]["checks"] if c["name"] == "injected") for a in "abc"}
    assert inj["a"]["passed"] and inj["a"]["value"] == 1.0
    assert not inj["c"]["passed"] and inj["c"]["value"] == 0.0
    # b's span on the first character overlaps a swap at the start only
    assert 0.0 <= inj["b"]["value"] < 1.0
    assert [r for r in rep["c"]["reasons"]][0].startswith("injected")


def test_postedit_campaign_collects_post_edits(tmp_path, capsys):
    save_database(_database(), tmp_path / "db.etdb.xml")
    assert main(["campaign", "create", str(tmp_path / "db.etdb.xml"), "--protocol",
                 "postedit", "--annotators", "a", "--systems", "Beta",
                 "-o", str(tmp_path / "p.etcampaign.json")]) == 0
    assert main(["campaign", "bundle", str(tmp_path / "p.etcampaign.json"), "-o",
                 str(tmp_path / "b")]) == 0
    path = tmp_path / "b" / "a.etdb.xml"
    db, _ = open_bundle(path)
    it = api.bundle_items(db)[2]
    assert it.references and api.bundle_progress(db).text == "0 of 24, 1 batch left"
    assert main(["postedit", str(path), "--source", str(it.n), "--system", it.system,
                 "--judge", "a", "--text", "a fixed translation", "--seconds", "9"]) == 0
    db, _ = open_bundle(path)
    assert api.bundle_progress(db).text == "1 of 24, 1 batch left"
    assert main(["campaign", "collect", str(tmp_path / "p.etcampaign.json"), str(path),
                 "-o", str(tmp_path / "r.etdb.xml")]) == 0
    r = load_database(tmp_path / "r.etdb.xml")
    src = next(s for s in r.sources if s.text == it.source)
    t = next(t for t in src.targets if t.system == "Beta")
    assert [(p.text, p.judge, p.seconds) for p in t.postedits] == [
        ("a fixed translation", "a", 9.0)]


def test_unsaved_judgements_in_a_bundles_journal_are_collected(campaign, tmp_path, capsys):
    from evaltrans_qt.io.journal import Journal, ScoreChange, journal_path
    path = tmp_path / "ann1.etdb.xml"
    shutil.copy(campaign / "bundles" / "ann1.etdb.xml", path)
    db, _ = open_bundle(path)
    plan = assign(read_campaign(campaign / "c.etcampaign.json"))["ann1"]
    it = next(it for it in api.bundle_items(db) if plan.slots[it.n - 1].kind == "real")
    src = db.sources[it.source_index]
    jr = Journal(journal_path(path))           # what the application journals before saving
    jr.append(ScoreChange(source=src.text, target=it.candidate, system=it.system, cls="esa",
                          value=42.0, judge="ann1", doc=src.doc, seg=src.seg,
                          target_index=it.target_index))
    jr.close()
    rc, _, err = _collect(campaign, [path], tmp_path / "r.etdb.xml", capsys)
    assert rc == 0 and "1 unsaved judgement from the journal included" in err
    r = load_database(tmp_path / "r.etdb.xml")
    got = [(t.system, s.value, s.judge) for _, t in r.iter_candidates() for s in t.scores
           if s.cls == "esa"]
    assert len(got) == 1 and got[0][1:] == (42.0, "ann1")


def test_a_bundle_and_a_result_round_trip_byte_for_byte(campaign, returned, tmp_path,
                                                          capsys):
    """The application loads and saves a bundle: its extension survives unchanged."""
    for path in (campaign / "bundles" / "ann1.etdb.xml", returned / "blind.etdb.xml"):
        copy = tmp_path / path.name
        save_database(load_database(path), copy)
        assert copy.read_bytes() == path.read_bytes()
    rc, _, err = _collect(campaign, [returned / "ann1.etdb.xml"], tmp_path / "r.etdb.xml",
                          capsys)
    assert rc == 0, err
    save_database(load_database(tmp_path / "r.etdb.xml"), tmp_path / "r2.etdb.xml")
    assert (tmp_path / "r2.etdb.xml").read_bytes() == (tmp_path / "r.etdb.xml").read_bytes()


def test_a_result_whose_candidates_changed_is_not_merged_into(campaign, returned, tmp_path,
                                                              capsys):
    out = tmp_path / "r.etdb.xml"
    assert _collect(campaign, [returned / "ann1.etdb.xml"], out, capsys)[0] == 0
    d = read_campaign(campaign / "c.etcampaign.json")
    plan = assign(d)["blind"]
    si, system = d.items[plan.real_items[0]]
    r = load_database(out)
    t = next(t for t in r.sources[si].targets if t.system == system)
    t.text += " changed"
    save_database(r, out)
    before = out.read_bytes()
    rc, _, err = _collect(campaign, [returned / "blind.etdb.xml"], out, capsys)
    assert rc == 2 and f"source {si + 1}, system '{system}'" in err and "changed" in err
    assert out.read_bytes() == before


def test_create_never_overwrites_another_campaign(campaign, tmp_path, capsys):
    c = tmp_path / "c.etcampaign.json"
    shutil.copy(campaign / "c.etcampaign.json", c)
    before = c.read_bytes()
    capsys.readouterr()
    assert main(["campaign", "create", str(campaign / "db.etdb.xml"), "--protocol", "esa",
                 "--annotators", "x,y", "-o", str(c)]) == 2
    assert "holds another campaign" in capsys.readouterr().err and c.read_bytes() == before


def test_ranking_campaign_create_bundle_rank_collect_qc_agreement(tmp_path, capsys):
    """WMT relative ranking as a campaign: a unit is one source's candidates of k systems;
    two annotators rank by the systems' quality, a careless one at random; collect gives
    each screen as one ranking task, QC's repeats compare pairwise orders, agreement κ."""
    from evaltrans_qt.engine.campaign.assignment import REPEAT, units_of
    from evaltrans_qt.engine.human.ranking import add_ranking, rankings
    save_database(_database(), tmp_path / "db.etdb.xml")
    camp = tmp_path / "c.etcampaign.json"
    assert main(["campaign", "create", str(tmp_path / "db.etdb.xml"), "--protocol", "ranking",
                 "--annotators", "a,b,c", "--redundancy", "2", "--rank-size", "3",
                 "--qc", "repeats=0.25,bad-refs=0.25", "--seed", "4", "-o", str(camp)]) == 0
    d = read_campaign(camp)
    units = units_of(d)
    # every candidate in exactly one unit; a unit is one source's, 2..k candidates
    assert sorted(i for u in units for i in u) == list(range(len(d.items)))
    assert all(len({d.items[i][0] for i in u}) == 1 and 2 <= len(u) <= 3 for u in units)
    plans = assign(d)
    assert main(["campaign", "bundle", str(camp), "-o", str(tmp_path / "b")]) == 0
    again = tmp_path / "b2"
    assert main(["campaign", "bundle", str(camp), "-o", str(again)]) == 0
    rng = random.Random(9)
    for a in ("a", "b", "c"):
        path = tmp_path / "b" / f"{a}.etdb.xml"
        assert path.read_bytes() == (again / f"{a}.etdb.xml").read_bytes()   # deterministic
        text = path.read_text(encoding="utf-8")
        assert not any(s in text for s in QUALITY)                          # no system names
        db, info = open_bundle(path)
        assert info.items == len(db.sources) == len({s.unit for s in plans[a].slots})
        back = {v: k for k, v in plans[a].opaque.items()}
        for src in db.sources:
            cands = [k for k, t in enumerate(src.targets) if not db.is_reference(t)]
            assert 2 <= len(cands) <= 4                       # 3 + a BAD candidate
            # a BAD candidate (an id of no system) is the worst
            best_first = sorted(cands, key=lambda k: -QUALITY.get(
                back.get(src.targets[k].system or "", ""), -1.0))
            if a == "c":
                rng.shuffle(best_first)
            add_ranking(db, src, {k: r for r, k in enumerate(best_first, 1)}, a,
                        f"screen-{src.seg}", seconds=6.0)
        save_database(db, path)
    rc, out, err = _collect(tmp_path, [tmp_path / "b" / f"{a}.etdb.xml" for a in "cab"],
                            tmp_path / "res.etdb.xml", capsys)
    assert rc == 0, err
    r = load_database(tmp_path / "res.etdb.xml")
    got = rankings(r)
    for a in ("a", "b", "c"):        # each real screen one task; QC repeats never in results
        real_units = {s.unit for s in plans[a].slots if s.kind != REPEAT}
        assert len([x for x in got if x.judge == a]) == len(real_units)
    for x in got:
        if x.judge in ("a", "b"):
            order = sorted(x.ranks, key=lambda s: x.ranks[s])
            assert order == sorted(order, key=lambda s: -QUALITY[s])
    capsys.readouterr()
    assert main(["campaign", "qc", str(tmp_path / "res.etdb.xml"), "--json"]) == 0
    rep = {x["annotator"]: x for x in json.loads(capsys.readouterr().out)["annotators"]}
    rep_check = {a: next(c for c in rep[a]["checks"] if c["name"] == "repeats")
                 for a in ("a", "b", "c")}
    assert rep_check["a"]["value"] == rep_check["b"]["value"] == 1.0
    assert rep_check["a"]["passed"] and rep_check["b"]["passed"]
    assert rep_check["c"]["value"] < 1.0
    bad = {a: next(c for c in rep[a]["checks"] if c["name"] == "bad-refs") for a in "abc"}
    assert bad["a"]["value"] == bad["b"]["value"] == 1.0 and bad["a"]["passed"]
    assert bad["c"]["value"] < 1.0
    assert main(["campaign", "agreement", str(tmp_path / "res.etdb.xml"), "--json"]) == 0
    rank = json.loads(capsys.readouterr().out)["classes"][0]
    assert rank["name"] == "rank" and rank["level"] == "ordinal"
    pairs = {(p["a"], p["b"]): p for p in rank["pairs"]}
    assert pairs[("a", "b")]["kendall"] == 1.0 and pairs[("a", "c")]["kendall"] < 1.0
    assert rank["cohen"] is not None and rank["cohen"] < 1.0 and rank["alpha"] < 1.0


_FORKED = """
import sys
from pathlib import Path
from evaltrans_qt.engine.campaign.assignment import assign
from evaltrans_qt.engine.campaign.definition import CampaignError
from evaltrans_qt.io.campaign_collect import collect
from evaltrans_qt.io.campaign_file import read_campaign
from evaltrans_qt.io.etdb import load_database, save_database

c, tmp = Path(sys.argv[1]), Path(sys.argv[2])
files = [Path(f) for f in sys.argv[3:7]]
tampered = Path(sys.argv[7])
collect(c, files, tmp / "forked.etdb.xml", processes=2)
messages = []
for n in (1, 2):
    try:
        collect(c, [*files[:2], tampered, files[3]], tmp / f"t{n}.etdb.xml", processes=n)
        raise SystemExit("a tampered bundle was not refused")
    except CampaignError as exc:
        assert exc.path is not None and str(tampered) in str(exc), str(exc)
        messages.append(str(exc))
    assert not (tmp / f"t{n}.etdb.xml").exists()
assert messages[0] == messages[1] and "position 3" in messages[0], messages
# a result whose candidate (or source) at a judged item changed: refused the same way
d = read_campaign(c)
si, system = d.items[assign(d)["ann2"].real_items[0]]
for what in ("candidate", "source"):
    messages = []
    for n in (1, 2):
        out = tmp / f"{what}{n}.etdb.xml"
        collect(c, files[:1], out, processes=1)
        r = load_database(out)
        if what == "candidate":
            next(t for t in r.sources[si].targets if t.system == system).text += " x"
        else:
            r.sources[si].text += " x"
        save_database(r, out)
        before = out.read_bytes()
        try:
            collect(c, files[3:], out, processes=n)
            raise SystemExit("a changed result was merged into")
        except CampaignError as exc:
            messages.append(str(exc))
        assert out.read_bytes() == before
    assert messages[0] == messages[1], messages
    assert f"source {si + 1}" in messages[0] and "changed" in messages[0], messages
print("ok")
"""


def test_bundles_read_in_forked_processes_give_the_same_result(campaign, returned, tmp_path):
    """The command line reads the bundles in forked processes (one per core: it is
    single-threaded); the result is byte for byte the one of reading them here, and a
    refused bundle or a changed result is refused the same way. The forks happen in
    fresh interpreters: this one may hold a QApplication and threads."""
    import os
    import subprocess
    import sys

    from evaltrans_qt.io.campaign_collect import collect, reader_processes

    files = [returned / f"{a}.etdb.xml" for a in ("rand", "ann1", "blind", "ann2")]
    c = campaign / "c.etcampaign.json"
    collect(c, files, tmp_path / "serial.etdb.xml", processes=1)
    serial = (tmp_path / "serial.etdb.xml").read_bytes()
    code = ("import sys; from evaltrans_qt.io.campaign_collect import reader_processes;"
            "print(reader_processes(4)); from evaltrans_qt.cli.main import main;"
            "sys.exit(main(sys.argv[1:]))")
    run = subprocess.run([sys.executable, "-c", code, "campaign", "collect", str(c),
                          *map(str, files), "-o", str(tmp_path / "cli.etdb.xml")],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    cores = len(os.sched_getaffinity(0))
    assert int(run.stdout.split()[0]) == (min(4, cores) if cores > 1 else 1)
    assert reader_processes(1) == 1
    assert (tmp_path / "cli.etdb.xml").read_bytes() == serial
    tampered = tmp_path / "tampered.etdb.xml"
    tampered.write_text((returned / "ann2.etdb.xml").read_text(encoding="utf-8")
                        .replace('seg="3"', 'seg="999"', 1), encoding="utf-8")
    run = subprocess.run([sys.executable, "-c", _FORKED, str(c), str(tmp_path),
                          *map(str, files), str(tampered)],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:] + run.stdout
    assert run.stdout.split() == ["ok"]
    assert (tmp_path / "forked.etdb.xml").read_bytes() == serial
