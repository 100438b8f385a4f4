"""``evaltrans score``: a drop-in for the ``sacrebleu`` command.

::

    evaltrans score REF [REF ...] -i HYP [HYP ...] -m bleu chrf ter [wer cder nist ...]
    cat HYP | evaltrans score REF -m bleu -f text
    evaltrans score REF -i BASE SYS1 SYS2 -m bleu chrf --paired-bs

Accepts sacreBLEU 2.x's flags with its defaults (``sacrebleu/sacrebleu.py``
``parse_args``) and prints what it prints (``sacrebleu/utils.py``
``print_single_results`` / ``print_results_table``, ``metrics/base.py``
``Score.format``): the same JSON keys and values, the same text lines and
tables, the same signatures, with the numbers of our engine
(:mod:`evaltrans_qt.engine.run.scoring`). Each metric's options start from the
preset ``sacrebleu`` (BLEU exp smoothing, chrF 6/0/β 2, TER on the tercom
tokenizer, case-insensitive); sentence-level BLEU uses effective order, as
sacreBLEU sets it. ``-m`` also takes every measure of our registry (wer, per,
cder, nist, invwer, ...), which print an extended signature; their options are
our batch flags (``--tokenization``, ``--case``, ``--wer-ref-length-rule``,
...), and ``-tok``/``-lc`` apply to them when those are not given.

Differences from sacreBLEU: nothing is ever downloaded -- test-set names
(``-t``, ``--echo``, ``--download``, ``--list``, ``--citation``) and the
sentencepiece tokenizers (``spm``, ``flores101``, ``flores200``, ``spBLEU-1K``)
are errors (exit 2); bad input exits with 2 (sacreBLEU: 1); no terminal colours.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from evaltrans_qt.cli._common import (
    add_preset_argument,
    number,
    option_metavar,
    option_values,
    options_from_args,
    refuse_unused_options,
    sentences_path,
)
from evaltrans_qt.cli.progress import ProgressBar, add_progress_argument, progress_for

if TYPE_CHECKING:
    from evaltrans_qt.engine.options import EvalOptions

#: Seconds before ``score``'s bar appears under ``--progress auto`` (a short run prints
#: nothing beyond what sacreBLEU prints).
SHOW_AFTER = 5.0

#: What ``evaltrans score --help`` says (plain text for users).
DESCRIPTION = """\
Score hypotheses against references like the sacrebleu command: its flags, defaults,
output, and signatures, with the numbers of evaltrans.

examples:
  evaltrans score REF [REF ...] -i HYP [HYP ...] -m bleu chrf ter [wer cder nist ...]
  cat HYP | evaltrans score REF -m bleu -f text
  evaltrans score REF -i BASE SYS1 SYS2 -m bleu chrf --paired-bs

