"""Text preparation: tokenisation and case (:mod:`.preprocess`, thesis ch. 5),
reference-length rules (:mod:`.reflength`, thesis §5.3), word-dependent substitution
costs (:mod:`.subcosts`, thesis §4.5) and the alignment of a sentence pair
(:mod:`.alignment`)."""
