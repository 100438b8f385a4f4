"""Bad input names its file and line: one bad input per reader, through the command line;
the last line on stderr is the one-line ``evaltrans: error:`` message and says
``FILE:LINE:`` of the offending line."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from evaltrans_qt.cli.main import main


def _w(path: Path, text: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return str(path)


def _text_db(d: Path) -> str:
    src = _w(d / "src.txt", "one\ntwo\nthree\n")
    ref = _w(d / "ref.txt", "eins\nzwei\ndrei\n")
    hyp = _w(d / "hyp.txt", "ein\nzwei\ndrei\n")
    db = str(d / "db.etdb.xml")
    assert main(["import", "text", "--source", src, "--reference", ref, "--system",
                 f"A={hyp}", "-o", db]) == 0
    return db


def _etdb(d: Path) -> tuple[list[str], str, int]:
    bad = _w(d / "bad.etdb.xml", "<database>\n<source>\n<tgt>x</src>\n</database>\n")
    return ["info", bad], bad, 3


def _aachen(d: Path) -> tuple[list[str], str, int]:
    f = _w(d / "a.txt", "SOURCE one\nTARGET 5 ein\nSOURCE two\nTARGET x7 zwei\n")
    return ["import", "aachen", f, "-o", str(d / "o.etdb.xml")], f, 4


def _wmt_scores(d: Path) -> tuple[list[str], str, int]:
    _text_db(d)
    (d / "wmt").mkdir()
    for name, target in (("src.txt", "t.src.en"), ("ref.txt", "t.ref.A.de"),
                         ("hyp.txt", "t.hyp.A.de")):
        shutil.copy(d / name, d / "wmt" / target)
    f = _w(d / "wmt.tsv", "A\t1\t0.5\nA\t2\tzz\n")
    return ["import", "wmt", str(d / "wmt"), "--scores", f, "-o", str(d / "o.etdb.xml")], f, 2


def _scores_tsv(d: Path) -> tuple[list[str], str, int]:
    db = _text_db(d)
    f = _w(d / "s.tsv", "A\t1\t0.5\nA\t2\tabc\n")
    return ["import", "scores", "--database", db, "--format", "tsv", f], f, 2


def _scores_jsonl(d: Path) -> tuple[list[str], str, int]:
    db = _text_db(d)
    f = _w(d / "s.jsonl", '{"system": "A", "segment": 1, "score": 0.5}\n'
                          '{"system": "A", "segment": 2, "score": 1e999}\n')
    return ["import", "scores", "--database", db, "--format", "jsonl", f], f, 2


def _judgements(d: Path) -> tuple[list[str], str, int]:
    db = _text_db(d)
    f = _w(d / "j.tsv", "system\tline\tclass\tvalue\tjudge\nA\t1\tadequacy\t3\tj1\n")
    return ["import", "judgements", "--database", db, f], f, 2


def _mqm(d: Path) -> tuple[list[str], str, int]:
    head = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\n"
    f = _w(d / "m.tsv", head + "A\td\t1\t1\tr1\tone\tein\tAccuracy\tMajor\n"
                              "A\td\t1\t1\tr1\ttwo\tzwei\tAccuracy\tMajor\n")
    return ["import", "mqm", f, "-o", str(d / "o.etdb.xml")], f, 3


def _sgml(d: Path) -> tuple[list[str], str, int]:
    f = _w(d / "s.sgm", '<srcset setid="t" srclang="en">\n<doc docid="d" sysid="s">\n'
                        '<seg id="1">one</seg>\n<seg id="1">two</seg>\n</doc>\n</srcset>\n')
    return ["import", "sgml", "--source", f, "-o", str(d / "o.etdb.xml")], f, 4


_XML = ('<dataset id="x">\n<collection id="c">\n<doc id="d" origlang="en">\n'
        '<src lang="en"><p>\n<seg id="1">{0}</seg>\n<seg id="2">{1}</seg>\n</p></src>\n'
        '</doc>\n</collection>\n</dataset>\n')


def _wmtxml(d: Path) -> tuple[list[str], str, int]:
    f = _w(d / "w.xml", _XML.format("one", "two").replace('id="2"', 'id="1"'))
    return ["import", "wmtxml", f, "-o", str(d / "o.etdb.xml")], f, 6


def _wmtxml_append(d: Path) -> tuple[list[str], str, int]:
    """Appending a test set whose segment differs from the database's names that <seg>."""
    out = str(d / "o.etdb.xml")
    assert main(["import", "wmtxml", _w(d / "a.xml", _XML.format("one", "two")), "-o", out]) == 0
    f = _w(d / "b.xml", _XML.format("one", "another two"))
    return ["import", "wmtxml", f, "-o", out, "--append"], f, 6


