"""Re-exports of the evaluation driver's public names (no code of its own).

The driver was split into modules named for what they hold; import from them
in new code:

* :mod:`evaltrans_qt.engine.corpus` -- tokenising once, rows per system (``build_corpus``);
* :mod:`evaltrans_qt.engine.work` -- units of work (``Chunk``, ``PairBatch``) and ``compute``;
* :mod:`evaltrans_qt.engine.schedule` -- the pair phase's tasks, chunk sizes;
* :mod:`evaltrans_qt.engine.executors` -- ``SerialExecutor``, ``LocalProcessExecutor``;
* :mod:`evaltrans_qt.engine.driver` -- ``evaluate``, ``iter_evaluate``, ``Progress``.

``database_from_files`` moved to :mod:`evaltrans_qt.io.plaintext` (the engine
never reads files into databases).
"""

from __future__ import annotations

from evaltrans_qt.engine.corpus import (PARALLEL_TOKENIZE_MIN, SystemRows, build_corpus,
                                        tokenize_batch)
from evaltrans_qt.engine.driver import (Progress, default_measures, evaluate, iter_evaluate,
                                        leave_one_out_measures)
from evaltrans_qt.engine.executors import (SERIAL_THRESHOLD, CancelFlag, Executor,
                                           LocalProcessExecutor, SerialExecutor,
                                           choose_executor, default_start_method)
from evaltrans_qt.engine.measures.base import FLAG_PREFIX
from evaltrans_qt.engine.schedule import (BATCH_MAX_SECONDS, BATCH_MIN_SECONDS, chunk_size,
                                          collect_pairs, costly_measures, has_expensive_pairs,
                                          pair_batches, schedule_pairs)
from evaltrans_qt.engine.work import (Chunk, ChunkResult, PairBatch, compute, compute_chunk,
                                      compute_pairs, drop_identical)

#: Former private name of :func:`evaltrans_qt.engine.schedule.chunk_size` (benchmarks).
_chunk_size = chunk_size

__all__ = [
    "BATCH_MAX_SECONDS", "BATCH_MIN_SECONDS", "FLAG_PREFIX", "PARALLEL_TOKENIZE_MIN",
    "SERIAL_THRESHOLD", "CancelFlag", "Chunk", "ChunkResult", "Executor",
    "LocalProcessExecutor", "PairBatch", "Progress", "SerialExecutor", "SystemRows",
    "build_corpus", "choose_executor", "chunk_size", "collect_pairs", "compute",
    "compute_chunk", "compute_pairs", "costly_measures", "default_measures",
    "default_start_method", "drop_identical", "evaluate", "has_expensive_pairs",
    "iter_evaluate", "leave_one_out_measures", "pair_batches", "schedule_pairs",
    "tokenize_batch",
]
