"""The campaign file (``NAME.etcampaign.json``, ``docs/campaigns.md``): reading, writing and
creating one from a database (:mod:`evaltrans_qt.engine.campaign.definition` is the model).

The file is the definition's JSON object (pretty-printed, sorted keys) plus its
``campaign_id``; the ``database`` path is relative to the campaign file's folder, so the
two can move together. Reading checks the stored id against the content: a campaign file
edited after its bundles were made would no longer match them, so that is an error naming
the file (make the campaign again and new bundles).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from evaltrans_qt.engine.campaign.definition import (
    DEFAULT_RANK_SIZE,
    PROTOCOLS,
    CampaignError,
    Definition,
    QCPlan,
    TutorialItem,
    check_definition,
    database_items,
    fingerprint,
    from_dict,
    tutorial_item,
)
from evaltrans_qt.engine.data.database import Database, Levels
from evaltrans_qt.engine.data.schemes import continuous, template
from evaltrans_qt.engine.human.ranking import RANK_CLASS, ensure_rank_class
from evaltrans_qt.engine.human.spans.scores import ESA_CLASS
from evaltrans_qt.errors import EvalTransError
from evaltrans_qt.io.atomic import atomic_write_bytes
from evaltrans_qt.io.etdb import load_database
from evaltrans_qt.io.limits import load_json
from evaltrans_qt.io.plaintext import read_input_bytes, read_text

PathLike = str | os.PathLike[str]


def dumps_campaign(d: Definition) -> bytes:
    """The bytes of the campaign file of ``d`` (deterministic)."""
    obj = {**d.to_dict(), "campaign_id": d.campaign_id}
    return (json.dumps(obj, sort_keys=True, indent=1, ensure_ascii=False) + "\n").encode()


def write_campaign(d: Definition, path: PathLike) -> None:
    """Write the campaign file atomically."""
    atomic_write_bytes(path, dumps_campaign(d))


def read_campaign(path: PathLike) -> Definition:
    """The definition in the campaign file at ``path``; :class:`CampaignError` naming the
    file when it is not one, is malformed, or was edited after it was made."""
    data = read_input_bytes(path, "a campaign file (.etcampaign.json)")
    try:
        obj = load_json(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise CampaignError(f"not JSON: {exc}", path) from None
    try:
        d, stored = from_dict(obj)
    except EvalTransError as exc:
        raise CampaignError(exc.problem, path) from None
    if stored is not None and stored != d.campaign_id:
        raise CampaignError(f"the campaign file was edited after it was made (its id "
                            f"{stored} no longer matches its content, {d.campaign_id}); "
                            "bundles made from it would not be recognised: make the "
                            "campaign again", path)
    return d


def database_path(d: Definition, campaign_path: PathLike) -> Path:
    """The campaign's database, relative to the campaign file's folder."""
    p = Path(d.database)
    return p if p.is_absolute() else Path(campaign_path).resolve().parent / p


def load_campaign_database(d: Definition, campaign_path: PathLike) -> Database:
    """The campaign's database, checked against the definition's fingerprint."""
    path = database_path(d, campaign_path)
    db = load_database(path)
    try:
        same = fingerprint(db, d.items) == d.fingerprint
    except CampaignError as exc:
        raise CampaignError(f"{exc.problem}: the database changed since the campaign was "
                            f"made ({campaign_path})", path) from None
    if not same:
        raise CampaignError(f"the texts of the campaign's items changed since the campaign "
                            f"was made ({campaign_path}); bundles would not match", path)
    return db


def class_levels(db: Database, name: str) -> Levels:
    """The levels of class ``name``: the database's, else the template of that name (DA:
    continuous 0..100, WMT19 3.1)."""
    if db.has_class(name):
        return db.level(name)
    if name == "da":
        return continuous("da", 0.0, 100.0, perfect=100, gray=33, green=66)
    if name == RANK_CLASS:                  # the product's rank class (1 = best)
        rank_db = Database()
        return ensure_rank_class(rank_db)
    return template(name if name != ESA_CLASS else "esa", name)


def create_campaign(database: PathLike, out: PathLike, *, protocol: str,
                    annotators: list[str], redundancy: int = 1, batch: int = 50,
                    systems: list[str] | None = None, classes: list[str] | None = None,
                    documents: bool = False, seed: int = 0, qc: QCPlan | None = None,
                    instructions: PathLike | None = None,
                    tutorial: PathLike | None = None,
                    rank_size: int | None = None) -> Definition:
    """Make the definition of a campaign over the database file ``database`` and write it
    to ``out`` (module doc); :class:`CampaignError` naming the problem -- also when ``out``
    already holds another campaign (never overwritten: its bundles may be out)."""
    db = load_database(database)
    spec = PROTOCOLS.get(protocol)
    if classes is not None and (spec is None or spec.name != "classes"):
        raise CampaignError("--classes is only used with --protocol classes (the other "
                            "protocols have their own class)")
    if spec is not None and spec.name == "classes":
        chosen = classes if classes is not None else [
            c for c in db.human_classes if c != ESA_CLASS]
        missing = [c for c in chosen if c not in db.human_classes]
        if missing or not chosen:
            raise CampaignError(f"class(es) {', '.join(missing) or '(none)'} not among the "
                                f"database's classes ({', '.join(db.human_classes) or 'none'})",
                                database)
        cls_names = tuple(chosen)
    else:
        cls_names = spec.classes if spec is not None else ()
    items, docs, chosen_systems = database_items(db, systems)
    if spec is not None and spec.items:        # IER: only sources with information items
        keep = [k for k, (i, _) in enumerate(items) if db.sources[i].items]
        if not keep:
            raise CampaignError("--protocol items needs sources with information items "
                                "(define them with 'evaltrans items --define')", database)
        items = tuple(items[k] for k in keep)
        docs = tuple(docs[k] for k in keep)
    if rank_size is not None and (spec is None or not spec.ranking):
        raise CampaignError("--rank-size is only used with --protocol ranking")
    if spec is not None and spec.ranking:      # a screen ranks 2 or more candidates
        per_source: dict[int, int] = {}
        for i, _ in items:
            per_source[i] = per_source.get(i, 0) + 1
        keep = [k for k, (i, _) in enumerate(items) if per_source[i] >= 2]
        if not keep:
            raise CampaignError("--protocol ranking needs sources with candidates of at least "
                                "2 of the chosen systems", database)
        items = tuple(items[k] for k in keep)
        docs = tuple(docs[k] for k in keep)
    if documents and not any(docs):
        raise CampaignError("--documents needs sources with document ids (doc=…)", database)
    text = read_text(instructions) if instructions is not None else ""
    tut: tuple[TutorialItem, ...] = ()
    if tutorial is not None:
        try:
            obj = load_json(read_text(tutorial))
        except ValueError as exc:
            raise CampaignError(f"not JSON: {exc}", tutorial) from None
        if not isinstance(obj, list):
            raise CampaignError("expected a list of tutorial items", tutorial)
        try:
            tut = tuple(tutorial_item(t, f"item {n}") for n, t in enumerate(obj, 1))
        except CampaignError as exc:
            raise CampaignError(exc.problem, tutorial) from None
    out_dir = Path(out).resolve().parent
    db_path = Path(database).resolve()
    try:
        rel = os.path.relpath(db_path, out_dir)
    except ValueError:                      # another drive (Windows)
        rel = str(db_path)
    d = Definition(database=Path(rel).as_posix(), protocol=protocol, classes=cls_names,
                   systems=chosen_systems, items=items,
                   item_docs=docs if documents else (), annotators=tuple(annotators),
                   redundancy=redundancy, batch=batch, documents=documents, seed=seed,
                   qc=qc or QCPlan(), instructions=text, tutorial=tut,
                   fingerprint=fingerprint(db, items),
                   rank_size=DEFAULT_RANK_SIZE if rank_size is None else rank_size)
    check_definition(d)
    if Path(out).exists() and Path(out).read_bytes() != dumps_campaign(d):
        raise CampaignError("exists and holds another campaign (its bundles may be out); not "
                            "overwritten: choose another name or remove it first", out)
    write_campaign(d, out)
    return d


__all__ = ["dumps_campaign", "write_campaign", "read_campaign", "database_path",
           "load_campaign_database", "class_levels", "create_campaign"]