-m also takes the measures of evaltrans (wer, per, cder, nist, invwer, ...), whose
options are the evaltrans flags below. Nothing is ever downloaded: test-set names and the
sentencepiece tokenizers are errors (exit 2)."""

#: sacreBLEU's metrics (``-m`` choices of its command line).
SACREBLEU_METRICS = ("bleu", "chrf", "ter")
#: Tokenizers sacreBLEU accepts with ``-tok`` (metrics/bleu.py ``_TOKENIZERS``).
SACREBLEU_TOKENIZE = ("none", "zh", "13a", "intl", "char", "ja-mecab", "ko-mecab", "spm",
                      "flores101", "flores200", "spBLEU-1K")
#: Tokenizers that need a model download in sacreBLEU.
DOWNLOAD_TOKENIZERS = ("spm", "flores101", "flores200", "spBLEU-1K")
#: sacreBLEU's language-specific default tokenizers (metrics/bleu.py ``_TOKENIZER_MAP``).
LANG_TOKENIZERS = {"zh": "zh", "ja": "ja-mecab", "ko": "ko-mecab"}
#: Our option flags that sacreBLEU also has under the same name (its flag is used).
_SHARED_FLAGS = {"chrf-char-order", "chrf-word-order", "chrf-beta", "chrf-whitespace",
                 "chrf-eps-smoothing", "ter-normalized", "ter-no-punct", "ter-asian-support"}
OUTPUT_FORMATS = ("json", "text", "latex")
#: sacreBLEU's defaults of the sample counts (None on the parser: given or not is checked).
DEFAULT_N = {"confidence_n": 1000, "paired_ar_n": 10000, "paired_bs_n": 1000}
#: sacreBLEU's per-metric flags: (argument name, flag, metric that uses it).
METRIC_FLAGS = (("chrf_char_order", "--chrf-char-order", "chrf"),
                ("chrf_word_order", "--chrf-word-order", "chrf"),
                ("chrf_beta", "--chrf-beta", "chrf"),
                ("chrf_whitespace", "--chrf-whitespace", "chrf"),
                ("chrf_lowercase", "--chrf-lowercase", "chrf"),
                ("chrf_eps_smoothing", "--chrf-eps-smoothing", "chrf"),
                ("ter_case_sensitive", "--ter-case-sensitive", "ter"),
                ("ter_asian_support", "--ter-asian-support", "ter"),
                ("ter_no_punct", "--ter-no-punct", "ter"),
                ("ter_normalized", "--ter-normalized", "ter"),
                ("bleu_smooth_method", "--smooth-method", "bleu"),
                ("bleu_smooth_value", "--smooth-value", "bleu"),
                ("bleu_force", "--force", "bleu"))


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "score", help="score hypotheses against references like the sacrebleu command",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(p)
    p.set_defaults(func=run)


def add_arguments(p: argparse.ArgumentParser) -> None:
    """sacreBLEU's arguments (same names, short forms and defaults) plus our options."""
    p.add_argument("--citation", "--cite", default=False, action="store_true",
                   help="(sacreBLEU: print a test set's citation) not available: no test sets")
    p.add_argument("--list", default=False, action="store_true",
                   help="(sacreBLEU: list test sets) not available: no test sets")
    p.add_argument("--test-set", "-t", default=None,
                   help="(sacreBLEU: a named test set) not available: give reference files")
    p.add_argument("--language-pair", "-l", dest="langpair", default=None,
                   help="source-target language pair; the target picks BLEU's default "
                        "tokenizer (zh, ja-mecab, ko-mecab, else 13a)")
    p.add_argument("--origlang", "-ol", default=None, help="(needs a test set) not available")
    p.add_argument("--subset", default=None, help="(needs a test set) not available")
    p.add_argument("--download", default=None, help="(sacreBLEU: download) not available")
    p.add_argument("--echo", nargs="+", default=None, help="(needs a test set) not available")
    p.add_argument("--input", "-i", nargs="*", default=None,
                   help="hypothesis file(s), one segment per line (default: stdin, systems "
                        "separated by tabs)")
    p.add_argument("refs", nargs="*", default=[],
                   help="reference file(s); give them before -i/--input")
    p.add_argument("--num-refs", "-nr", type=int, default=1,
                   help="split each reference line on tabs into this many references "
                        "(default: %(default)s)")
    p.add_argument("--encoding", "-e", default="utf-8",
                   help="encoding of the text files (default: %(default)s)")
    p.add_argument("--metrics", "-m", nargs="+", default=["bleu"], metavar="METRIC",
                   help="bleu, chrf, ter (sacreBLEU's) or any measure of ours: wer, per, cder, "
                        "nist, ... (default: bleu)")
    p.add_argument("--sentence-level", "-sl", action="store_true",
                   help="score each sentence")
    b = p.add_argument_group("BLEU (sacreBLEU's flags)")
    b.add_argument("--smooth-method", "-s", dest="bleu_smooth_method", default=None,
                   choices=("none", "floor", "add-k", "exp"),
                   help="smoothing: exp (default), floor, add-k, none")
    b.add_argument("--smooth-value", "-sv", dest="bleu_smooth_value", type=float, default=None,
                   help="value of floor (default 0.1) and add-k (default 1)")
    b.add_argument("--tokenize", "-tok", dest="bleu_tokenize", default=None,
                   choices=SACREBLEU_TOKENIZE,
                   help="BLEU's tokenizer (default: by target language, else 13a)")
    b.add_argument("--lowercase", "-lc", dest="bleu_lowercase", action="store_true",
                   default=False, help="case-insensitive BLEU")
    b.add_argument("--force", dest="bleu_force", action="store_true", default=False,
                   help="do not warn about tokenized-looking input")
    c = p.add_argument_group("chrF (sacreBLEU's flags)")
    c.add_argument("--chrf-char-order", "-cc", type=int, default=None,
                   help="character n-gram order (default: 6)")
    c.add_argument("--chrf-word-order", "-cw", type=int, default=None,
                   help="word n-gram order (default: 0; 2 = chrF++)")
    c.add_argument("--chrf-beta", type=int, default=None, help="recall weight (default: 2)")
    c.add_argument("--chrf-whitespace", action="store_true", default=False,
                   help="keep whitespace in character n-grams")
    c.add_argument("--chrf-lowercase", action="store_true", default=False,
                   help="case-insensitive chrF")
    c.add_argument("--chrf-eps-smoothing", action="store_true", default=False,
                   help="eps smoothing (chrF++.py, NLTK, Moses) instead of effective order")
    t = p.add_argument_group("TER (sacreBLEU's flags; the defaults replicate tercom)")
    t.add_argument("--ter-case-sensitive", action="store_true", help="case-sensitive TER")
    t.add_argument("--ter-asian-support", action="store_true", help="split Asian characters")
    t.add_argument("--ter-no-punct", action="store_true", help="remove punctuation")
    t.add_argument("--ter-normalized", action="store_true",
                   help="tercom's normalisation and tokenisation")
    s = p.add_argument_group("confidence intervals and paired tests (sacreBLEU's flags)")
    s.add_argument("--confidence", "-ci", action="store_true",
                   help="bootstrap confidence interval (one system)")
    s.add_argument("--confidence-n", "-cin", type=int, default=None,
                   help=f"bootstrap resamples for --confidence (default: {DEFAULT_N['confidence_n']})")
    pair = s.add_mutually_exclusive_group()
    pair.add_argument("--paired-ar", "-par", action="store_true",
                      help="approximate randomization test of every system against the first")
    pair.add_argument("--paired-bs", "-pbs", action="store_true",
                      help="paired bootstrap resampling test against the first system")
    s.add_argument("--paired-ar-n", "-parn", type=int, default=None,
                   help=f"trials of --paired-ar (default: {DEFAULT_N['paired_ar_n']})")
    s.add_argument("--paired-bs-n", "-pbsn", type=int, default=None,
                   help=f"resamples of --paired-bs (default: {DEFAULT_N['paired_bs_n']})")
    s.add_argument("--paired-jobs", "-j", type=int, default=None,
                   help="accepted for compatibility with a paired test; the tests are "
                        "vectorised, so it changes nothing (said on stderr)")
    r = p.add_argument_group("reporting (sacreBLEU's flags)")
    r.add_argument("--quiet", "-q", default=False, action="store_true",
                   help="no messages on stderr")
    r.add_argument("--short", "-sh", default=False, action="store_true",
                   help="short signatures")
    r.add_argument("--score-only", "-b", default=False, action="store_true",
                   help="print only the score")
    r.add_argument("--width", "-w", type=int, default=1,
                   help="decimals (default: %(default)s)")
    r.add_argument("--detail", "-d", default=False, action="store_true",
                   help="(needs a test set's origlang) prints that none is known")
    r.add_argument("--no-color", "-nc", action="store_true", help="no colours (never any)")
    r.add_argument("--sentences", metavar="FILE.tsv|.jsonl", default=None, type=sentences_path,
                   help="also write every sentence's value of every metric (system, segment = "
                        "line number, one column per metric in the printed units) with the "
                        "signatures, as TSV or JSON Lines by the file name")
    r.add_argument("--format", "-f", default="json", choices=OUTPUT_FORMATS,
                   help="json or text (one system), text or latex (several); the "
                        "SACREBLEU_FORMAT environment variable overrides it (default: json)")
    add_progress_argument(r, default=None, default_text=f"auto, which shows nothing in the "
                          f"first {SHOW_AFTER:.0f} s; never with --quiet")
    _add_our_options(p)


