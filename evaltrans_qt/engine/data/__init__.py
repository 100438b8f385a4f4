"""The data model: sources, targets, human scores (thesis Appendix A.2), score classes
(:mod:`.schemes`), the human-evaluation protocols' annotations (:mod:`.protocols`) and
merging databases (:mod:`.merge`, :mod:`.merge_protocols`)."""
