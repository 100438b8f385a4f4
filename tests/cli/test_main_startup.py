"""``evaltrans`` start-up: each command imports only its own module (and the shared
``cli/_common.py``), ``--help`` none; ``python -m evaltrans_qt`` is the command line; the
COMMANDS table matches what the modules register; every command whose numbers depend on
the evaluation options takes ``--preset``."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from evaltrans_qt import __version__
from evaltrans_qt.cli import main as cli_main

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("numba", "scipy", "pandas", "lxml", "PySide6", "pyqtgraph")


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_python_dash_m_prints_the_version():
    res = subprocess.run([sys.executable, "-m", "evaltrans_qt", "--version"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == f"evaltrans_qt {__version__}"


def test_python_dash_m_runs_a_command(tmp_path):
    ref = tmp_path / "ref.txt"
    ref.write_text("the cat sat on the mat\n", encoding="utf-8")
    res = subprocess.run([sys.executable, "-m", "evaltrans_qt", "score", str(ref), "-i", str(ref),
                          "-m", "bleu", "-b"], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "100.0"


def _parsers(parser: argparse.ArgumentParser, path: str = ""):
    """Every (sub-)command parser below ``parser`` with its command words."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield f"{path} {name}".strip(), sub
                yield from _parsers(sub, f"{path} {name}")


def test_every_command_with_evaluation_options_takes_a_preset():
    """A command that reads evaluation options (``--tokenization``, ``--case``...) reads
    ``--preset`` too, and builds its options with the API's builder (cli/_common.py)."""
    with_options = []
    for command, parser in _parsers(cli_main.build_parser("*")):
        flags = {s for a in parser._actions for s in a.option_strings}
        if "--tokenization" in flags:
            with_options.append(command)
            assert "--preset" in flags, command
    assert {"batch", "score", "align", "wmt14-tables", "correlate", "significance", "orange",
            "combine", "human", "export mtme"} <= set(with_options)


def test_the_command_table_matches_the_modules():
    """Every command a module registers is in COMMANDS under that module, with its help."""
    seen: dict[str, str] = {}
    for module in cli_main._modules():
        parser = argparse.ArgumentParser()
        sub = parser.add_subparsers()
        cli_main._register(sub, module)
        helps = {a.dest: a.help for a in sub._choices_actions}
        for name in sub.choices:
            seen[name] = module
            assert cli_main.COMMANDS[name] == (module, helps[name]), name
    assert set(seen) == set(cli_main.COMMANDS)


@pytest.mark.parametrize("command", sorted(cli_main.COMMANDS))
def test_each_command_gets_its_full_parser(command):
    full = _subcommands(cli_main.build_parser(command))[command]
    assert full.add_help is True           # the real parser, not a placeholder
    every = _subcommands(cli_main.build_parser("*"))
    assert set(_subcommands(cli_main.build_parser(command))) == set(every)


_PROBE = """
import sys
from evaltrans_qt.cli.main import main
try:
    main({argv!r})
except SystemExit:
    pass
print("LOADED", " ".join(sorted(m for m in sys.modules if m.startswith("evaltrans_qt.cli.")
                                or m.split(".")[0] in {heavy!r})))
"""


def _loaded(argv: list[str], cwd: Path) -> set[str]:
    res = subprocess.run([sys.executable, "-c", _PROBE.format(argv=argv, heavy=HEAVY)],
                         cwd=cwd, capture_output=True, text=True, timeout=300)
    line = next(x for x in res.stdout.splitlines() if x.startswith("LOADED"))
    return set(line.split()[1:])


def test_help_imports_no_command_module(tmp_path):
    loaded = _loaded(["--help"], tmp_path)
    assert loaded == {"evaltrans_qt.cli.main"}


def test_score_bleu_loads_no_heavy_library(tmp_path):
    """``evaltrans score -m bleu`` on a small file: neither numba nor scipy, pandas or Qt
    (the m-grams of small inputs are counted in Python). lxml comes with sacreBLEU itself
    (``sacrebleu.dataset``), which the sacrebleu command loads as well."""
    ref = tmp_path / "ref.txt"
    ref.write_text("the cat sat on the mat\nhello world\n", encoding="utf-8")
    loaded = _loaded(["score", str(ref), "-i", str(ref), "-m", "bleu"], tmp_path)
    assert {m for m in loaded if m.startswith("evaltrans_qt.cli.")} == {
        "evaltrans_qt.cli.main", "evaltrans_qt.cli.score", "evaltrans_qt.cli._common",
        "evaltrans_qt.cli.progress"}
    assert not {m.split(".")[0] for m in loaded} & (set(HEAVY) - {"lxml"}), loaded


def test_an_unknown_command_is_still_an_argparse_error(capsys):
    with pytest.raises(SystemExit) as exc:
        cli_main.main(["no-such-command"])
    assert exc.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


@pytest.mark.parametrize("command", sorted(cli_main.COMMANDS))
def test_every_command_prints_its_help(command, capsys):
    """argparse %-formats help texts: an option's help with a literal '%' (INVWER's memory
    budget, '25 % of the physical memory') crashed `batch --help` and `score --help`."""
    with pytest.raises(SystemExit) as exc:
        cli_main.main([command, "--help"])
    assert exc.value.code == 0
    assert "usage:" in capsys.readouterr().out