def _add_our_options(p: argparse.ArgumentParser) -> None:
    """``--preset`` (default ``sacrebleu``) and our option flags, stored as ``et_<field>``
    (sacreBLEU's own flags above keep their names and win)."""
    from evaltrans_qt.engine.options import option_fields
    g = p.add_argument_group("evaltrans options (every measure; sacreBLEU's flags above win)")
    add_preset_argument(g, default="sacrebleu",
                        help="options to start from (default: %(default)s)")
    for f in option_fields():
        md = f.metadata
        if md["flag"] in _SHARED_FLAGS or md["group"] == "general" and md["flag"] == "extrapolate":
            continue
        if md.get("kind") == "flag":
            g.add_argument(f"--{md['flag']}", dest=f"et_{f.name}", action="store_true",
                           default=None, help=md["help"].replace("%", "%%"))
        else:
            g.add_argument(f"--{md['flag']}", dest=f"et_{f.name}", default=None,
                           choices=md["choices"],
                           metavar=None if md["choices"] else option_metavar(f),
                           help=md["help"].replace("%", "%%"))


# --------------------------------------------------------------------------- options
def base_options(args: argparse.Namespace) -> EvalOptions:
    """The preset (default ``sacrebleu``) with our option flags applied."""
    return options_from_args(args, prefix="et_", preset="sacrebleu")


def _tokenization(name: str) -> str:
    from evaltrans_qt.engine.options import SACREBLEU_TOKENIZERS
    from evaltrans_qt.errors import OptionError
    if name in DOWNLOAD_TOKENIZERS:
        raise OptionError(f"-tok {name}: the sentencepiece tokenizers need a model download, "
                          "which evaltrans score never does")
    return SACREBLEU_TOKENIZERS[name]


