"""Every example of README.md and docs/*.md runs, in the environment the text states.

* Every ``evaltrans`` command line of a ``sh`` block is parsed by the real parser (its
  options exist, its choices are valid), ``[...]`` alternatives and ``...`` placeholders
  aside.
* The README's command-line tour and SegRanks walk-through run as written, in order, on
  small stand-ins for the files they name (the WMT21 folder ``$D`` becomes a two-segment
  WMT folder with MQM scores; ``$E`` is the bundled campaign; ``wmt13-judgements.csv`` a
  WMT13 judgement CSV over a WMT13-named test set in ``wmt.etdb.xml``): exit code 0 each.
  The ``wmt14-tables`` example runs on two WMT14-style language pairs (a WMT folder each,
  ranked by a WMT14 judgement CSV), the cluster example against a Dask ``LocalCluster``
  started in the test (its address for ``tcp://HOST:8786``; the ``[cluster]`` extra).
* The ``python`` blocks import only what a plain install has (the dependencies of
  pyproject.toml and the standard library) unless the text before the block names the
  extra that brings the module, and docs/api.md's and the README's blocks run in a
  subprocess where every extra's modules are unimportable (they also run, with the test
  environment, in tests/test_api.py).
"""

from __future__ import annotations

import re
import shlex
import shutil
import sys
from pathlib import Path

import pytest

from evaltrans_qt.cli.main import build_parser, main
from evaltrans_qt.io.etdb import demo_database_path

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"```(\w*)\n(.*?)```", re.S)



def _blocks(kind: str) -> list[tuple[Path, str, int]]:
    """(file, code, line of the block) of every ``kind`` block."""
    out = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for m in BLOCK.finditer(text):
            if m.group(1) == kind:
                out.append((doc, m.group(2), text.count("\n", 0, m.start()) + 1))
    return out


def _command_lines(code: str) -> list[str]:
    """The lines of a shell block, continuations joined, comments and blanks dropped."""
    joined = re.sub(r"\\\n\s*", " ", code)
    lines = []
    for line in joined.splitlines():
        for part in line.split("&&"):
            words = shlex.split(part, comments=True)
            if words:
                lines.append(shlex.join(words))
    return lines


def _evaltrans_lines() -> list[tuple[str, str]]:
    out = []
    for doc, code, line in _blocks("sh"):
        for cmd in _command_lines(code):
            if cmd.startswith("evaltrans "):
                out.append((f"{doc.name}:{line}", cmd))
    return out


def _without_metasyntax(argv: list[str]) -> list[str]:
    """``[--segments|--sentences]``-style alternatives and ``...`` placeholders left out."""
    text = " ".join(argv)
    text = re.sub(r"\[[^\]]*\]", " ", text)
    return [w for w in text.split() if w not in ("...", "…")]


LINES = _evaltrans_lines()


def test_the_documents_have_command_examples():
    assert len(LINES) >= 25


@pytest.mark.parametrize("where,line", LINES, ids=[w for w, _ in LINES])
def test_every_command_line_parses(where, line, capsys):
    argv = _without_metasyntax(shlex.split(line)[1:])
    parser = build_parser(argv[0])
    try:
        args = parser.parse_args(argv)
    except SystemExit:
        pytest.fail(f"{where}: {line}\n{capsys.readouterr().err}")
    assert getattr(args, "func", None) is not None, f"{where}: {line}"


# --------------------------------------------------------------------------- running them
def _write(p: Path, text: str) -> None:
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")


