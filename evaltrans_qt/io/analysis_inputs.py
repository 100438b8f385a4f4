"""Files an analysis reads besides the database: a training corpus for word frequencies and
label files (e.g. POS tags) parallel to the references and outputs (compare-mt's
``freq_corpus_file``, ``ref_labels`` and ``out_labels``).

* training corpus -- one sentence per line, tokenised like the test data (the run's
  ``tokenization`` and ``case``), every word counted (compare-mt
  ``FreqWordBucketer(freq_corpus_file=...)``, which splits on spaces);
* label file -- one line per source of the database, in database order (line k labels the
  words of source k's reference, or of a system's candidate), labels separated by white
  space, one per word of our tokenisation.

Unreadable files, wrong encodings and wrong line counts are :class:`InputFormatError` naming
the file (and line).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence

from evaltrans_qt.engine.analysis.corpus import AnalysisCorpus, corpus_from_database
from evaltrans_qt.engine.analysis.pairwise import (
    AnalysisResult,
    AnalysisSettings,
    Labels,
    analyze_systems,
)
from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.text.preprocess import tokenize
from evaltrans_qt.errors import InputFormatError, OptionError
from evaltrans_qt.io.plaintext import read_lines

PathLike = str | os.PathLike[str]


def read_train_counts(path: PathLike, tokenization: str = "none", case: str = "use"
                      ) -> Counter[str]:
    """Word counts of a training corpus tokenised with ``tokenization`` and ``case``."""
    counts: Counter[str] = Counter()
    for line in read_lines(path):
        counts.update(tokenize(line, tokenization, case))
    return counts


def read_label_lines(path: PathLike, lines: int) -> list[list[str]]:
    """The labels of each line of ``path``, which must have ``lines`` lines."""
    rows = [ln.split() for ln in read_lines(path)]
    if len(rows) != lines:
        raise InputFormatError(f"{len(rows)} lines of labels, expected {lines} (one per "
                               "source of the test set)", path, min(len(rows), lines) + 1)
    return rows


def read_labels(corpus: AnalysisCorpus, files: Sequence[PathLike], lines: int) -> Labels:
    """:class:`Labels` from ``files``: the reference's labels, then optionally one file per
    system of ``corpus`` (in its order); each file has ``lines`` lines (one per source)."""
    files = list(files)
    if not files:
        raise OptionError("labels: give the reference's label file")
    if len(files) not in (1, 1 + len(corpus.systems)):
        raise OptionError(f"labels: {len(files)} files; give the reference's labels, "
                          f"optionally followed by one file per system "
                          f"({len(corpus.systems)}: {', '.join(corpus.systems)})")
    ref_rows = read_label_lines(files[0], lines)
    ref = [ref_rows[i] for i in corpus.source_index]
    outs = None
    names = None
    if len(files) > 1:
        outs, names = {}, {}
        for s, f in zip(corpus.systems, files[1:]):
            rows = read_label_lines(f, lines)
            outs[s] = [rows[i] for i in corpus.source_index]
            names[s] = str(f)
    return Labels(ref, outs, None, str(files[0]), names)


def analyze_database(db: Database, systems: Sequence[str], *, measure: str = "comparemt-bleu",
                     options: EvalOptions, reference: str | None = None,
                     train: PathLike | None = None, labels: Sequence[PathLike] | None = None,
                     top: int = 50, examples: int = 10, samples: int = 1000,
                     seed: int | str | None = "env") -> AnalysisResult:
    """The analysis of ``systems`` of ``db`` with its files read (``train``: a training
    corpus for word frequencies; ``labels``: the reference's label file, then optionally
    one per system): the one composition the command line and the API share."""
    corpus = corpus_from_database(db, systems, options, reference=reference)
    counts = None if train is None else read_train_counts(train, options.tokenization,
                                                          options.case)
    label_data = None if labels is None else read_labels(corpus, labels, len(db.sources))
    settings = AnalysisSettings(measure=measure, top_ngrams=top, top_examples=examples,
                                samples=samples, seed=seed)
    return analyze_systems(corpus, measure=measure, options=options, train_counts=counts,
                           labels=label_data, settings=settings)