def metric_options(args: argparse.Namespace, name: str):
    """``EvalOptions`` of one metric from sacreBLEU's flags (sacreBLEU ``args_to_dict``)."""
    o = base_options(args)
    ours_tok = getattr(args, "et_tokenization", None) is not None
    ours_case = getattr(args, "et_case", None) is not None
    if name == "bleu":
        tok = args.bleu_tokenize
        if tok is None and args.langpair and "-" in args.langpair:
            tok = LANG_TOKENIZERS.get(args.langpair.split("-")[1])
        ch: dict[str, Any] = {}
        if tok is not None:
            ch["tokenization"] = _tokenization(tok)
        if args.bleu_lowercase:
            ch["case"] = "ignore"
        if args.bleu_smooth_method is not None:
            ch["bleu_smooth_method"] = args.bleu_smooth_method
        if args.bleu_smooth_value is not None:
            ch["bleu_smooth_value"] = args.bleu_smooth_value
        if args.sentence_level:
            ch["bleu_effective_order"] = True      # sacreBLEU >= 2.0 does this for -sl
        return o.replace(**ch)
    if name == "chrf":
        ch = {}
        for flag in ("char_order", "word_order", "beta"):
            v = getattr(args, f"chrf_{flag}")
            if v is not None:
                ch[f"chrf_{flag}"] = v
        if args.chrf_whitespace:
            ch["chrf_whitespace"] = True
        if args.chrf_eps_smoothing:
            ch["chrf_eps_smoothing"] = True
        if args.chrf_lowercase:
            ch["chrf_case"] = "ignore"
        return o.replace(**ch)
    if name == "ter":
        ch = {"ter_normalized": args.ter_normalized or o.ter_normalized,
              "ter_no_punct": args.ter_no_punct or o.ter_no_punct,
              "ter_asian_support": args.ter_asian_support or o.ter_asian_support}
        if args.ter_case_sensitive:
            ch["ter_case"] = "use"
        return o.replace(**ch)
    ch = {}
    if args.bleu_tokenize is not None and not ours_tok:
        ch["tokenization"] = _tokenization(args.bleu_tokenize)
    if args.bleu_lowercase and not ours_case:
        ch["case"] = "ignore"
    return o.replace(**ch)


# --------------------------------------------------------------------------- input
def _open(path: str, encoding: str):
    try:
        if path.endswith(".gz"):
            import gzip
            return gzip.open(path, mode="rt", encoding=encoding, newline="\n")
        return open(path, encoding=encoding, newline="\n")
    except OSError as exc:
        from evaltrans_qt.errors import InputFormatError
        raise InputFormatError(f"cannot open: {exc.strerror}", path) from None


def _bad_byte(path: str, encoding: str) -> tuple[int, int, int]:
    """(line, column, byte) of the first byte of ``path`` that is not valid ``encoding``,
    both 1-based and counted in bytes, as every other reader of evaltrans reports it
    (``io/plaintext.py`` ``read_text``)."""
    if path.endswith(".gz"):
        import gzip
        with gzip.open(path, "rb") as fh:
            data = fh.read()
    else:
        with open(path, "rb") as fh:
            data = fh.read()
    try:
        data.decode(encoding)
    except UnicodeDecodeError as exc:
        start = exc.start
    else:                               # pragma: no cover - the stream failed, bytes do not
        return 1, 1, 0
    line = data.count(b"\n", 0, start) + 1
    return line, start - (data.rfind(b"\n", 0, start) + 1) + 1, data[start]


def read_lines(path: str, encoding: str) -> list[str]:
    """Lines split on "\\n" only and right-stripped (sacreBLEU ``smart_open`` + ``rstrip``)."""
    from evaltrans_qt.errors import InputFormatError
    try:
        with _open(path, encoding) as fh:
            return [line.rstrip() for line in fh]
    except UnicodeDecodeError:
        line, col, byte = _bad_byte(path, encoding)
        raise InputFormatError(f"not valid {encoding} (byte 0x{byte:02x}); give the right "
                               "encoding (-e)", path, line, col) from None
    except LookupError:
        raise InputFormatError(f"unknown encoding '{encoding}'", path) from None


def read_references(args: argparse.Namespace) -> list[list[str]]:
    """Reference streams (sacreBLEU: ``--num-refs`` splits each line on tabs)."""
    from evaltrans_qt.errors import InputFormatError
    streams: list[list[str]] = [[] for _ in range(max(len(args.refs), args.num_refs))]
    for refno, path in enumerate(args.refs):
        for lineno, line in enumerate(read_lines(path, args.encoding), 1):
            if args.num_refs == 1:
                streams[refno].append(line)
                continue
            fields = line.split("\t", args.num_refs - 1)
            if len(fields) != args.num_refs:
                raise InputFormatError(f"expected {args.num_refs} tab-separated references, "
                                       f"found {len(fields)}", path, lineno)
            for k, ref in enumerate(fields):
                streams[k].append(ref)
    return streams


def read_systems(args: argparse.Namespace, paired: bool) -> tuple[list[list[str]], list[str]]:
    """Systems and their names (sacreBLEU: files, or tab-separated columns of stdin)."""
    from evaltrans_qt.errors import InputFormatError, OptionError
    if args.input is None:
        fh = io.TextIOWrapper(sys.stdin.buffer, encoding=args.encoding)
        try:
            first = fh.readline().rstrip().split("\t")
            systems = [[s] for s in first]
            for lineno, line in enumerate(fh, 2):
                fields = line.rstrip().split("\t")
                if len(fields) != len(systems):
                    raise InputFormatError("the number of tab-separated systems differs "
                                           "across lines", "<stdin>", lineno)
                for k, sent in enumerate(fields):
                    systems[k].append(sent.rstrip())
        except UnicodeDecodeError as exc:
            raise InputFormatError(f"not valid {args.encoding}: {exc.reason}", "<stdin>") from None
        names = [f"System {i + 1}" for i in range(len(systems))]
        if paired:
            names = ["Baseline"] + [f"System {i + 1}" for i in range(len(systems) - 1)]
        return systems, names
    systems, names = [], []
    for path in args.input:
        if path in names:
            if paired and path == names[0]:
                continue                      # sacreBLEU ignores the baseline given twice
            raise OptionError(f"'{path}' is already used to name a system; give each system "
                              "a different file name")
        systems.append(read_lines(path, args.encoding))
        names.append(path)
    if paired and names:
        names[0] = f"Baseline: {names[0]}"
    return systems, names


