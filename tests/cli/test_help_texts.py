"""Help texts are plain text written for users: every description, argument help and
metavar of every command (and sub-command) is checked for reStructuredText markup, internal
references (specification sections, issue numbers, source files, Python names) and
metavars that misname what they stand for."""

from __future__ import annotations

import argparse
import re

import pytest

from evaltrans_qt.cli.main import build_parser

#: What a user-facing text must not contain: reST roles and literals, internal references.
FORBIDDEN = [
    (re.compile(r"``|:(?:func|class|mod|meth|data|attr|ref):`"), "reStructuredText markup"),
    (re.compile(r"\bSPEC\b|\bissue \d|\bitem \d"), "an internal reference"),
    (re.compile(r"\b[\w/]+\.py\b"), "a source file name"),
    (re.compile(r"\b(?:engine|io|cli|ui)\.\w+"), "a module name"),
    (re.compile(r"::\s*$", re.M), "a reST literal-block marker"),
]


def _parsers() -> list[tuple[str, argparse.ArgumentParser]]:
    """(command path, parser) of the program and every (nested) sub-command."""
    out = []

    def walk(name: str, p: argparse.ArgumentParser) -> None:
        out.append((name, p))
        for a in p._actions:
            if isinstance(a, argparse._SubParsersAction):
                for sub, sp in a.choices.items():
                    walk(f"{name} {sub}".strip(), sp)

    walk("evaltrans", build_parser("*"))
    return out


PARSERS = _parsers()


def _texts(p: argparse.ArgumentParser) -> list[tuple[str, str]]:
    texts = [("description", p.description or ""), ("epilog", p.epilog or "")]
    for a in p._actions:
        name = "/".join(a.option_strings) or a.dest
        texts.append((f"help of {name}", a.help or ""))
        mv = a.metavar if isinstance(a.metavar, str) else " ".join(a.metavar or ())
        texts.append((f"metavar of {name}", mv))
    for g in p._action_groups:
        texts.append((f"group {g.title}", f"{g.title or ''} {g.description or ''}"))
    return texts


@pytest.mark.parametrize("name,parser", PARSERS, ids=[n for n, _ in PARSERS])
def test_help_is_plain_text(name, parser):
    problems = [f"{where}: {what}: {text!r}" for where, text in _texts(parser)
                for rx, what in FORBIDDEN if rx.search(text)]
    assert not problems, f"{name}:\n" + "\n".join(problems)


@pytest.mark.parametrize("name,parser", PARSERS, ids=[n for n, _ in PARSERS])
def test_help_renders(name, parser):
    """``--help`` of every command formats (argparse %-formats help texts)."""
    assert parser.format_help()


def test_output_metavars_say_what_is_written():
    """``-o`` names a database only where a database is written."""
    by_name = dict(PARSERS)
    expected = {"evaltrans export aachen": "FILE", "evaltrans export mtme": "FOLDER",
                "evaltrans import text": "DB", "evaltrans merge": "DB"}
    for name, metavar in expected.items():
        (action,) = [a for a in by_name[name]._actions if "-o" in a.option_strings]
        assert action.metavar == metavar, name


def test_no_metavar_is_a_bare_value():
    """Every option's metavar says what it is (N, X, FILE, DB, FOLDER, SRC-TGT...), never
    the uninformative VALUE."""
    bare = [f"{name} {'/'.join(a.option_strings)}" for name, p in PARSERS for a in p._actions
            if a.metavar == "VALUE"]
    assert not bare, bare
