"""Meta-evaluation: correlation of measures with human scores (:mod:`.correlation`,
thesis ch. 6) with :mod:`.statistics`, significance (:mod:`.significance`), the WMT
metrics task (:mod:`.metrics_task`, :mod:`.wmt14_tables`), ORANGE (:mod:`.orange`) and
measure combination (:mod:`.combination`)."""
