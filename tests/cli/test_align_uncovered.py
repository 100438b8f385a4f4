"""`evaltrans align` shows candidate words that the alignment leaves unused (CDER)."""

from evaltrans_qt.cli.main import main


def test_cder_text_view_lists_uncovered_candidate_words(capsys):
    rc = main(["align", "--measure", "cder", "we will meet at noon in the lobby",
               "we will meet in the lobby at twelve o'clock"])
    assert rc == 0
    out = capsys.readouterr().out
    assert "Candidate words aligned to no reference word: at [3], noon [4]" in out


def test_wer_text_view_has_no_such_line(capsys):
    assert main(["align", "--measure", "wer", "a b c", "a x c"]) == 0
    assert "aligned to no reference word" not in capsys.readouterr().out
