"""Compile every numba kernel ahead of first use, in the background.

numba compiles a kernel lazily at its first call, which makes the first run,
alignment or correlation of a session noticeably slower. The application
starts :func:`ensure_warm` on a worker at start-up: it runs every measure,
alignment, correlation and significance path once on a tiny corpus (under a
lock, once per process), so later calls only dispatch to compiled code. With
``cache=True`` kernels this takes a few seconds once the on-disk cache
exists; the first launch after installation pays the compile time once.
Problems are collected in :data:`problems`, never raised: a broken measure
must not stop the application.
"""

from __future__ import annotations

import threading
import time

_LOCK = threading.Lock()
_DONE = threading.Event()
#: Seconds the warm-up took in this process (None before it ran).
seconds: float | None = None
#: Problems met while warming up (a broken measure must not stop the application).
problems: list[str] = []


def is_warm() -> bool:
    return _DONE.is_set()


def _tiny_database():
    from evaltrans_qt.engine.data.database import Database, Levels
    db = Database([Levels("fluency", count=6, gray=2, green=5, perfect=5, firstvalid=1)])
    data = [
        ("Das ist ein kleiner Test .", ["this is a small test .", "this is a little test ."],
         {"A": ("this is small test .", 4), "B": ("a small test this is .", 2)}),
        ("Wir treffen uns um zwölf .", ["we will meet at noon .", "we meet at twelve o'clock ."],
         {"A": ("we will meet at twelve .", 5), "B": ("at noon we meet .", 3)}),
        ("Guten Morgen !", ["good morning !", "morning !"],
         {"A": ("good morning !", 5), "B": ("good day !", 3)}),
    ]
    for i, (src_text, refs, hyps) in enumerate(data):
        src = db.add_source(src_text, seg=str(i + 1))      # positional, as imports make them
        for k, r in enumerate(refs):
            db.add_target(src, r, f"ref-{k}", reference=True)
        for system, (text, score) in hyps.items():
            t = db.add_target(src, text, system)
            t.set_score("fluency", score, judge="warmup")
    return db


def _warm() -> None:
    from evaltrans_qt.engine.measures import load_all
    from evaltrans_qt.engine.options import EvalOptions
    from evaltrans_qt.engine.run.driver import evaluate
    from evaltrans_qt.engine.run.executors.local import SerialExecutor
    db = _tiny_database()
    names = list(load_all())
    variants = [
        EvalOptions(allow_transpositions=True, allow_long_jumps=True),
        EvalOptions(allow_transpositions=True, allow_long_jumps=True,
                    substitution_cost_rule="prefix", bleu_pad_rule="both", nist_pad_rule="both",
                    nper_pad_rule="both", wer_ref_length_rule="lowestError",
                    cder_coverage_rule="half", cder_pad_rule="none"),
        EvalOptions(substitution_cost_rule="levenshtein"),
    ]
    run = None
    for opts in variants:
        try:
            measures = [n for n in names if load_all()[n].enabled(opts)]
            r = evaluate(db, opts, measures, executor=SerialExecutor())
            run = run or r
        except Exception as exc:
            problems.append(f"evaluate {opts.substitution_cost_rule}: {exc}")
    # alignments (compare view)
    from evaltrans_qt.engine.measures.base import Segment
    from evaltrans_qt.engine.text.preprocess import Vocabulary, tokenize
    vocab = Vocabulary()
    hyp = vocab.encode(tokenize("we will meet at noon in the lobby"))
    ref = vocab.encode(tokenize("we will meet in the lobby at twelve o'clock"))
    seg = Segment(hyp, (ref,), "we will meet at noon in the lobby",
                  ("we will meet in the lobby at twelve o'clock",))
    for opts in variants[:2]:
        for name, cls in load_all().items():
            try:
                m = cls(opts)
                m.fit([Segment(hyp[:0], (ref,))], vocab)
                m.align(seg)
            except Exception as exc:
                problems.append(f"align {name}: {exc}")
    if run is None:
        return
    # correlation and significance (results view, live correlation)
    try:
        from evaltrans_qt.engine.metaeval.correlation import correlate_run
        for level in ("sentence", "system"):
            correlate_run(db, run, "fluency", level=level, n_boot=20)
    except Exception as exc:
        problems.append(f"correlation: {exc}")
    try:
        from evaltrans_qt.engine.metaeval.significance import run_significance
        for method in ("bootstrap", "randomization"):
            run_significance(run, run.measures[0], method=method, samples=20)
    except Exception as exc:
        problems.append(f"significance: {exc}")


def ensure_warm() -> None:
    """Compile all kernels once per process (thread-safe; later calls return at once)."""
    global seconds
    if _DONE.is_set():
        return
    with _LOCK:
        if _DONE.is_set():
            return
        t0 = time.perf_counter()
        try:
            _warm()
        finally:
            seconds = time.perf_counter() - t0
            _DONE.set()


def kernels_cached() -> bool:
    """Whether numba's on-disk cache holds the compiled kernels of ``engine/kernels``
    (``njit(cache=True)``: an index file beside the module or in ``NUMBA_CACHE_DIR``), so
    a run loads them instead of compiling (about a minute after an installation or an
    update). A kernel module none of whose kernels has an index is not cached (kernels
    called only from other kernels are compiled into them and never get one of their own;
    an edited module's kernels move to new line numbers, so all of its indexes change).
    Anything unexpected counts as cached: this only decides whether to say that compiling
    is under way."""
    import importlib
    import os
    import pkgutil
    try:
        from numba.core.registry import CPUDispatcher

        from evaltrans_qt.engine import kernels
    except Exception:
        return True
    for info in pkgutil.iter_modules(kernels.__path__):
        try:
            module = importlib.import_module(f"{kernels.__name__}.{info.name}")
        except Exception:
            continue
        indexes = []
        for value in vars(module).values():
            if isinstance(value, CPUDispatcher) and value.__module__ == module.__name__:
                cache = getattr(value, "_cache", None)
                index = getattr(getattr(cache, "_cache_file", None), "_index_path", None)
                if index is not None:
                    indexes.append(index)
        if indexes and not any(os.path.exists(i) for i in indexes):
            return False
    return True
