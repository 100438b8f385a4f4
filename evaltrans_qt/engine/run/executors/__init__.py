"""Executors of a run's units of work: serial and local processes (:mod:`.local`), Dask
(:mod:`.dask`, the ``[cluster]`` extra, imported only when chosen)."""
