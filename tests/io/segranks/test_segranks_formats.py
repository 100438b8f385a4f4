"""SegRanks files: trees, alignments, the extracted-segments TSV and the JSON
export (Macháček appendix B), the <segranks> database element, WMT judgement CSV,
ranking journal entries, eflomal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.human.ranking import database_rank_scores, rankings
from evaltrans_qt.engine.human.segranks.extract import extract_database
from evaltrans_qt.engine.human.segranks.model import sentence_segments, source_tokens
from evaltrans_qt.engine.human.segranks.sessions import record_segment_ranking
from evaltrans_qt.errors import InputFormatError, OptionError
from evaltrans_qt.io.etdb import dumps, load_database, loads
from evaltrans_qt.io.segranks import alignments, formats, trees
from evaltrans_qt.io.segranks.wmt_csv import read_judgements

EXAMPLE = Path(__file__).resolve().parents[3] / "resources" / "segranks_example"


def example_db() -> Database:
    db = load_database(EXAMPLE / "campaign.etdb.xml")
    toks = [source_tokens(s) for s in db.sources]
    tr = trees.read_ptb(EXAMPLE / "sources.ptb", toks)
    al = {s: (alignments.read_pharaoh(EXAMPLE / f"{s}.pharaoh"), f"{s}.pharaoh")
          for s in ("sysA", "sysB", "sysC")}
    extract_database(db, tr, al)
    return db


# ------------------------------------------------------------------ trees
def test_ptb_escapes_quotes_root_and_traces(tmp_path):
    p = tmp_path / "t.ptb"
    p.write_text("( (S (`` ``) (NP (-NONE- *T*-1)) (NP (NNP Kim)) (VP (VBD left) "
                 "(-LRB- -LRB-) (NN a\\/b) (-RRB- -RRB-)) ('' '')))\n"
                 "(ROOT\n  (FRAG (NN yes)))\n")
    got = trees.read_ptb(p, [["“", "Kim", "left", "(", "a/b", ")", "”"], ["yes"]])
    assert got[0].leaves == tuple(range(7)) and got[1].leaves == (0,)


@pytest.mark.parametrize("text,sources,msg,line", [
    ("(S (NN a)\n (NN b))\n(S\n (NN c) (NN x))\n", [["a", "b"], ["c", "d"]],
     "word 2 is 'x' but token 2 of source 2 is 'd'", 4),        # the line of the word
    ("(S (NN a))\n", [["a"], ["b"]], "1 tree(s) for 2 source", 1),
    ("(S (NN a))\n(S (NN b))\n", [["a"]], "database has only 1", 2),
    ("(S (NN a) (NN b))\n", [["a"]], "2 word(s) but source 1 has 1", 1),
    ("(S (NN a)\n", [["a"]], "not closed", 1),
    ("a (S (NN a))\n", [["a"]], "outside any tree", 1),
])
def test_ptb_mismatch_names_file_and_line(tmp_path, text, sources, msg, line):
    p = tmp_path / "t.ptb"
    p.write_text(text)
    with pytest.raises(InputFormatError) as e:
        trees.read_ptb(p, sources)
    assert msg in e.value.problem and e.value.line == line and str(p) in str(e.value)


CONLLU = """# sent_id = 1
# text = Il vit au bord du lac
1\tIl\til\tPRON\t_\t_\t2\tnsubj\t_\t_
2\tvit\tvivre\tVERB\t_\t_\t0\troot\t_\t_
3-4\tau\t_\t_\t_\t_\t_\t_\t_\t_
3\tà\tà\tADP\t_\t_\t5\tcase\t_\t_
4\tle\tle\tDET\t_\t_\t5\tdet\t_\t_
5\tbord\tbord\tNOUN\t_\t_\t2\tobl\t_\t_
5.1\tvu\t_\t_\t_\t_\t_\t_\t_\t_
6-7\tdu\t_\t_\t_\t_\t_\t_\t_\t_
6\tde\tde\tADP\t_\t_\t8\tcase\t_\t_
7\tle\tle\tDET\t_\t_\t8\tdet\t_\t_
8\tlac\tlac\tNOUN\t_\t_\t5\tnmod\t_\t_

