"""One constructor of continuous score classes (``schemes.continuous``): the range from the
arguments or from the scores (floor/ceiling), the defaults of thesis Appendix A.2's
attributes, the checks; the importers, the Python API and the classes dialog build their
classes with it, and no other module builds a ``Levels(continuous=True)`` of its own."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from evaltrans_qt.engine.data import schemes
from evaltrans_qt.engine.data.database import Levels
from evaltrans_qt.errors import InputFormatError, ScoreError

PKG = Path(__file__).resolve().parents[3] / "evaltrans_qt"


def test_given_range_and_defaults():
    lv = schemes.continuous("da", 0, 100)
    assert lv == Levels("da", count=0, gray=0, green=100, perfect=100, firstvalid=0,
                        continuous=True, minimum=0.0, maximum=100.0)
    lv = schemes.continuous("mqm", -25, 0, perfect=0, gray=-5, green=-1,
                            extra_attrs={"unit": "penalty"})
    assert (lv.gray, lv.green, lv.perfect, lv.firstvalid) == (-5, -1, 0, -25)
    assert lv.extra_attrs == {"unit": "penalty"}
    assert schemes.template("mqm") == Levels("mqm", count=0, gray=-5, green=0, perfect=0,
                                             firstvalid=-25, continuous=True, minimum=-25.0,
                                             maximum=0.0)


def test_range_from_the_scores():
    lv = schemes.continuous("z", values=[-1.5, 0.2, 2.25, float("nan")])
    assert (lv.minimum, lv.maximum, lv.gray, lv.perfect, lv.firstvalid) == (-2, 3, -2, 3, -2)
    assert schemes.continuous("z", maximum=10, values=[3.5]).minimum == 3.0
    point = schemes.continuous("z", values=[4.0, 4.0], allow_point=True)
    assert point.minimum == point.maximum == 4.0
    with pytest.raises(ScoreError, match="minimum 4 must be below maximum 4"):
        schemes.continuous("z", values=[4.0, 4.0])
    with pytest.raises(ScoreError, match="minimum 5 must not be above maximum 1"):
        schemes.continuous("z", 5, 1, allow_point=True)
    with pytest.raises(ScoreError, match="must be a finite number"):
        schemes.continuous("z", 0, float("inf"), allow_point=True)
    with pytest.raises(ScoreError, match="comma"):
        schemes.continuous("a,b", 0, 1)


def test_importers_and_api_use_it():
    import evaltrans_qt as et
    from evaltrans_qt.io import wmt
    want = Levels("mqm", count=0, gray=-7, green=0, perfect=0, firstvalid=-7,
                  continuous=True, minimum=-7.0, maximum=0.0)
    assert wmt.score_levels("mqm", [-6.5, 0.0, -1.0]) == want
    assert wmt.score_levels("mqm", [], 3, 3) == Levels("mqm", 0, 3, 3, 3, 3, True, 3.0, 3.0)
    with pytest.raises(InputFormatError, match="finite"):
        wmt.score_levels("mqm", [1.0], maximum=float("nan"))
    db = et.Database.from_lists(["a", "b"], ["x", "y"], systems={"A": ["x", "z"]},
                                human={"f": {"A": [2.5, 4.0]}, "g": {"A": [1, None]}},
                                scales={"g": (0, 1)})
    assert db.level("f") == Levels("f", 0, 2, 4, 4, 2, True, 2.0, 4.0)
    assert db.level("g") == Levels("g", 0, 0, 1, 1, 0, True, 0.0, 1.0)


def _continuous_levels_calls(path: Path) -> list[int]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Call)
            and any(k.arg == "continuous" and isinstance(k.value, ast.Constant)
                    and k.value.value is True for k in node.keywords)]


def test_no_second_constructor():
    found = {}
    for path in PKG.rglob("*.py"):
        rel = path.relative_to(PKG)
        if rel == Path("engine/data/schemes.py"):
            continue
        lines = _continuous_levels_calls(path)
        if lines:
            found[str(rel)] = lines
    assert not found, f"Levels(continuous=True) built outside schemes.continuous: {found}"