@pytest.fixture
def stand_ins(tmp_path, monkeypatch):
    """The files the README's examples name, small."""
    d = tmp_path / "wmt21"
    _write(d / "newstest2021.en-de.src.en", "We met at noon .\nThe house is big .\n")
    _write(d / "newstest2021.en-de.ref.A.de", "Wir trafen uns mittags .\nDas Haus ist groß .\n")
    _write(d / "newstest2021.en-de.hyp.S1.de", "Wir trafen uns um zwölf .\nDas Haus ist groß .\n")
    _write(d / "newstest2021.en-de.hyp.S2.de", "Wir uns trafen .\nHaus groß .\n")
    _write(d / "newstest2021.en-de.hyp.S3.de", "Mittags trafen wir uns .\nDas Haus groß .\n")
    _write(d / "mqm.tsv", "S1\t1\t-1\nS1\t2\t0\nS2\t1\t-10\nS2\t2\t-5\nS3\t1\t-2\n"
                          "S3\t2\t-3\n")
    for name, text in (("src.txt", "eins\nzwei\n"), ("ref1.txt", "one\ntwo\n"),
                       ("ref2.txt", "one\ndeux\n"), ("a.txt", "one\nto\n"),
                       ("b.txt", "won\ntwo\n"), ("ref.txt", "one\ntwo\n"),
                       ("hyp.txt", "one\ntoo\n"),
                       ("db.txt", "SOURCE eins\nTARGET 10 one\nTARGET 4 won\n")):
        _write(tmp_path / name, text)
    _write(tmp_path / "src.sgm", "<srcset><doc docid=d><seg id=1>eins</seg></doc></srcset>")
    _write(tmp_path / "ref.sgm",
           "<refset><doc docid=d sysid=ref-X><seg id=1>one</seg></doc></refset>")
    _write(tmp_path / "sys.sgm", "<tstset><doc docid=d sysid=mt><seg id=1>won</seg></doc>"
                                 "</tstset>")
    _write(tmp_path / "crowd.tsv", "system\tline\tclass\tvalue\tjudge\nRuleMT\t2\tfluency\t2\tzoe\n"
                                   "WebTrans\t2\tadequacy\t4\tzoe\n")
    shutil.copy(demo_database_path(), tmp_path / "db.etdb.xml")
    shutil.copy(demo_database_path(), tmp_path / "theirs.etdb.xml")
    monkeypatch.chdir(tmp_path)
    # ranking import-wmt wmt13-judgements.csv --database wmt.etdb.xml: a WMT13 test set
    # (files named as WMT13's) and two screens of its judgement CSV naming the systems by
    # their WMT file ids
    _wmt_folder(tmp_path / "wmt13", "newstest2013", "cs", "en", 2)
    assert main(["import", "wmt", str(tmp_path / "wmt13"), "-o", "wmt.etdb.xml"]) == 0
    _judgement_csv(tmp_path / "wmt13-judgements.csv", "newstest2013", "cs", "en",
                   [(1, "j1", [1, 2, 2, 3]), (2, "j2", [2, 1, 3, -1])])
    return {"D": str(d), "E": str(ROOT / "resources" / "segranks_example")}


#: Systems of the WMT13/WMT14 stand-ins (WMT names: ``testset.pair.NAME.number`` ids).
WMT_SYSTEMS = ("uedin", "cu-zeman", "online-B", "rbmt-1")
_LANGUAGE = {"cs": "Czech", "de": "German", "en": "English", "fr": "French"}
_SENTENCES = ("the house is big .", "we met at noon .", "it rained all day .",
              "the cat sat on the mat .")
_VARIANTS = {"uedin": lambda w: w, "cu-zeman": lambda w: w[1:] + w[:1],
             "online-B": lambda w: [x for x in w if x != "the"] or w,
             "rbmt-1": lambda w: w[::-1]}


def _wmt_folder(d: Path, testset: str, src: str, trg: str, n: int) -> None:
    """A WMT folder as ``import wmt`` reads it: TESTSET.SRC-TRG.src.SRC, .ref.A.TRG and
    .hyp.SYSTEM.TRG, ``n`` sentences."""
    pair = f"{src}-{trg}"
    sents = _SENTENCES[:n]
    _write(d / f"{testset}.{pair}.src.{src}", "".join(f"{src} {s}\n" for s in sents))
    _write(d / f"{testset}.{pair}.ref.A.{trg}", "".join(f"{s}\n" for s in sents))
    for system in WMT_SYSTEMS:
        _write(d / f"{testset}.{pair}.hyp.{system}.{trg}",
               "".join(" ".join(_VARIANTS[system](s.split())) + "\n" for s in sents))