def _mtme_dir(root: Path, score: str) -> str:
    _w(root / "sources" / "en-de.txt", "one\ntwo\n")
    _w(root / "references" / "en-de.refA.txt", "eins\nzwei\n")
    _w(root / "system-outputs" / "en-de" / "S.txt", "ein\nzwo\n")
    _w(root / "human-scores" / "en-de.mqm.seg.score", f"S\t-1\nS\t{score}\n")
    return str(root)


def _mtme_unknown_system(d: Path) -> tuple[list[str], str, int]:
    root = _mtme_dir(d / "mtme", "-2")
    f = _w(d / "mtme" / "human-scores" / "en-de.mqm.seg.score", "S\t-1\nT\t-2\n")
    return ["import", "mtme", root, "--lp", "en-de", "-o", str(d / "o.etdb.xml")], f, 2


def _mtme_append_out_of_range(d: Path) -> tuple[list[str], str, int]:
    """A human score outside the class the database already has names its line."""
    out = str(d / "o.etdb.xml")
    assert main(["import", "mtme", _mtme_dir(d / "a", "-2"), "--lp", "en-de", "-o", out]) == 0
    root = _mtme_dir(d / "b", "1e300")
    f = str(Path(root) / "human-scores" / "en-de.mqm.seg.score")
    return ["import", "mtme", root, "--lp", "en-de", "-o", out, "--append"], f, 2


def _external_metrics(d: Path) -> tuple[list[str], str, int]:
    """A database whose stored external-metric scores name a source it lacks: the line of
    their <segments> element."""
    db = _text_db(d)
    f = str(d / "ext.etdb.xml")
    assert main(["import", "scores", "--database", db, "--format", "tsv", "--name", "M",
                 _w(d / "m.tsv", "A\t1\t0.5\nA\t2\t0.25\n"), "-o", f]) == 0
    text = Path(f).read_text(encoding="utf-8")
    assert "\t2\t0.25" in text
    Path(f).write_text(text.replace("\t2\t0.25", "\t9\t0.25"), encoding="utf-8")
    line = next(no for no, row in enumerate(text.splitlines(), 1) if "<segments" in row)
    return ["info", f], f, line


def _mtme_short(d: Path) -> tuple[list[str], str, int]:
    """Too few segment scores for a system: the line of its last one."""
    root = _mtme_dir(d / "mtme", "-2")
    f = _w(d / "mtme" / "human-scores" / "en-de.mqm.seg.score", "S\t-1\n")
    return ["import", "mtme", root, "--lp", "en-de", "-o", str(d / "o.etdb.xml")], f, 1


def _scores_mtme_short(d: Path) -> tuple[list[str], str, int]:
    db = _text_db(d)
    f = _w(d / "M-refA.seg.score", "A\t0.5\nA\t0.25\n")
    return ["import", "scores", "--database", db, "--format", "mtme", f], f, 2


def _segranks_tsv(d: Path) -> tuple[list[str], str, int]:
    db = _text_db(d)
    f = _w(d / "x.segments", "1\tone\teins\tone\tein\t0\n1\tzz\tqq\n")
    return ["segranks", "import", "--database", db, f], f, 2


CASES: dict[str, Callable[[Path], tuple[list[str], str, int]]] = {
    "etdb": _etdb, "aachen": _aachen, "wmt-scores": _wmt_scores, "scores-tsv": _scores_tsv,
    "scores-jsonl": _scores_jsonl, "judgements": _judgements, "mqm": _mqm, "sgml": _sgml,
    "wmtxml": _wmtxml, "wmtxml-append": _wmtxml_append, "mtme": _mtme_unknown_system,
    "mtme-append": _mtme_append_out_of_range, "external-metrics": _external_metrics,
    "mtme-short": _mtme_short, "scores-mtme-short": _scores_mtme_short,
    "segranks-tsv": _segranks_tsv,
}


@pytest.mark.parametrize("reader", list(CASES))
def test_bad_input_names_file_and_line(reader, tmp_path, capsys):
    argv, path, line = CASES[reader](tmp_path)
    capsys.readouterr()
    assert main(argv) == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.startswith(f"evaltrans: error: {path}:{line}:"), last
