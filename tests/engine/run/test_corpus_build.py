"""build_corpus against a straightforward reimplementation (one scan of the database per
system, one ``is_reference`` and one ``tokenize`` + ``Vocabulary.encode`` per text), on
random databases with several systems, references evaluated as systems, sources without
references, repeated lines and texts that tokenise to nothing -- serially, through a
serial executor and through a process pool: vocabulary, rows, fit segments and warnings
must be identical."""

from __future__ import annotations

import random

import numpy as np
import pytest

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.measures.base import Segment
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.run import corpus
from evaltrans_qt.engine.run.corpus import build_corpus
from evaltrans_qt.engine.run.executors.local import LocalProcessExecutor, SerialExecutor
from evaltrans_qt.engine.text.preprocess import Vocabulary, tokenize
from evaltrans_qt.errors import Cancelled, EvalTransError, OptionError

WORDS = ["the", "cat", "Cat", "sat", "on", "mat", "3.5", "x-1", "«quoted»", "&amp;", "it's",
         "don't", "İstanbul", "ΣΟΦΟΣ", "naïve", ",", ".", "!", "(", ")", "-", "<s>", "</s>"]


def _reference_build(db: Database, options: EvalOptions, systems=None, with_executor=False):
    """The plain algorithm: ids in first-seen order -- with an executor, of every
    reference and every target of a selected system in database order; without, of the
    fit segments' references, then of the rows system by system."""
    vocab = Vocabulary()
    cache: dict[str, np.ndarray] = {}

    def ids(text: str) -> np.ndarray:
        if text not in cache:
            cache[text] = vocab.encode(tokenize(text, options.tokenization, options.case))
        return cache[text]

    cand_ids, ref_ids = set(db.systems()), set(db.reference_ids())
    if systems is None:
        systems = db.systems()
    for s in systems:
        if s not in cand_ids and s not in ref_ids:
            raise OptionError(f"unknown system '{s}'")
    if with_executor:
        want = {s or None for s in systems}
        for src in db.sources:
            for t in src.targets:
                if db.is_reference(t) or (t.system or None) in want:
                    ids(t.text)
    fit = [Segment(np.zeros(0, np.int32), tuple(ids(r.text) for r in db.references(src)), "",
                   tuple(r.text for r in db.references(src)))
           for src in db.sources if db.references(src)]
    out, warnings = [], []
    for system in systems:
        as_reference = system not in cand_ids and system in ref_ids
        rows = corpus.SystemRows(system)
        skipped = 0
        for si, src in enumerate(db.sources):
            refs = db.references(src)
            for ti, t in enumerate(src.targets):
                if (t.system or None) != (system or None):
                    continue
                if any(t is r for r in refs) != as_reference:
                    continue
                others = [r for r in refs if r is not t]
                if not others:
                    skipped += 1
                    continue
                rows.source_index.append(si)
                rows.target_index.append(ti)
                rows.source_texts.append(src.text)
                rows.segments.append(Segment(ids(t.text), tuple(ids(r.text) for r in others),
                                             t.text, tuple(r.text for r in others)))
        if skipped:
            warnings.append(f"system '{system or '(no id)'}': {skipped} candidate(s) skipped, "
                            "their source has no reference")
        out.append(rows)
    if not any(r.segments for r in out):
        raise EvalTransError("nothing to evaluate")
    return vocab, out, fit, warnings


def _segments_equal(a: Segment, b: Segment) -> None:
    assert a.hyp.dtype == b.hyp.dtype == np.int32
    assert a.hyp.tolist() == b.hyp.tolist()
    assert [r.tolist() for r in a.refs] == [r.tolist() for r in b.refs]
    assert all(r.dtype == np.int32 for r in a.refs)
    assert a.hyp_text == b.hyp_text and a.ref_texts == b.ref_texts


def _same(got, want) -> None:
    gv, grows, gfit, gwarn = got
    wv, wrows, wfit, wwarn = want
    assert gv.words == wv.words
    assert [gv.id(w) for w in wv.words[2:]] == list(range(2, len(wv)))
    assert gwarn == wwarn
    assert len(gfit) == len(wfit)
    for a, b in zip(gfit, wfit):
        _segments_equal(a, b)
    assert [r.system for r in grows] == [r.system for r in wrows]
    for a, b in zip(grows, wrows):
        assert a.source_index == b.source_index
        assert a.target_index == b.target_index
        assert a.source_texts == b.source_texts
        assert len(a.segments) == len(b.segments)
        for x, y in zip(a.segments, b.segments):
            _segments_equal(x, y)