def _check_args(args: argparse.Namespace) -> None:
    from evaltrans_qt.errors import OptionError
    for flag, value in (("-t/--test-set", args.test_set), ("--echo", args.echo),
                        ("--download", args.download), ("--list", args.list or None),
                        ("--citation", args.citation or None), ("--origlang", args.origlang),
                        ("--subset", args.subset)):
        if value:
            raise OptionError(f"{flag}: evaltrans score has no built-in test sets and never "
                              "downloads anything; give the reference files instead "
                              "(evaltrans score REF [REF ...] -i HYP)")
    if not args.refs:
        raise OptionError("no reference file given: evaltrans score REF [REF ...] -i HYP "
                          "(references before -i/--input)")
    if args.num_refs < 1:
        raise OptionError(f"--num-refs must be at least 1, not {args.num_refs}")
    if args.num_refs != 1 and len(args.refs) > 1:
        raise OptionError("--num-refs splits one reference file on tabs; it cannot be used "
                          "with several reference files")
    if args.sentence_level and len(args.metrics) > 1:
        raise OptionError("only one metric can be used in sentence-level mode (-sl)")
    if args.width < 0:
        raise OptionError(f"--width must not be negative, not {args.width}")
    _check_used(args)


def _check_used(args: argparse.Namespace) -> None:
    """Refuse every flag this run would not use (nothing is ignored silently, unlike
    sacreBLEU): a metric's flags without that metric in ``-m``, sample counts without
    their test, ``--short`` with JSON output, ``-tok``/``-lc``/``-l`` with no metric they
    apply to, and evaluation options none of the metrics uses. Then fills in the sample
    counts' defaults."""
    from evaltrans_qt.errors import OptionError
    metrics = [m.lower() for m in args.metrics]
    for dest, flag, metric in METRIC_FLAGS:
        if getattr(args, dest) not in (None, False) and metric not in metrics:
            raise OptionError(f"{flag} is a {metric} flag, but -m does not compute {metric} "
                              f"(-m {' '.join(args.metrics)})")
    ours = [m for m in metrics if m not in ("chrf", "ter")]
    for dest, flag in (("bleu_tokenize", "--tokenize"), ("bleu_lowercase", "--lowercase"),
                       ("langpair", "--language-pair")):
        if getattr(args, dest) not in (None, False) and not ours:
            raise OptionError(f"{flag} applies to BLEU and the measures of evaltrans, not to "
                              f"-m {' '.join(args.metrics)}")
    paired = args.paired_bs or args.paired_ar
    for dest, needs, on in (("confidence_n", "--confidence", args.confidence),
                            ("paired_ar_n", "--paired-ar", args.paired_ar),
                            ("paired_bs_n", "--paired-bs", args.paired_bs),
                            ("paired_jobs", "--paired-bs or --paired-ar", paired)):
        if getattr(args, dest) is not None and not on:
            raise OptionError(f"--{dest.replace('_', '-')} is used only with {needs}")
    if args.paired_jobs is not None:
        print("evaltrans score: --paired-jobs: the paired tests are vectorised; the number of "
              "jobs changes nothing", file=sys.stderr)
    env = os.environ.get("SACREBLEU_FORMAT", "").lower()
    fmt = env if env in OUTPUT_FORMATS else args.format
    if args.short and fmt == "json" and not args.sentence_level:
        raise OptionError("--short shortens the signatures of -f text and latex; the JSON "
                          "output has the full signature (as sacreBLEU's)")
    for dest, default in DEFAULT_N.items():
        if getattr(args, dest) is None:
            setattr(args, dest, default)
    if option_values(args, "et_"):
        from evaltrans_qt.engine.measures import get as get_measure
        refuse_unused_options(args, [get_measure(m).name for m in metrics],
                              f"-m computes {' '.join(args.metrics)}", prefix="et_")


