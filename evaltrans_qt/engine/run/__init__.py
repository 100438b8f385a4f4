"""The run pipeline: a corpus tokenised once (:mod:`.corpus`), units of work
(:mod:`.work`) scheduled (:mod:`.schedule`) onto an executor (:mod:`.executors`),
driven by :mod:`.driver` into frozen results (:mod:`.results`) with signatures
(:mod:`.signature`) and tables (:mod:`.tables`); :mod:`.scoring` scores lists of strings."""
