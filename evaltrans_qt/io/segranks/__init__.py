"""SegRanks files (Macháček ch. 2, appendix B), Qt-free:

* ``trees``: Penn Treebank and CoNLL-U source trees, matched to the source tokens;
* ``alignments``: Pharaoh word alignments; eflomal when none are given;
* ``formats``: the extracted-segments TSV and the SegRanks JSON export;
* ``wmt_csv``: WMT13-16 relative-ranking judgement CSV files;
* ``etdb``: the ``<segranks>`` element of an ``.etdb.xml`` source;
* ``changes``: journal entries of ranking screens (crash-proof, undoable).

The computation is in ``engine/human/segranks/`` and ``engine/human/ranking.py``.
"""