# --------------------------------------------------------------------------- output
def format_score(sc, width: int, score_only: bool, signature: str, is_json: bool,
                 mean: float = -1.0, ci: float = -1.0) -> str:
    """sacreBLEU ``Score.format`` (metrics/base.py) for one of our scores."""
    spec = f".{width}f"
    text = number(sc.score, spec, missing="nan")
    d: dict[str, Any] = {"name": sc.name, "score": float(text), "signature": signature}
    if mean > 0:
        cm, cv = number(mean, spec, missing="nan"), number(ci, spec, missing="nan")
        conf = f"μ = {cm} ± {cv}"
        text += f" ({conf})"
        if is_json:
            d["confidence_mean"] = float(cm)
            d["confidence_var"] = float(cv)
            d["confidence"] = conf
    full = f"{sc.name}|{signature}" if signature else sc.name
    full = f"{full} = {text}"
    if sc.verbose:
        full += f" {sc.verbose}"
        d["verbose_score"] = sc.verbose
    if score_only:
        return text
    if is_json:
        for param in signature.split("|"):
            key, _, value = param.partition(":")
            d[key] = value
        return json.dumps(d, indent=1, ensure_ascii=False)
    return full


def print_single_results(results: list[str], fmt: str) -> None:
    """sacreBLEU ``utils.print_single_results`` (no colours)."""
    if fmt == "json":
        print("[\n" + ",\n".join(results) + "\n]" if len(results) > 1 else results[0])
        return
    if len(results) == 1:
        print(results[0])
        return
    lens = []
    for line in results:
        try:
            lens.append(line.index("=") - 1)
        except ValueError:
            print(line)
    if lens:
        w = max(lens)
        for n, line in zip(lens, results):
            print(f"{line[:n]:>{w}}{line[n:]}")


def _format_cells(scores: dict[str, list], width: int, multiline: bool) -> dict[str, list[str]]:
    """sacreBLEU ``utils._format_score_lines``: cells of paired-test results."""
    out = {"System": scores.pop("System")}
    brk = "\n" if multiline else " "
    is_bootstrap = False
    for metric, vals in scores.items():
        cells = []
        for r in vals:
            if isinstance(r, str):
                cells.append(r)
                continue
            s = number(r.score, f".{width}f", missing="nan")
            if r.mean is not None:
                is_bootstrap = True
                s += (f" ({number(r.mean, f'.{width}f', missing='nan')} ± "
                      f"{number(r.ci, f'.{width}f', missing='nan')})")
            if r.p_value is not None:
                p = f"(p = {number(r.p_value, '.4f', missing='nan')})"
                s += brk + (p if r.p_value > 0.05 else p + "*")
            cells.append(s)
        out[metric + (" (μ ± 95% CI)" if is_bootstrap else "")] = cells
    return out


def print_results_table(scores: dict[str, list], signatures: dict[str, str],
                        args: argparse.Namespace, fmt: str) -> None:
    """sacreBLEU ``utils.print_results_table`` (no colours)."""
    if fmt == "json":
        rows = []
        keys = list(scores)
        for i in range(len(scores["System"])):
            value: dict[str, Any] = {"system": scores["System"][i]}
            for k in keys[1:]:
                v = scores[k][i]
                value[k] = v if isinstance(v, str) else v.result_dict()
            rows.append(value)
        print(json.dumps(rows, indent=4))
        return
    from tabulate import tabulate
    tablefmt = "fancy_grid" if fmt == "text" else "latex_booktabs"
    cells = _format_cells(scores, args.width, multiline=tablefmt == "fancy_grid")
    baseline = ""
    for vals in cells.values():
        if vals and vals[0].startswith("Baseline:"):
            baseline = vals[0]
    print(tabulate(cells, headers="keys", tablefmt=tablefmt, colalign=("right",),
                   stralign="center", numalign="center", floatfmt=f".{args.width}f"))
    print()
    if args.paired_bs or args.paired_ar:
        bs = args.paired_bs
        n = args.paired_bs_n if bs else args.paired_ar_n
        msg = (f"Paired {'bootstrap resampling' if bs else 'approximate randomization'} test "
               f"with {n} {'resampling trials' if bs else 'trials'}")
        print("-" * len(msg) + "\n" + msg + "\n" + "-" * len(msg))
        print(f" - Each system is pairwise compared to {baseline}.")
        if bs:
            print("   Actual system score / bootstrap estimated true mean / 95% CI are provided "
                  "for each metric.")
        else:
            print("   Actual system score is provided for each metric.")
        print()
        print(" - Null hypothesis: the system and the baseline translations are essentially")
        print("   generated by the same underlying process. For a given system and the baseline,")
        print("   the p-value is roughly the probability of the absolute score difference (delta)")
        print("   or higher occurring due to chance, under the assumption that the null "
              "hypothesis is correct.")
        print()
        print(" - Assuming a significance threshold of 0.05, the null hypothesis can be rejected")
        print('   for p-values < 0.05 (marked with "*"). This means that the delta is unlikely '
              "to be attributed")
        print('   to chance, hence the system is significantly "different" than the baseline.')
        print("   Otherwise, the p-values are highlighted in red.")
        print()
        print(' - NOTE: Significance does not tell whether a system is "better" than the baseline '
              "but rather")
        print('   emphasizes the "difference" of the systems in terms of the replicability of '
              "the delta.")
        print()
    print("-----------------")
    print("Metric signatures")
    print("-----------------")
    for name, sig in signatures.items():
        print(f" - {name:<10} {sig}")


