"""``evaltrans align --measure errorclasses`` shows each word's error class in a CLASS row."""

from __future__ import annotations

from evaltrans_qt.cli.main import main


def test_align_prints_the_class_of_every_erroneous_word(capsys):
    assert main(["align", "--measure", "errorclasses", "a dog and a cat",
                 "a cat and a dog"]) == 0
    out = capsys.readouterr().out
    rows = {line.split(":")[0]: line for line in out.splitlines() if line[:6].rstrip(" :")
            in ("REF", "HYP", "EVAL", "CLASS")}
    assert rows["CLASS"].split()[1:] == ["reord", "reord"]
    # the class sits under its word
    assert rows["CLASS"].index("reord") == rows["REF"].index("cat")
    assert main(["align", "--measure", "wer", "a dog and a cat", "a cat and a dog"]) == 0
    assert "CLASS:" not in capsys.readouterr().out