def _judgement_csv(path: Path, testset: str, src: str, trg: str,
                   screens: list[tuple[int, str, list[int]]]) -> None:
    """A WMT13-16 judgement CSV (``io/segranks/wmt_csv.py``): per screen the source line,
    the judge and the ranks of the systems in ``WMT_SYSTEMS`` order (-1: not ranked)."""
    slots = range(1, len(WMT_SYSTEMS) + 1)
    header = ["srclang", "trglang", "srcIndex", "documentId", "segmentId", "judgeId",
              *[f"system{k}{c}" for k in slots for c in ("Number", "Id")],
              *[f"system{k}rank" for k in slots]]
    rows = [",".join(header)]
    for line, judge, ranks in screens:
        ids = [x for k, system in enumerate(WMT_SYSTEMS, 1)
               for x in (str(1000 + k), f"{testset}.{src}-{trg}.{system}.{1000 + k}")]
        rows.append(",".join([_LANGUAGE[src], _LANGUAGE[trg], str(line), "", "", judge, *ids,
                              *map(str, ranks)]))
    _write(path, "\n".join(rows) + "\n")


def _section_lines(start: str, end: str = "\n## ") -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split(start, 1)[1].split(end, 1)[0]
    lines = []
    for m in BLOCK.finditer(section):
        if m.group(1) == "sh":
            lines += _command_lines(m.group(2))
    return lines


def _run_all(lines: list[str], env: dict[str, str], capsys) -> int:
    ran = 0
    for line in lines:
        if "=" in line.split()[0] and not line.startswith("evaltrans"):
            continue                                # D=..., E=...: given by the fixture
        if not line.startswith("evaltrans "):
            continue
        for name, value in env.items():
            line = line.replace(f"${name}", value)
        argv = _without_metasyntax(shlex.split(line)[1:])
        rc = main(argv)
        _, err = capsys.readouterr()
        assert rc == 0, f"{line}\n{err}"
        ran += 1
    return ran


def test_the_command_line_tour_runs_as_written(stand_ins, capsys):
    lines = _section_lines("## Command line")
    assert _run_all(lines, stand_ins, capsys) >= 15


def test_the_wmt14_tables_example_runs_as_written(tmp_path, monkeypatch, capsys):
    """The WMT14 tables example of the meta-evaluation section (inline code), on two
    WMT14-style language pairs: a WMT folder each, imported, then ranked by a WMT14
    judgement CSV (whole-sentence rankings, the ``rank`` class it names)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    found = re.findall(r"`(evaltrans wmt14-tables [^`]+)`", text)
    assert len(found) == 1
    monkeypatch.chdir(tmp_path)
    argv = shlex.split(found[0])[1:]
    screens = [(1, "j1", [1, 2, 3, 4]), (2, "j1", [2, 1, 3, 4]), (3, "j2", [1, 3, 2, 4]),
               (4, "j2", [1, 2, 4, 3]), (1, "j2", [2, 1, 4, 3]), (3, "j1", [1, 2, 2, 4])]
    pairs = [a.split("=", 1) for a in argv if "=" in a]
    assert [p for p, _ in pairs] == ["de-en", "fr-en"]
    for pair, db in pairs:
        src, trg = pair.split("-")
        _wmt_folder(tmp_path / pair, "newstest2014", src, trg, 4)
        assert main(["import", "wmt", str(tmp_path / pair), "-o", "plain.etdb.xml",
                     "--force"]) == 0
        _judgement_csv(tmp_path / f"{pair}.csv", "newstest2014", src, trg, screens)
        assert main(["ranking", "import-wmt", f"{pair}.csv", "--database", "plain.etdb.xml",
                     "-o", db]) == 0
    capsys.readouterr()
    assert main(argv) == 0, capsys.readouterr().err
    table = (tmp_path / "t.tex").read_text(encoding="utf-8")
    assert "de-en" in table and "fr-en" in table


def test_the_cluster_example_runs_on_a_local_cluster(stand_ins, capsys):
    """The README's cluster example with the ``[cluster]`` extra it installs: the scheduler
    and worker it starts are a ``LocalCluster`` here (its address for tcp://HOST:8786), the
    database the tour's ``import wmt`` line builds."""
    distributed = pytest.importorskip("distributed")
    lines = [x for x in _section_lines("## Running on a cluster") if x.startswith("evaltrans ")]
    assert len(lines) == 1 and "tcp://HOST:8786" in lines[0]
    tour = _section_lines("## Command line")
    assert _run_all([x for x in tour if x.startswith("evaltrans import wmt ")], stand_ins,
                    capsys) == 1
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  protocol="tcp", dashboard_address=":0") as cluster:
        assert cluster.scheduler_address.startswith("tcp://")
        line = lines[0].replace("tcp://HOST:8786", cluster.scheduler_address)
        assert _run_all([line], stand_ins, capsys) == 1
    reports = sorted(Path().glob("run*.xml"))          # one report per system
    assert len(reports) == 3
    assert all("invwer" in p.read_text(encoding="utf-8").lower() for p in reports)


