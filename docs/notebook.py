# %% [markdown]
# # evaltrans_qt from a notebook
#
# Percent-format notebook (open it in Jupyter with jupytext, VS Code or Spyder, or run
# it with `python docs/notebook.py`): load the demo database, score its systems, and
# see how well each measure follows the human fluency scores. The plot needs
# matplotlib; without it the numbers are printed. `tests/test_notebook.py` runs it.

# %%
import os

import evaltrans_qt as et
from evaltrans_qt.io.etdb import demo_database_path

db = et.Database.load(demo_database_path())
print(db)
db.to_frame().head()

# %% [markdown]
# ## Score every system
# sacreBLEU's BLEU, chrF and TER plus the thesis' WER and CDER, with sacreBLEU's defaults.

# %%
run = et.evaluate(db, ["bleu", "chrf", "ter", "wer", "cder"], preset="sacrebleu")
for measure, signature in run.signatures.items():
    print(f"{measure:5} {signature}")
run.systems[["system", "BLEU", "chrF", "TER", "WER", "CDER", "human:fluency"]]

# %% [markdown]
# ## Correlation with human fluency scores
# Sentence level: one point per scored candidate; 95% bootstrap intervals over sources.

# %%
corr = et.correlate(run, "fluency", level="sentence", samples=500)
corr[["measure", "n", "pearson", "pearson_low", "pearson_high", "spearman", "kendall"]]

# %%
try:
    import matplotlib.pyplot as plt
except ImportError:                      # no matplotlib: the numbers are the result
    plt = None
    print(corr[["measure", "pearson", "spearman", "kendall"]].to_string(index=False))

if plt is not None:
    scored = run.sentences.dropna(subset=["human:fluency"])
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    for system, rows in scored.groupby("system"):
        ax1.scatter(rows["chrF"], rows["human:fluency"], label=system, s=18)
    ax1.set_xlabel("chrF (sentence)")
    ax1.set_ylabel("human fluency")
    ax1.legend(fontsize=8)
    ax2.bar(corr["measure"], corr["pearson"],
            yerr=[corr["pearson"] - corr["pearson_low"], corr["pearson_high"] - corr["pearson"]])
    ax2.set_ylabel("Pearson r with fluency (95% CI)")
    fig.tight_layout()
    out = os.environ.get("EVALTRANS_NOTEBOOK_FIGURE")
    if out:
        fig.savefig(out)
    else:
        plt.show()

# %% [markdown]
# ## Are the systems significantly different?
# sacreBLEU's paired bootstrap resampling on BLEU: the p-value of every pair.

# %%
p = et.significance(run, "bleu", samples=1000)
p.round(4)
