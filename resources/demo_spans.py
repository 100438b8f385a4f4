"""The demo database's error-span judgements (MQM by anna and ben on sources 1-3, ESA by
eva on sources 4-5), written through :class:`~evaltrans_qt.span_session.SpanSessionModel`
-- the code the annotation screen uses -- so that the file stays valid: anna's and ben's
annotations carry the protocol ``mqm``, eva's ``esa`` (her spans do not count towards MQM).

These are the project's own judgements of the demo's invented translations, made for the
demo; they follow the MQM guidelines' categories and severities (Freitag et al. 2021,
Table 10) and ESA's Minor/Major spans and 0-100 score (Kocmi et al. 2024, section 2).
Run once on a copy of the demo without spans (no ``<errors>``, no ``esa`` class or
scores): ``python -m resources.demo_spans DB``. The output does not depend on when it is
run: judging time comes from :class:`_Clock` and the ESA scores' time stamp is
:data:`JUDGED`.
"""

from __future__ import annotations

import sys
from pathlib import Path

from evaltrans_qt.span_session import SpanSessionModel
from evaltrans_qt.workspace import Workspace

#: (source number, system) -> [(marked text, severity, category)] per MQM judge; a marked
#: text "^word" is an omission before ``word``; no entry: judged without errors.
MQM: dict[str, dict[tuple[int, str], list[tuple[str, str, str]]]] = {
    "anna": {
        (1, "WebTrans"): [("has a delay of", "Minor", "Style/Awkward")],
        (1, "PhraseBase"): [("has today twenty minutes delay", "Major", "Fluency/Grammar")],
        (1, "RuleMT"): [("course", "Major", "Accuracy/Mistranslation"),
                        ("after", "Major", "Accuracy/Mistranslation"),
                        ("has today", "Minor", "Fluency/Grammar"),
                        ("lateness", "Minor", "Style/Awkward")],
        (2, "PhraseBase"): [(",", "Minor", "Fluency/Punctuation"),
                            ("where is", "Minor", "Fluency/Grammar"),
                            ("next", "Major", "Accuracy/Mistranslation")],
        (2, "RuleMT"): [("say me", "Major", "Fluency/Grammar"),
                        ("next", "Major", "Accuracy/Mistranslation"),
                        ("money automat", "Major", "Terminology/Inappropriate for context")],
        (3, "WebTrans"): [("the taxes", "Minor", "Fluency/Grammar")],
        (3, "PhraseBase"): [("wants the taxes for small companies lower", "Major",
                             "Fluency/Grammar")],
        (3, "RuleMT"): [("regime", "Major", "Accuracy/Mistranslation"),
                        ("sink", "Critical", "Accuracy/Mistranslation")],
    },
    "ben": {
        (1, "PhraseBase"): [("has today", "Minor", "Fluency/Grammar"),
                            ("twenty minutes delay", "Minor", "Fluency/Grammar")],
        (1, "RuleMT"): [("course after Munich", "Major", "Accuracy/Mistranslation"),
                        ("lateness", "Major", "Fluency/Grammar")],
        (2, "PhraseBase"): [("next cash machine", "Minor", "Accuracy/Mistranslation")],
        (2, "RuleMT"): [("Can you say me, where", "Major", "Fluency/Grammar"),
                        ("next money automat", "Major", "Accuracy/Mistranslation")],
        (3, "WebTrans"): [("companies", "Neutral", "Terminology/Inappropriate for context")],
        (3, "PhraseBase"): [("lower", "Major", "Fluency/Grammar")],
        (3, "RuleMT"): [("regime", "Major", "Accuracy/Mistranslation"),
                        ("enterprises", "Minor", "Style/Awkward"),
                        ("sink", "Major", "Accuracy/Mistranslation")],
    },
}

#: ESA by eva: (source number, system) -> (spans, score).
ESA: dict[tuple[int, str], tuple[list[tuple[str, str]], float]] = {
    (4, "Lumen-NMT"): ([], 96),
    (4, "WebTrans"): ([("22 o'clock", "Minor")], 82),
    (4, "PhraseBase"): ([("is the museum until 22 clock open", "Major")], 41),
    (4, "RuleMT"): ([("^.", "Major"), ("is the museum", "Minor")], 28),
    (5, "Lumen-NMT"): ([], 98),
    (5, "WebTrans"): ([], 93),
    (5, "PhraseBase"): ([("strong", "Minor"), ("were all flights", "Minor"),
                         ("deleted", "Major")], 47),
    (5, "RuleMT"): ([("strong snow case", "Major"), ("became painted", "Major")], 12),
}


def _go(m: SpanSessionModel, source: int, system: str) -> str:
    """Make (source number, system) the current item; its text."""
    for n, (si, _ti) in enumerate(m.items):
        if si == source - 1 and m.target(n).system == system:
            m.go(n)
            return m.target().text
    raise LookupError(f"no candidate of {system} for source {source}")


def _where(text: str, mark: str) -> tuple[int, int]:
    at = text.index(mark.lstrip("^"))
    return (at, at) if mark.startswith("^") else (at, at + len(mark))


#: The time stamp of eva's ESA scores (when the demo's judgements were first written).
JUDGED = "2026-11-28T00:26:13"


class _Clock:
    """Judging time for the demo: 12 s per step (an edit, or showing a candidate)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 12.0
        return self.now


def write(path: Path) -> None:
    ws = Workspace.open(path, autosave=False)
    try:
        for judge, marks in MQM.items():
            m = SpanSessionModel(ws, judge, clock=_Clock())
            sources = {s for s, _ in marks}
            for n, (si, _ti) in enumerate(m.items):
                if si + 1 not in sources:
                    continue
                m.go(n)
                errs = marks.get((si + 1, m.target().system or ""), [])
                for mark, sev, cat in errs:
                    a, b = _where(m.target().text, mark)
                    m.add_error(a, b, sev, cat, snap=False)
                if not errs:
                    m.no_error()
        m = SpanSessionModel(ws, "eva", protocol="esa", clock=_Clock(), stamp=lambda: JUDGED)
        for (source, system), (spans, score) in ESA.items():
            text = _go(m, source, system)
            for mark, sev in spans:
                a, b = _where(text, mark)
                if a == b:
                    m.add_omission(a, sev)
                else:
                    m.add_error(a, b, sev, "Other", snap=False)
            m.set_score(score)
        ws.save()
    finally:
        ws.close()


if __name__ == "__main__":
    write(Path(sys.argv[1]))