def _sentence(rng: random.Random) -> str:
    n = rng.choice([0, 1, 2, 3, 5, 8, 13])
    text = " ".join(rng.choice(WORDS) for _ in range(n))
    return rng.choice([text, text, text, text + " ", " " + text, text.replace(" ", "  ")])


def random_db(seed: int) -> Database:
    """Several systems (also None and ids shared by references and candidates), references
    with and without system ids, sources without references, repeated sentences."""
    rng = random.Random(seed)
    db = Database()
    db.ensure_reference_class()
    systems = ["A", "B", "C", None, "ref-X"][:rng.randint(2, 5)]
    ref_systems = ["ref-1", "ref-2", "ref-X", None, "ref-1"]
    pool = [_sentence(rng) for _ in range(12)]           # repeated lines
    for i in range(rng.randint(1, 25)):
        if rng.random() < 0.3:
            src = db.add_source(rng.choice(pool), seg=str(i))   # the same text, other position
        else:
            src = db.add_source(rng.choice(pool + [_sentence(rng)]))
        for r in ref_systems[:rng.choice([0, 0, 1, 2, 3, 5])]:
            text = rng.choice(pool) if rng.random() < 0.3 else _sentence(rng)
            db.add_target(src, text, r, reference=True)
        for s in systems:
            if rng.random() < 0.9:
                text = rng.choice(pool) if rng.random() < 0.3 else _sentence(rng)
                db.add_target(src, text, s)
    return db


def _both(db, options, systems, executor):
    try:
        want = _reference_build(db, options, systems, with_executor=executor is not None)
    except (EvalTransError, OptionError) as e:
        with pytest.raises(type(e)):
            build_corpus(db, options, systems, executor=executor)
        return
    _same(build_corpus(db, options, systems, executor=executor), want)


def _system_choices(db: Database, rng: random.Random):
    known = list(dict.fromkeys(db.systems() + db.reference_ids()))
    yield None
    yield known
    if known:
        yield [rng.choice(known) for _ in range(3)]          # duplicates too
    yield ["not-a-system"]


@pytest.mark.parametrize("seed", range(60))
def test_build_corpus_matches_the_plain_algorithm(seed):
    db = random_db(seed)
    rng = random.Random(1000 + seed)
    options = EvalOptions(case=rng.choice(["use", "ignore"]),
                          tokenization=rng.choice(["mteval", "none", "intl",
                                                   "mteval-contractions"]))
    for systems in _system_choices(db, rng):
        _both(db, options, systems, None)
        _both(db, options, systems, SerialExecutor())


def test_build_corpus_in_a_process_pool_matches(monkeypatch):
    """Parallel tokenisation (batches shipped back as distinct words + local ids) gives
    the same ids as the serial reference."""
    monkeypatch.setattr(corpus, "PARALLEL_TOKENIZE_MIN", 1)
    with LocalProcessExecutor(2) as ex:
        for seed in range(4):
            db = random_db(100 + seed)
            for systems in _system_choices(db, random.Random(seed)):
                _both(db, EvalOptions(), systems, ex)


def test_token_batch_round_trip():
    rng = random.Random(7)
    lists = [tokenize(_sentence(rng), "mteval") for _ in range(200)] + [[]]
    b = corpus.token_batch(lists)
    flat = [b.words[i] for i in b.local.tolist()]
    assert flat == [t for x in lists for t in x]
    assert b.lengths.tolist() == [len(x) for x in lists]
    assert len(set(b.words)) == len(b.words)


def test_vocabulary_encode_assigns_ids_in_first_seen_order():
    rng = random.Random(3)
    toks = [rng.choice(WORDS) for _ in range(500)]
    v, plain = Vocabulary(), {}
    got = v.encode(toks[:250]).tolist() + v.encode(iter(toks[250:])).tolist()
    for t in toks:
        plain.setdefault(t, len(plain) + 2)
    assert got == [plain[t] for t in toks]
    assert v.words[2:] == list(plain)
    assert v.encode([]).dtype == np.int32 and len(v.encode([])) == 0


def test_build_corpus_cancelled():
    class Set:
        def is_set(self):
            return True
    with pytest.raises(Cancelled):
        build_corpus(random_db(1), EvalOptions(), cancel=Set())
