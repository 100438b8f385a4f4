"""Error-span annotation (MQM, ESA): the span model, typologies, weights and scores (no Qt).

* :mod:`.model` -- an error span, one judge's annotation of a candidate, typologies;
* :mod:`.weights` -- mt-metrics-eval's weight specs (most specific match wins);
* :mod:`.scores` -- MQM and ESA segment and system scores, per-category counts.
"""
