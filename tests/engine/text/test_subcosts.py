"""Word-dependent substitution costs (thesis section 4.5, Table 4.2, eq. 4.10a)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaltrans_qt.engine.text.preprocess import Vocabulary
from evaltrans_qt.engine.text.subcosts import SubstitutionCosts, char_levenshtein_path, cost
from evaltrans_qt.errors import OptionError

# Thesis Table 4.2 (§4.5): e, e~, d_LEV, cpl, c_SUB,L, c_SUB,prefix
TABLE_4_2 = [
    ("usual", "unusual", 2, 2 / 7, 1 - 1 / 6),
    ("understanding", "misunderstanding", 3, 3 / 16, 1.0),
    ("talk", "talks", 1, 1 / 5, 1 - 4 / 4.5),
    ("zusagen", "sagen", 2, 2 / 7, 1.0),
]


@pytest.mark.parametrize("a,b,d_lev,c_lev,c_prefix", TABLE_4_2)
def test_table_4_2(a, b, d_lev, c_lev, c_prefix):
    assert char_levenshtein_path(a, b)[0] == d_lev
    assert cost(a, b, "levenshtein") == pytest.approx(c_lev)
    assert cost(a, b, "prefix") == pytest.approx(c_prefix)
    assert round(cost(a, b, "levenshtein"), 2) == round(c_lev, 2)
    v = Vocabulary()
    for rule, want in (("levenshtein", c_lev), ("prefix", c_prefix), ("none", 1.0)):
        sc = SubstitutionCosts(rule, v)
        assert sc.cost(v.id(a), v.id(b)) == pytest.approx(want)
        assert sc.cost(v.id(b), v.id(a)) == pytest.approx(want)


def test_identity_and_unknown_rule():
    assert cost("talk", "talk", "prefix") == 0.0 == cost("talk", "talk", "levenshtein")
    assert cost("talk", "walk", "none") == 1.0
    # completely different words of equal length cost exactly 1 (shortest optimal path)
    assert cost("abc", "xyz", "levenshtein") == 1.0
    with pytest.raises(OptionError):
        cost("a", "b", "stem")
    with pytest.raises(OptionError):
        SubstitutionCosts("stem", Vocabulary())


word = st.text(alphabet="abcäöü-'", min_size=1, max_size=8)


@settings(max_examples=300, deadline=None)
@given(word, word, st.sampled_from(["none", "prefix", "levenshtein"]))
def test_costs_kernel_equals_reference_and_eq_4_10a(a, b, rule):
    c = cost(a, b, rule)
    # eq. 4.10a: c_SUB(e, e~) <= c_DEL + c_INS = 2; our costs lie in [0, 1], 0 iff identical
    assert 0.0 <= c <= 1.0 <= 2.0
    assert (c == 0.0) == (a == b)
    assert c == pytest.approx(cost(b, a, rule))
    v = Vocabulary()
    sc = SubstitutionCosts(rule, v)
    assert sc.cost(v.id(a), v.id(b)) == pytest.approx(c, abs=1e-12)


def test_matrix_and_vocabulary_growth():
    v = Vocabulary()
    sc = SubstitutionCosts("prefix", v)
    h = v.encode(["talk", "to"])
    r = v.encode(["talks", "too", "talk"])
    m1 = sc.matrix(h, r)
    assert m1.shape == (2, 3)
    assert m1[0, 2] == 0.0 and m1[0, 0] == pytest.approx(1 - 4 / 4.5)
    assert m1[1, 1] == pytest.approx(1 - 2 / 2.5)
    # words added to the vocabulary after the first use are picked up
    n = v.encode(["walked"])
    assert sc.matrix(n, h)[0].tolist() == pytest.approx([1.0, 1.0])
    np.testing.assert_allclose(sc.matrix(r, h), m1.T)