"""


def test_conllu_multiword_tokens_and_yields(tmp_path):
    from evaltrans_qt.engine.human.segranks.tree import extract_segments
    p = tmp_path / "t.conllu"
    p.write_text(CONLLU, encoding="utf-8")
    (tree,) = trees.read_conllu(p, [["Il", "vit", "au", "bord", "du", "lac"]])
    assert tree.leaves == tuple(range(6))
    # 'vit' (6 tokens): 'Il' (1) too short; 'au bord du lac' = tokens 2..5 (the multiword
    # tokens count once)
    assert extract_segments(tree, 2, 4) == [(2, 3, 4, 5)]
    assert extract_segments(tree, 2, 3) == [(4, 5)]          # 'du lac'; 'vit' uncovered


def test_conllu_cycle_and_mismatch(tmp_path):
    p = tmp_path / "t.conllu"
    p.write_text("1\ta\t_\t_\t_\t_\t2\tx\t_\t_\n2\tb\t_\t_\t_\t_\t1\tx\t_\t_\n\n")
    with pytest.raises(InputFormatError, match="cycle"):
        trees.read_conllu(p, [["a", "b"]])
    with pytest.raises(InputFormatError, match="token 2 of source 1 is 'c'"):
        trees.read_conllu(p, [["a", "c"]])


def test_pharaoh_bad_link(tmp_path):
    p = tmp_path / "a.pharaoh"
    p.write_text("0-0 1-1\n0-0 1?2\n")
    with pytest.raises(InputFormatError) as e:
        alignments.read_pharaoh(p)
    assert e.value.line == 2 and "1?2" in e.value.problem


# ------------------------------------------------------------------ the example campaign
def test_example_campaign_extraction():
    db = example_db()
    data = [sentence_segments(s) for s in db.sources]
    assert [len(d.segments) for d in data] == [2, 1, 1, 2, 1]
    s2 = data[1].segments[0]
    assert s2.text == "that the government would lower taxes"
    # 'die' between 'Regierung' and 'Steuern' is unaligned in sysA and stays in the span
    assert s2.candidates[0].text == "dass die Regierung die Steuern senken würde"
    assert s2.candidates[0].systems == ["sysA", "sysC"]


# ------------------------------------------------------------------ TSV
def test_tsv_round_trip(tmp_path):
    db = example_db()
    out = tmp_path / "x.segments"
    n = formats.write_segments(db, out, systems=True)
    rows = out.read_text(encoding="utf-8").splitlines()
    assert n == len(rows) == 17 and all(len(r.split("\t")) == 7 for r in rows)
    assert rows[0].split("\t")[:6] == [
        "1", "The new bridge over the river will open next spring .",
        "Die neue Brücke über den Fluss wird im nächsten Frühjahr eröffnet .",
        "The new bridge over the river", "Die neue Brücke über den Fluss", "0 1 2 3 4 5"]
    fresh = load_database(EXAMPLE / "campaign.etdb.xml")
    assert formats.read_segments(fresh, out) == 17
    for a, b in zip(db.sources, fresh.sources):
        assert sentence_segments(a) == sentence_segments(b)
    assert formats.read_segments(fresh, out) == 17              # again: nothing changes
    assert sentence_segments(fresh.sources[0]) == sentence_segments(db.sources[0])
    six = tmp_path / "six.segments"
    formats.write_segments(db, six)
    assert "\t".join(rows[0].split("\t")[:6]) == six.read_text(encoding="utf-8").splitlines()[0]
    plain = load_database(EXAMPLE / "campaign.etdb.xml")
    formats.read_segments(plain, six)
    assert sentence_segments(plain.sources[0]).segments[0].candidates[0].systems == []


@pytest.mark.parametrize("row,msg", [
    ("9\ta\tb\tc\td\t0", "sentence ID 9 is not a source"),
    ("1\tThe new bridge\tx\tThe new\td\t0 1", "field 2 is not source 1"),
    ("1\tThe new bridge over the river will open next spring .\tx\tThe old\td\t0 1",
     "is not the words"),
    ("1\tThe new bridge over the river will open next spring .\tx\tThe new\td\t1 0",
     "increasing"),
    ("1\ta\tb", "3 tab-separated field"),
])
def test_tsv_bad_rows(tmp_path, row, msg):
    db = load_database(EXAMPLE / "campaign.etdb.xml")
    p = tmp_path / "bad.segments"
    p.write_text("1\tThe new bridge over the river will open next spring .\tr\tThe new bridge"
                 "\tDie neue Brücke\t0 1 2\n" + row + "\n", encoding="utf-8")
    with pytest.raises(InputFormatError) as e:
        formats.read_segments(db, p)
    assert msg in e.value.problem and e.value.line == 2
    assert all(sentence_segments(s) is None for s in db.sources)


# ------------------------------------------------------------------ JSON and <segranks>
def test_json_and_database_round_trip(tmp_path):
    db = example_db()
    record_segment_ranking(db, 0, {0: [1, 2], 1: [1, 3, 2]}, "anna", seconds=41.5, task="t1")
    record_segment_ranking(db, 2, {0: [1, 2, 4]}, "ben", task="t2")
    back = loads(dumps(db))
    for a, b in zip(db.sources, back.sources):
        assert sentence_segments(a) == sentence_segments(b)
    assert dumps(back) == dumps(db)
    assert database_rank_scores(back).to_dict() == database_rank_scores(db).to_dict()
    out = tmp_path / "ranks.json"
    assert formats.write_ranks_json(db, out) == 3
    obj = json.loads(out.read_text(encoding="utf-8"))
    assert obj["3,Writing books saved me ."] == [{
        "Das Schreiben von Büchern hat mich gerettet .": 1,
        "Bücher schreiben rettete mich .": 2, "Schreiben Bücher gespeichert mich .": 4}]
    assert obj["2,that the government would lower taxes"] == []
    fresh = example_db()
    assert formats.read_ranks_json(fresh, out, judge="anna") == 2
    r0 = sentence_segments(fresh.sources[0]).rankings
    assert [(r.judge, r.task, r.ranks) for r in r0] == [("anna", "json-1", {0: (1, 2), 1: (1, 3, 2)})]
    formats.read_ranks_json(fresh, out, judge="anna")           # again: replaced, not added
    assert len(sentence_segments(fresh.sources[0]).rankings) == 1


def test_appendix_b_json_into_a_database_without_segments(tmp_path):
    db = load_database(EXAMPLE / "campaign.etdb.xml")
    p = tmp_path / "b.json"
    p.write_text(json.dumps({"3,Writing books saved me .": [{
        "Knihy psaní uložily mě .": 5, "Psaní knih mě zachránil .": 1,
        "Psaní knihy mě zachránil .": 2, "Písemné knihy mě zachránily .": 5}]},
        ensure_ascii=False), encoding="utf-8")
    assert formats.read_ranks_json(db, p) == 1
    seg = sentence_segments(db.sources[2]).segments[0]
    assert seg.words == (0, 1, 2, 3, 4) and len(seg.candidates) == 4
    assert sentence_segments(db.sources[2]).rankings[0].ranks == {0: (5, 1, 2, 5)}


@pytest.mark.parametrize("obj,msg", [
    ({"3,Writing books saved me .": [{"a": 1, "b": 4}]}, "from 1 to 3"),
    ({"3,nothing like it": [{"a": 1}]}, "is not in source 3"),
    ({"99,x": []}, "sentence ID 99"),
    ({"nocomma": []}, "sentence ID,source segment"),
    ({"3, ": [{"a": 1}]}, "names no source segment"),   # found by the deep fuzz run
])
def test_bad_json(tmp_path, obj, msg):
    db = load_database(EXAMPLE / "campaign.etdb.xml")
    p = tmp_path / "b.json"
    p.write_text("{\n" + ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in obj.items())
                 + "\n}\n")
    with pytest.raises(InputFormatError) as e:
        formats.read_ranks_json(db, p)
    assert msg in e.value.problem and e.value.line == 2
    assert all(sentence_segments(s) is None for s in db.sources)


def test_bad_segranks_element_names_line():
    data = dumps(example_db()).decode()
    bad = data.replace('<segment words="0 1 2" text="At each station">',
                       '<segment words="0 1 70" text="At each station">')
    with pytest.raises(InputFormatError, match="increasing token numbers") as e:
        loads(bad.encode())
    assert e.value.line == bad[:bad.index('words="0 1 70"')].count("\n") + 1
    db = example_db()
    record_segment_ranking(db, 0, {0: [1, 2], 1: [1, 3, 2]}, "anna", task="t1")
    data = dumps(db).decode().replace('<ranks segment="2">1 3 2</ranks>',
                                      '<ranks segment="2">1 9 2</ranks>')
    with pytest.raises(InputFormatError, match="from 1 to 4"):
        loads(data.encode())


# ------------------------------------------------------------------ WMT CSV
HEADER = ("srclang,trglang,srcIndex,documentId,segmentId,judgeId,system1Number,system1Id,"
          "system2Number,system2Id,system3Number,system3Id,system4Number,system4Id,"
          "system5Number,system5Id,system1rank,system2rank,system3rank,system4rank,system5rank")


def test_wmt_csv_import(tmp_path):
    db = load_database(EXAMPLE / "campaign.etdb.xml")
    p = tmp_path / "j.csv"
    p.write_text(HEADER + "\n"
                 "English,German,1,-1,1,judge7,1,newstest2013.en-de.sysA.2724,2,sysB,3,sysC,"
                 "-1,,-1,,1,3,2,-1,-1\n"
                 "English,German,4,-1,4,judge8,1,sysC,2,sysB,-1,,-1,,-1,,2,2,-1,-1,-1\n")
    assert read_judgements(db, p) == 2
    rk = rankings(db)
    assert [(r.source, r.judge, dict(r.ranks)) for r in rk] == [
        (0, "judge7", {"sysA": 1.0, "sysB": 3.0, "sysC": 2.0}),
        (3, "judge8", {"sysB": 2.0, "sysC": 2.0})]
    assert database_rank_scores(db, "sentences").row("sysA").ratio == 1.0


@pytest.mark.parametrize("row,msg", [
    ("English,German,1,-1,1,j,1,sysA,2,Google,-1,,-1,,-1,,1,2,-1,-1,-1", "'Google' is not a system"),
    ("English,German,77,-1,77,j,1,sysA,2,sysB,-1,,-1,,-1,,1,2,-1,-1,-1", "srcIndex '77'"),
    ("English,Czech,1,-1,1,j,1,sysA,2,sysB,-1,,-1,,-1,,1,2,-1,-1,-1", "--language-pair"),
    ("English,German,1,-1,1,j,1,sysA,2,sysB,-1,,-1,,-1,,1,x,-1,-1,-1", "system2rank 'x'"),
])
def test_wmt_csv_bad_rows(tmp_path, row, msg):
    db = load_database(EXAMPLE / "campaign.etdb.xml")
    p = tmp_path / "j.csv"
    p.write_text(HEADER + "\nEnglish,German,2,-1,2,j,1,sysA,2,sysB,-1,,-1,,-1,,1,2,-1,-1,-1\n"
                 + row + "\n")
    with pytest.raises(InputFormatError) as e:
        read_judgements(db, p)
    assert msg in e.value.problem and e.value.line == 3
    assert rankings(db) == [] and not db.has_class("rank")


# ------------------------------------------------------------------ journal
def test_ranking_journal_replay_and_undo(tmp_path):
    from evaltrans_qt.io.journal import Journal, replay
    from evaltrans_qt.io.segranks.changes import (
        apply_ranking_change,
        segment_ranking_change,
        sentence_ranking_change,
    )
    db = example_db()
    j = Journal(tmp_path / "x.journal")
    ch = j.append(segment_ranking_change(db, 0, "anna", {0: [1, 2], 1: [2, 1, 3]}, "t1",
                                         seconds=12.0))
    undo = apply_ranking_change(db, ch)
    ch2 = j.append(sentence_ranking_change(db, 1, "anna", {1: 1, 2: 2, 3: 2}, "w1", seconds=3.0))
    undo2 = apply_ranking_change(db, ch2)
    j.close()
    fresh = example_db()                                    # the crash: replay the journal
    rep = replay(fresh, Journal(tmp_path / "x.journal").entries())
    assert len(rep.applied) == 2 and not rep.missing and not rep.rejected
    assert sentence_segments(fresh.sources[0]) == sentence_segments(db.sources[0])
    assert [dict(r.ranks) for r in rankings(fresh)] == [{"sysA": 1.0, "sysB": 2.0, "sysC": 2.0}]
    assert [s.extra_attrs.get("seconds") for s in fresh.sources[1].targets[1].scores] == ["3.0"]
    for u in undo + undo2:
        apply_ranking_change(db, u)
    assert sentence_segments(db.sources[0]).rankings == [] and rankings(db) == []


# ------------------------------------------------------------------ eflomal
def test_eflomal_on_a_small_set():
    pytest.importorskip("eflomal")
    words = "the a house dog cat small big sees runs old".split()
    import random
    rng = random.Random(3)
    src = [[rng.choice(words) for _ in range(rng.randint(4, 8))] for _ in range(300)]
    tgt = [[w.upper() for w in s] for s in src]               # a word-for-word "translation"
    links = alignments.eflomal_align(src, tgt)
    diag = sum(i == j for ln in links for i, j in ln)
    total = sum(len(s) for s in src)
    assert diag / total > 0.9
    assert all(0 <= i < len(s) and 0 <= j < len(t)
               for ln, s, t in zip(links, src, tgt) for i, j in ln)


def test_eflomal_missing_names_the_extra(monkeypatch):
    import builtins
    real = builtins.__import__

    def fake(name, *a, **k):
        if name == "eflomal":
            raise ImportError("no eflomal")
        return real(name, *a, **k)
    monkeypatch.setattr(builtins, "__import__", fake)
    with pytest.raises(OptionError, match=r"evaltrans_qt\[align\]"):
        alignments.eflomal_align([["a"]], [["b"]])


# ------------------------------------------------------------------ report
def test_report_ranking_section():
    from lxml import etree

    from evaltrans_qt.engine.human.ranking import system_rank_values
    from evaltrans_qt.engine.human.segranks.sessions import record_sentence_ranking
    from evaltrans_qt.engine.options import EvalOptions
    from evaltrans_qt.engine.run.driver import evaluate
    from evaltrans_qt.io.report import build_report, loads_report
    db = example_db()
    record_segment_ranking(db, 0, {0: [1, 2], 1: [1, 3, 2]}, "anna", task="t1")
    record_sentence_ranking(db, 1, {1: 2, 2: 1, 3: 3}, "anna", task="w1")
    run = evaluate(db, EvalOptions(), ["wer"])
    data = build_report(run, "sysB", ranking=system_rank_values(db, "sysB"), date="x",
                        author="x")
    ranks = {r.get("level"): r for r in etree.fromstring(data).iter("ranks")}
    seg, sen = ranks["segments"], ranks["sentences"]
    # segments: seg 1 A=B (1) > C (2); seg 2 A (1) > C (2) > B (3) -> B: 1 win, 2 losses, 1 tie
    assert (seg.get("wins"), seg.get("losses"), seg.get("ties")) == ("1", "2", "1")
    assert float(seg.findtext("ratio-of-wins")) == pytest.approx(1 / 3)
    assert (sen.get("wins"), sen.get("losses"), sen.get("rankings")) == ("2", "0", "1")
    assert float(sen.findtext("expected-wins")) == 1.0
    loads_report(data)                                   # the reader still opens it
