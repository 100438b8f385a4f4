"""Recreate ``hjerson_outputs.json``: hand-written and random sentences (with base forms)
run through Hjerson itself (github.com/m-popovic/hjerson, commit def709b4d5d7, GPL: not
vendored here), its sentence counts (``-s``) and word classes (the colours of ``-m``: blue
is a missing reference word / an extra candidate word) recorded for
``test_error_classes_hjerson.py``.

    python3 make_hjerson_outputs.py /path/to/hjerson.py 60 hjerson_outputs.json
    python3 make_hjerson_outputs.py /path/to/hjerson.py 60 hjerson_prefix4.json prefix4

``hjerson_stdout_2refs.txt`` is Hjerson's stdout (``-s``) for the sentences of
``hjerson_outputs.json`` with two references, written as Hjerson reads them (references
and their base forms joined by ``#+``), for ``tests/cli/test_errorclasses_cli.py``.

With ``prefix4`` Hjerson gets no base-form files and uses its own fallback (the first four
letters of each word); the recorded base forms are then those four-letter prefixes.
"""
import json
import random
import re
import subprocess
import sys
import tempfile

random.seed(31)
HJ = sys.argv[1]
PREFIX4 = sys.argv[4:] == ["prefix4"]
TMP = tempfile.mkdtemp()
vocab = ["the", "a", "house", "houses", "cat", "cats", "sees", "see", "saw", "big", "bigger",
         "red", "on", "in", "table", "tables", "and", "of", ".", ",", "dog", "dogs", "runs", "ran"]
def base(w):
    return {"saw": "see", "sees": "see", "ran": "run", "runs": "run", "bigger": "big"}.get(w, w[:-1] if w.endswith("s") and len(w) > 3 else w)
hand = [
    ("the cat sees the red house .", "the cats see a red house ."),
    ("the house is big and red .", "the house big red is ."),
    ("he went home yesterday .", "yesterday he goes to home ."),
    ("a cat and a dog", "a dog and a cat"),
    ("the the cat", "the cat cat the"),
    ("one two three", ""),
    ("we have seen the results of the vote .", "we see the result of the voting ."),
]
hand_multi = [
    (["the cat sat on the mat .", "a cat was sitting on the mat ."], "a cat sat on a mat ."),
    (["there is a dog", "a dog is there"], "a dog there is"),
]
def hb(s):
    if PREFIX4:
        return " ".join(w[:4] for w in s.split())
    return " ".join(base(w) for w in s.split())
cases = []
for r, h in hand:
    cases.append(([r], h))
for rs, h in hand_multi:
    cases.append((rs, h))
for _ in int(sys.argv[2]) * [0]:
    nref = random.choice([1, 1, 2, 3])
    rs = [" ".join(random.choice(vocab) for _ in range(random.randint(1, 12))) for _ in range(nref)]
    h = " ".join(random.choice(vocab) for _ in range(random.randint(0, 12)))
    cases.append((rs, h))
with open(TMP + "/r", "w") as f:
    f.write("".join(" #+ ".join(rs) + "\n" for rs, h in cases))
with open(TMP + "/rb", "w") as f:
    f.write("".join(" #+ ".join(hb(r) for r in rs) + "\n" for rs, h in cases))
with open(TMP + "/h", "w") as f:
    f.write("".join(h + "\n" for rs, h in cases))
with open(TMP + "/hb", "w") as f:
    f.write("".join(hb(h) + "\n" for rs, h in cases))
cmd = ["python3", HJ, "-R", TMP + "/r", "-H", TMP + "/h", "-B", TMP + "/rb", "-b", TMP + "/hb", "-s", "-m", TMP + "/out.html"]
if PREFIX4:
    cmd = [c for c in cmd if c not in ("-B", "-b", TMP + "/rb", TMP + "/hb")]
out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
sent = {}
total = {}
for line in out.splitlines():
    m = re.match(r"(\d+)::(\w+):\s*\t(\d+)\t", line)
    if m:
        sent.setdefault(int(m.group(1)), {})[m.group(2)] = int(m.group(3))
        continue
    m = re.match(r"(\w+):\s*\t(\d+)\t([\d.]+)", line)
    if m:
        total[m.group(1)] = [int(m.group(2)), float(m.group(3))]
COL = {"fuchsia": "infl", "lime": "reord", "red": "lex", "blue": None}
def parse(line):
    toks = re.findall(r"<font color=(\w+)>(.*?)</font>|(\S+)", line)
    out = []
    for col, _w, plain in toks:
        out.append("x" if plain else COL[col])
    return out
doc = open(TMP + "/out.html").read()
hyps = [l.split("</u>", 1)[1] for l in doc.splitlines() if l.startswith("<u>HYP:</u>")]
refs = [l.split("</u>", 1)[1] for l in doc.splitlines() if l.startswith("<u>REF:</u>")]
res = []
for k, (rs, h) in enumerate(cases):
    hc = ["ext" if c is None else c for c in parse(hyps[k])]
    rc = ["miss" if c is None else c for c in parse(refs[k])]
    res.append({"refs": rs, "hyp": h, "ref_bases": [hb(r) for r in rs], "hyp_bases": hb(h),
                "hyp_classes": hc, "ref_classes": rc, "counts": sent[k + 1]})
json.dump({"command": "python3 hjerson.py -R r -H h " + ("" if PREFIX4 else "-B rb -b hb ") + "-s -m out.html", "hjerson_commit": "def709b4d5d7176a0556789e12a58f1276c29c1b", "total": total, "sentences": res}, open(sys.argv[3], "w"), indent=0, ensure_ascii=False)
print(total)
