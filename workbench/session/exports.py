"""`export-trec` as the CLI shows it: the files written (session/imports.py writes them) and, when
no run is stored yet, the command that stores them."""

from __future__ import annotations

from pathlib import Path

import msgspec


class TrecExport(msgspec.Struct, frozen=True):
    written: list[Path]  # the qrels first, then one run file per stored run
    hint: str  # "" when some run was written; else the command that stores runs


def trec_export(root: Path, tier_spec: str, out: Path) -> TrecExport:
    """TREC qrels and run files of every stored run under ``out``."""
    from workbench.project.suggest import command
    from workbench.session.imports import export_trec

    written = export_trec(root, tier_spec, out)
    return TrecExport(written, "" if len(written) > 1 else command("eval", root))
