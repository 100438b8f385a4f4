"""A closed stdout (``evaltrans info DB | head -1``) ends quietly with exit code 0, as
sacreBLEU and the Unix tools do, for every command that prints; usage errors are one line
naming ``--help``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from evaltrans_qt.cli.main import main


class ClosedPipe:
    """A stdout whose reader has gone: every write raises, as on a pipe to ``head``."""

    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self) -> None:
        raise BrokenPipeError(32, "Broken pipe")

    def fileno(self) -> int:
        raise OSError("no file descriptor")


def _texts(tmp_path: Path) -> tuple[str, str]:
    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("the cat sat on the mat\na dog barked\n", encoding="utf-8")
    hyp.write_text("the cat sat on a mat\nthe dog barked\n", encoding="utf-8")
    return str(ref), str(hyp)


#: Commands that print to stdout (demo database ``DB``; ``REF``/``HYP`` two small files).
COMMANDS = {
    "info": ["info", "DB"],
    "info --json": ["info", "DB", "--json"],
    "classes --json": ["classes", "DB", "--json"],
    "human": ["human", "DB"],
    "significance": ["significance", "DB", "--measure", "bleu", "--samples", "20"],
    "orange": ["orange", "DB", "--measures", "bleu"],
    "ranking wins": ["ranking", "wins", "DB"],
    "judge-agreement": ["judge-agreement", "DB"],
    "extrapolate": ["extrapolate", "DB"],
    "correlate": ["correlate", "DB", "--human", "fluency", "--measures", "bleu,wer"],
    "batch --json": ["batch", "--database", "DB", "--all-systems", "--measures", "bleu",
                     "--json"],
    "score -sl": ["score", "REF", "-i", "HYP", "-m", "bleu", "-sl"],
}


def _argv(words: list[str], demo: Path, tmp_path: Path) -> list[str]:
    ref, hyp = _texts(tmp_path)
    return [{"DB": str(demo), "REF": ref, "HYP": hyp}.get(w, w) for w in words]


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_closed_stdout_ends_quietly(name, demo, tmp_path, monkeypatch, capsys):
    argv = _argv(COMMANDS[name], demo, tmp_path)
    assert main(argv) == 0
    assert capsys.readouterr().out.strip()          # the command does print something
    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "Traceback" not in err and "error" not in err.lower()


@pytest.mark.parametrize("name", ["info", "classes --json", "score -sl"])
def test_a_real_closed_pipe_exits_0_without_a_traceback(name, demo, tmp_path):
    """A process whose stdout is a pipe with no reader (the reader end closed before the
    first write): exit code 0, nothing on stderr -- also not from the interpreter's final
    flush."""
    argv = _argv(COMMANDS[name], demo, tmp_path)
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = subprocess.run([sys.executable, "-m", "evaltrans_qt", *argv], stdout=write_end,
                              stderr=subprocess.PIPE, text=True, timeout=300)
    finally:
        os.close(write_end)
    assert proc.returncode == 0 and proc.stderr == ""


@pytest.mark.parametrize("argv, where", [
    (["nosuchcommand"], "evaltrans"),
    (["batch", "--executor", "cloud"], "evaltrans batch"),
    (["info"], "evaltrans info"),
    (["import", "wmt"], "evaltrans import wmt"),
    (["score", "--no-such-flag"], "evaltrans score"),
    (["import", "wmt", "folder", "-o", "x.etdb.xml", "--what"], "evaltrans import wmt"),
])
def test_usage_errors_are_one_line(argv, where, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "usage:" not in err
    assert err.startswith(f"{where}: error: ") and err.rstrip().endswith(f"(see '{where} --help')")