# --------------------------------------------------------------------------- run
def _log(args: argparse.Namespace, msg: str) -> None:
    if not args.quiet:
        print(f"evaltrans score: {msg}", file=sys.stderr)


def _seed_text() -> str:
    """sacreBLEU's seed as its signature prints it (``SACREBLEU_SEED`` or 12345, lower-cased)."""
    return os.environ.get("SACREBLEU_SEED", "12345").lower()


def _batch_score(scorer, name: str):
    """(B x k) summed statistics -> B scores in the printed units (percent for rates)."""
    import numpy as np

    from evaltrans_qt.engine.run.scoring import UNBOUNDED
    measure = scorer.measures[name]
    scale = 1.0 if name in UNBOUNDED else 100.0
    return lambda sums: scale * np.asarray(measure.score_values(np.atleast_2d(sums)), float)


def _confidence(scorer, name: str, stats, n: int) -> tuple[float, float]:
    """sacreBLEU ``_bootstrap_resample`` + ``Score.estimate_ci``: mean and 95% half-width of
    ``n`` resampled corpus scores (``default_rng(SACREBLEU_SEED)``, same draws)."""
    import numpy as np

    from evaltrans_qt.engine.metaeval.significance import (
        bootstrap_counts,
        estimate_ci,
        resolve_seed,
    )
    counts = bootstrap_counts(len(stats), n, resolve_seed("env"))
    mean, ci = estimate_ci(_batch_score(scorer, name)(counts @ np.asarray(stats, float)))[:2]
    return mean, ci


def _progress(args: argparse.Namespace) -> ProgressBar:
    """``--progress`` of ``score``: stdout stays sacreBLEU's, the bar is on stderr; without
    the option ``auto`` (``never`` with ``--quiet``), and a run shorter than
    :data:`SHOW_AFTER` seconds prints nothing."""
    if args.progress is None:
        args.progress = "never" if args.quiet else "auto"
    return progress_for(args, kernels=False, delay=SHOW_AFTER)


