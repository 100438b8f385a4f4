"""Campaign → Create…, Bundle…, Collect…: the forms of ``evaltrans campaign create``,
``bundle`` and ``collect`` (``docs/campaigns.md``). Each dialog only collects what the
command line takes; :meth:`job` returns the call of the Qt-free function
(:func:`~evaltrans_qt.io.campaign_file.create_campaign`,
:func:`~evaltrans_qt.io.campaign_bundle.write_bundles`,
:func:`~evaltrans_qt.io.campaign_collect.collect`) that the campaign controller runs off
the event loop; a missing field is an :class:`~evaltrans_qt.errors.OptionError`.

Stable object names: ``campaignCreateDialog``, ``campaignBundleDialog``,
``campaignCollectDialog`` and their fields ``campaign_<name>``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLineEdit,
    QSpinBox,
    QWidget,
)

from evaltrans_qt.engine.campaign.definition import (
    DEFAULT_RANK_SIZE,
    PROTOCOLS,
    QCPlan,
    parse_qc,
)
from evaltrans_qt.errors import OptionError
from evaltrans_qt.ui.import_dialogs import PathField, PathList

CAMPAIGN_FILTER = "Campaigns (*.etcampaign.json *.json);;All files (*)"
DB_FILTER = "EvalTrans databases (*.etdb.xml *.xml);;All files (*)"


def _named(w: Any, name: str) -> Any:
    w.setObjectName(f"campaign_{name}")
    return w


def _need(text: str, what: str) -> str:
    if not text:
        raise OptionError(f"{what}: nothing given")
    return text


class _Form(QDialog):
    def __init__(self, title: str, name: str, parent: QWidget | None) -> None:
        super().__init__(parent)
        self.setObjectName(name)
        self.setWindowTitle(title)
        self.setMinimumWidth(560)           # the paths and the placeholders are read whole
        self.form = QFormLayout(self)

    def _buttons(self, ok: str) -> None:
        bb = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                              | QDialogButtonBox.StandardButton.Cancel)
        bb.button(QDialogButtonBox.StandardButton.Ok).setText(ok)
        bb.accepted.connect(self.accept)
        bb.rejected.connect(self.reject)
        self.form.addRow(bb)


class CreateDialog(_Form):
    """``campaign create``: database, protocol, annotators, redundancy, batch, classes,
    systems, documents, systems per ranking screen, seed, QC plan, instructions, tutorial,
    output. A field the chosen protocol does not use is disabled and not passed on
    (:meth:`follow_protocol`): the classes only for ``classes``, the screen size only for
    ``ranking`` (whose unit is one source's candidates, so never with documents)."""

    def __init__(self, database: str | Path | None = None, parent: QWidget | None = None) -> None:
        super().__init__("Create a campaign", "campaignCreateDialog", parent)
        f = self.form
        self.database = _named(PathField("Campaign database", filt=DB_FILTER), "database")
        if database is not None:
            self.database.set_path(database)
        f.addRow("Database:", self.database)
        self.protocol = _named(QComboBox(), "protocol")
        for name, spec in PROTOCOLS.items():
            self.protocol.addItem(name)
            self.protocol.setItemData(self.protocol.count() - 1, spec.description,
                                      Qt.ItemDataRole.ToolTipRole)
        f.addRow("Protocol:", self.protocol)
        self.annotators = _named(QLineEdit(), "annotators")
        self.annotators.setPlaceholderText("names separated by commas, e.g. anna,ben,eva")
        f.addRow("Annotators:", self.annotators)
        self.redundancy = _named(QSpinBox(), "redundancy")
        self.redundancy.setRange(1, 99)
        self.redundancy.setToolTip("distinct annotators judging each item")
        f.addRow("Redundancy:", self.redundancy)
        self.batch = _named(QSpinBox(), "batch")
        self.batch.setRange(1, 100000)
        self.batch.setValue(50)
        f.addRow("Batch size:", self.batch)
        self.classes = _named(QLineEdit(), "classes")
        self.classes.setPlaceholderText("protocol 'classes': the classes to judge (default all)")
        f.addRow("Classes:", self.classes)
        self.systems = _named(QLineEdit(), "systems")
        self.systems.setPlaceholderText("all systems (or names separated by commas)")
        f.addRow("Systems:", self.systems)
        self.documents = _named(QCheckBox("keep documents together and in order"), "documents")
        f.addRow("", self.documents)
        self.rank_size = _named(QSpinBox(), "rank_size")
        self.rank_size.setRange(2, 99)
        self.rank_size.setValue(DEFAULT_RANK_SIZE)
        self.rank_size.setToolTip("protocol 'ranking': the candidates of this many systems "
                                  f"are ranked on one screen (default {DEFAULT_RANK_SIZE}, as "
                                  "WMT's relative ranking)")
        f.addRow("Systems per screen:", self.rank_size)
        self.seed = _named(QSpinBox(), "seed")
        self.seed.setRange(0, 2**31 - 1)
        f.addRow("Seed:", self.seed)
        self.qc = _named(QLineEdit(), "qc")
        self.qc.setPlaceholderText("e.g. bad-refs=0.1,repeats=0.05,injected=0.1")
        f.addRow("Quality control:", self.qc)
        self.instructions = _named(PathField("Instructions (Markdown)",
                                             filt="Markdown (*.md *.txt);;All files (*)"),
                                   "instructions")
        f.addRow("Instructions:", self.instructions)
        self.tutorial = _named(PathField("Tutorial items (JSON)",
                                         filt="JSON (*.json);;All files (*)"), "tutorial")
        self.tutorial.setToolTip("practice items with known answers (docs/campaigns.md)")
        f.addRow("Tutorial:", self.tutorial)
        self.output = _named(QLineEdit(), "output")
        self.output.setPlaceholderText("NAME.etcampaign.json")
        if database is not None:
            p = Path(database)
            self.output.setText(str(p.with_name(p.name.split(".")[0] + ".etcampaign.json")))
        f.addRow("Save as:", self.output)
        self._buttons("Create")
        self.protocol.currentTextChanged.connect(self.follow_protocol)
        self.protocol.setCurrentText("esa")
        self.follow_protocol()

    def _uses(self) -> tuple[bool, bool]:
        """Whether the chosen protocol uses the classes field and the screen size."""
        spec = PROTOCOLS.get(self.protocol.currentText())
        return (spec is not None and spec.name == "classes",
                spec is not None and spec.ranking)

    def follow_protocol(self) -> None:
        """Enable the fields the chosen protocol uses (class doc)."""
        classes, ranking = self._uses()
        self.classes.setEnabled(classes)
        self.rank_size.setEnabled(ranking)
        self.documents.setEnabled(not ranking)

    def job(self) -> Callable[[], Any]:
        from evaltrans_qt.io.campaign_file import create_campaign
        names = [a.strip() for a in self.annotators.text().split(",") if a.strip()]
        if not names:
            raise OptionError("Annotators: give the annotators' names, separated by commas")
        systems = [s.strip() for s in self.systems.text().split(",") if s.strip()] or None
        uses_classes, ranking = self._uses()
        classes = [c.strip() for c in self.classes.text().split(",")
                   if c.strip()] if uses_classes else []
        qc = parse_qc(self.qc.text()) if self.qc.text().strip() else QCPlan()
        return partial(create_campaign, _need(self.database.path(), "Database"),
                       _need(self.output.text().strip(), "Save as"),
                       protocol=self.protocol.currentText(), annotators=names,
                       redundancy=self.redundancy.value(), batch=self.batch.value(),
                       systems=systems, classes=classes or None,
                       documents=not ranking and self.documents.isChecked(),
                       seed=self.seed.value(), qc=qc,
                       instructions=self.instructions.path() or None,
                       tutorial=self.tutorial.path() or None,
                       rank_size=self.rank_size.value() if ranking else None)


class BundleDialog(_Form):
    """``campaign bundle``: the campaign file and the folder of the bundles."""

    def __init__(self, campaign: str | Path | None = None, parent: QWidget | None = None) -> None:
        super().__init__("Write the annotators' bundles", "campaignBundleDialog", parent)
        self.campaign = _named(PathField("Campaign file", filt=CAMPAIGN_FILTER), "campaign")
        self.folder = _named(PathField("Folder of the bundles", folder=True), "folder")
        if campaign is not None:
            self.campaign.set_path(campaign)
            self.folder.set_path(Path(campaign).parent / "bundles")
        self.form.addRow("Campaign:", self.campaign)
        self.form.addRow("Into folder:", self.folder)
        self._buttons("Write bundles")

    def job(self) -> Callable[[], Any]:
        from evaltrans_qt.io.campaign_bundle import write_bundles
        return partial(write_bundles, _need(self.campaign.path(), "Campaign"),
                       _need(self.folder.path(), "Into folder"))


class CollectDialog(_Form):
    """``campaign collect``: the campaign file, the returned bundles, the result database."""

    def __init__(self, campaign: str | Path | None = None, parent: QWidget | None = None) -> None:
        super().__init__("Collect the returned bundles", "campaignCollectDialog", parent)
        self.campaign = _named(PathField("Campaign file", filt=CAMPAIGN_FILTER), "campaign")
        self.bundles = _named(PathList("Returned bundles"), "bundles")
        self.result_path = _named(QLineEdit(), "result")
        self.result_path.setPlaceholderText("RESULT.etdb.xml (added to when it exists)")
        if campaign is not None:
            self.campaign.set_path(campaign)
            folder = Path(campaign).parent / "bundles"
            if folder.is_dir():
                self.bundles.set_paths(sorted(folder.glob("*.etdb.xml")))
            self.result_path.setText(str(Path(campaign).with_name("result.etdb.xml")))
        self.form.addRow("Campaign:", self.campaign)
        self.form.addRow("Bundles:", self.bundles)
        self.form.addRow("Result:", self.result_path)
        self._buttons("Collect")

    def job(self) -> Callable[[], Any]:
        """The collection (its report's ``warnings`` are shown when it is done)."""
        from evaltrans_qt.io.campaign_collect import collect
        bundles = self.bundles.paths()
        if not bundles:
            raise OptionError("Bundles: add the returned bundle files")
        return partial(collect, _need(self.campaign.path(), "Campaign"), bundles,
                       _need(self.result_path.text().strip(), "Result"))


__all__ = ["CreateDialog", "BundleDialog", "CollectDialog"]