def test_the_segranks_walk_through_runs_as_written(stand_ins, capsys):
    lines = _section_lines("Try it on the bundled campaign", "`ranking wins` and `ranking "
                                                             "agreement` read")
    assert _run_all(lines, stand_ins, capsys) >= 5


# --------------------------------------------------------------------------- environments
def _base_modules() -> set[str]:
    """Import names a plain ``pip install evaltrans_qt`` provides (pyproject dependencies)."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    block = re.search(r"^dependencies = \[(.*?)^\]", text, re.S | re.M)
    assert block is not None
    deps = re.findall(r'^\s*"([^"]+)"', block.group(1), re.M)
    names = {re.split(r"[\[<>=!~; ]", d, maxsplit=1)[0].lower() for d in deps}
    assert {"numpy", "sacrebleu", "scipy"} <= names
    return names | {"evaltrans_qt"}


def _imports(code: str) -> set[str]:
    out = set()
    for m in re.finditer(r"^\s*(?:import|from)\s+([\w.]+)", code, re.M):
        out.add(m.group(1).split(".")[0])
    return out


@pytest.mark.parametrize("doc,code,line", _blocks("python"),
                         ids=[f"{d.name}:{n}" for d, _, n in _blocks("python")])
def test_python_examples_need_only_what_the_text_says(doc, code, line):
    text = doc.read_text(encoding="utf-8").splitlines()
    before = "\n".join(text[max(0, line - 12):line])
    missing = [m for m in _imports(code)
               if m not in _base_modules() and m not in sys.stdlib_module_names
               and not re.search(rf"pip install[^\n]*{m}|\[{m}\]", before)]
    assert not missing, (f"{doc.name}:{line} imports {', '.join(sorted(missing))}, which a "
                         "plain install lacks and the text does not say how to get")


#: Modules that only the extras bring ([gui], [test], [cluster], [align], [ja], [ko]).
EXTRA_MODULES = ("PySide6", "pyqtgraph", "jiwer", "dask", "distributed", "eflomal", "MeCab",
                 "mecab_ko", "hypothesis", "pytest")

_PLAIN_INSTALL = r'''
import importlib.abc, re, sys
BLOCKED = set(sys.argv[1].split(","))

class Blocker(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r} (not in a plain install)")
        return None

sys.meta_path.insert(0, Blocker())
block = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
for doc in sys.argv[2:]:
    namespace = {"__name__": "docs"}
    for i, code in enumerate(block.findall(open(doc, encoding="utf-8").read())):
        exec(compile(code, f"{doc}[block {i}]", "exec"), namespace)
print("ran")
'''


def test_python_examples_run_without_any_extra(tmp_path):
    """docs/api.md and the README's Python example run in a plain install: the modules of
    every extra are made unimportable (the API says it needs none of them)."""
    import os
    import subprocess
    env = {k: v for k, v in os.environ.items() if k != "SACREBLEU_SEED"}
    proc = subprocess.run(
        [sys.executable, "-c", _PLAIN_INSTALL, ",".join(EXTRA_MODULES),
         str(ROOT / "docs" / "api.md"), str(ROOT / "README.md")],
        cwd=tmp_path, capture_output=True, text=True, timeout=600, env=env)
    assert proc.returncode == 0 and proc.stdout.endswith("ran\n"), proc.stderr[-3000:]
