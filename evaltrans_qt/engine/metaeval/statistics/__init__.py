"""Statistics of meta-evaluation (Qt-free, numpy): correlation coefficients over weighted
samples (:mod:`.coefficients`), WMT tau variants (:mod:`.wmt`), regression lines
(:mod:`.regression`) and bootstrap weights and intervals (:mod:`.bootstrap`).

Orchestration over runs and databases is :mod:`evaltrans_qt.engine.metaeval.correlation`.
"""
