"""Human judgements: system scores from human scores (:mod:`.scores`, thesis §5.5),
protocol scores (:mod:`.protocol_scores`), relative ranking (:mod:`.ranking`), judge
agreement (:mod:`.agreement`), the database method (:mod:`.similar`), SegRanks
(:mod:`.segranks`) and reuse for unseen systems (:mod:`.unseen`)."""