def run(args: argparse.Namespace) -> int:
    from evaltrans_qt.engine.measures import get as get_measure
    from evaltrans_qt.engine.run.scoring import Scorer
    from evaltrans_qt.errors import InputFormatError, OptionError

    _check_args(args)
    fmt = args.format
    env_fmt = os.environ.get("SACREBLEU_FORMAT", "").lower()
    if env_fmt in OUTPUT_FORMATS:
        fmt = env_fmt
    paired = args.paired_bs or args.paired_ar
    names = [get_measure(m).name for m in args.metrics]      # unknown measure: clear error
    refs = read_references(args)
    systems, sys_names = read_systems(args, paired)
    num_sys = len(systems)
    if args.sentence_level:
        if num_sys > 1:
            raise OptionError("only one system can be evaluated in sentence-level mode (-sl)")
        if args.confidence or paired:
            raise OptionError("statistical tests are unavailable in sentence-level mode (-sl)")
    if paired and num_sys == 1:
        raise OptionError("paired tests need several systems given to --input (-i)")
    if num_sys > 1 and args.confidence:
        raise OptionError("--confidence is for one system; use --paired-bs or --paired-ar "
                          "for several")
    for name, system in zip(sys_names, systems):
        if not system:
            raise InputFormatError("contains no sentence", name)
        if any(len(r) != len(system) for r in refs):
            raise InputFormatError(f"{len(system)} lines, but the reference file(s) have "
                                   f"{', '.join(str(len(r)) for r in refs)}: system and "
                                   "reference streams have different lengths", name)
    _warn_tokenized(args, names, systems)
    options = {n: metric_options(args, n) for n in names}
    order = list(dict.fromkeys(names))
    scorer = Scorer(refs, order, options)
    bar = _progress(args)
    if "numba" in sys.modules:
        # the measures loaded their compiled kernels (BLEU of a small input counts its
        # n-grams in Python and loads none): say so if numba is about to compile them
        bar.announce_compilation()
    units = num_sys * len(order) + (len(order) if paired else 0)
    all_stats = []
    for k, (sys_name, system) in enumerate(zip(sys_names, systems)):
        def step(measure: str, k: int = k, sys_name: str = sys_name) -> None:
            bar.step(k * len(order) + order.index(measure) + 1, units,
                     f"{measure} of {sys_name}")
        all_stats.append(scorer.stats(system, progress=step))
    if getattr(args, "sentences", None):
        write_sentences(args, scorer, order, sys_names, all_stats)

    # ---- sentence level (sacreBLEU: one metric, one system, always text lines)
    if args.sentence_level:
        name = order[0]
        sig = scorer.signature(name).format(args.short)
        out = []
        for row in all_stats[0][name]:
            sc = scorer.score_stats(name, row)
            out.append(format_score(sc, args.width, args.score_only, sig, False))
        print("\n".join(out))
        return 0

    if args.detail and fmt == "json":
        fmt = "text"
    # sacreBLEU iterates ``sorted(metrics)`` over the upper-cased names (one system, no test)
    by_upper = {n.upper(): n for n in order}
    if num_sys == 1:
        per_metric = all_stats[0]
        results = []
        for key in sorted(by_upper):
            name = by_upper[key]
            extra: dict[str, Any] = {}
            mean = ci = -1.0
            if args.confidence and args.confidence_n > 1:
                mean, ci = _confidence(scorer, name, per_metric[name], args.confidence_n)
                extra = {"bs": args.confidence_n, "seed": _seed_text()}
            sc = scorer.score_stats(name, per_metric[name].sum(axis=0))
            sig = scorer.signature(name, **extra).format(args.short if fmt != "json" else False)
            results.append(format_score(sc, args.width, args.score_only, sig, fmt == "json",
                                        mean, ci))
        print_single_results(results, fmt)
        if args.detail:
            print("No subset information found. Consider using --origlang argument.")
        return 0

    bar.break_line()
    _log(args, f"found {num_sys} systems")
    if not paired:
        sigs: dict[str, str] = {}
        table: dict[str, list] = {"System": sys_names}
        for st in all_stats:
            for key in sorted(by_upper):
                name = by_upper[key]
                sc = scorer.score_stats(name, st[name].sum(axis=0))
                sigs[sc.name] = scorer.signature(name).format(args.short)
                table.setdefault(sc.name, []).append(
                    format_score(sc, args.width, True, "", False))
        print_results_table(table, sigs, args, fmt)
        return 0

    from evaltrans_qt.engine.metaeval import significance as sig_mod
    test = "bs" if args.paired_bs else "ar"
    n_samples = args.paired_bs_n if args.paired_bs else args.paired_ar_n
    n_used = n_samples if n_samples > 0 else (1000 if test == "bs" else 10000)
    keys = [f"{i}" for i in range(num_sys)]                 # names may repeat after renaming
    sigs = {}
    table = {"System": sys_names}
    for name in order:                                       # sacreBLEU: the order given
        per_sys = {k: st[name] for k, st in zip(keys, all_stats)}
        hib = get_measure(name).higher_is_better
        if test == "bs":
            res = sig_mod.paired_bs_vs_baseline(per_sys, _batch_score(scorer, name),
                                                n_samples=n_used, seed="env",
                                                higher_is_better=hib)
        else:
            res = sig_mod.paired_ar_vs_baseline(per_sys, _batch_score(scorer, name),
                                                n_samples=n_used, seed="env",
                                                higher_is_better=hib)
        display = scorer.score_stats(name, all_stats[0][name].sum(axis=0)).name
        bar.step(num_sys * len(order) + order.index(name) + 1, units,
                 f"paired {test.upper()} test of {name}")
        table[display] = list(res.rows)
        sigs[display] = scorer.signature(name, seed=_seed_text(),
                                         **{test: n_used}).format(args.short)
    print_results_table(table, sigs, args, fmt)
    return 0


def write_sentences(args: argparse.Namespace, scorer, order: Sequence[str],
                    sys_names: Sequence[str], all_stats: Sequence[dict]) -> None:
    """``--sentences``: one row per system and line, one column per metric (its printed
    name and units, the same options as the corpus score), signatures by metric."""
    from evaltrans_qt.engine.run.scoring import UNBOUNDED, display_name
    from evaltrans_qt.io.sentences import write_sentences as write
    cols = {name: display_name(name, scorer.options[name]) for name in order}
    rows = []
    for k, (system, stats) in enumerate(zip(sys_names, all_stats)):
        if k == 0 and (args.paired_bs or args.paired_ar):
            system = system.removeprefix("Baseline: ")
        values = {}
        for name in order:
            m = scorer.measures[name]
            scale = 1.0 if name in UNBOUNDED else 100.0
            values[cols[name]] = [scale * float(m.score(row).value) for row in stats[name]]
        for i in range(len(stats[order[0]])):
            row: dict[str, str | float] = {"system": system, "segment": str(i + 1)}
            row.update({c: v[i] for c, v in values.items()})
            rows.append(row)
    sigs = {name: scorer.signature(name).format(args.short) for name in order}
    write(args.sentences, rows, ["system", "segment", *cols.values()], sigs)


def _warn_tokenized(args: argparse.Namespace, names: Sequence[str],
                    systems: Sequence[Sequence[str]]) -> None:
    """sacreBLEU's warning for BLEU on input that looks tokenised (>= 100 lines end in " .")."""
    if "bleu" not in names or args.bleu_force or args.quiet:
        return
    for system in systems:
        if sum(1 for h in system if h.endswith(" .")) >= 100:
            _log(args, "that's 100 lines that end in a tokenized period ('.'); it looks like "
                       "you forgot to detokenize your test data, which may hurt your score "
                       "(--force suppresses this message)")
            return
