"""Inspecting outputs: system-against-system analysis in the manner of compare-mt
(Neubig et al. 2019) and automatic error classification (Popović & Ney 2011)."""
