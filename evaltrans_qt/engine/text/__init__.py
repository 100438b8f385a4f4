"""Text preparation: tokenisation and case (:mod:`.preprocess`, thesis ch. 5),
reference-length rules (:mod:`.reflength`, thesis §5.3), word-dependent substitution
costs (:mod:`.subcosts`, thesis §4.5), the alignment of a sentence pair
(:mod:`.alignment`) and its automatic error classes (:mod:`.error_classes`, Popović & Ney
2011 §3, as Hjerson)."""
