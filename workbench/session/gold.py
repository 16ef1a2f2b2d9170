"""Gold document IDs as a user types them (a source id, or a DocID) resolved against the corpus:
built once in a worker, then looked up on any thread without reading the disk (a form checks its
gold field on every key with it). The add resolves them again (triage/queries.py) and decides:
the form's check only spares the user a failed add."""

from __future__ import annotations

import msgspec

from workbench.project.files import Project


class DocIdResolver(msgspec.Struct, frozen=True):
    """Every ID a gold field accepts → its DocID (source ids first, as the add resolves them)."""

    ids: dict[str, int]

    def unknown(self, values: list[str]) -> list[str]:
        """The values that name no document of the corpus, in the order given."""
        return [v for v in values if v not in self.ids]

    def resolve(self, values: list[str]) -> list[int]:
        """The DocIDs of the known values, each once, in the order given."""
        return list(dict.fromkeys(self.ids[v] for v in values if v in self.ids))


def doc_id_resolver(project: Project) -> DocIdResolver:
    """The corpus' IDs (reads every document's source id: call from a worker)."""
    from workbench.project.labels import source_id_map

    ids = {str(d): d for d in project.documents}
    ids.update(source_id_map(project))  # a source id wins over a DocID that reads the same, as in the add
    return DocIdResolver(ids)


def split_ids(text: str) -> list[str]:
    """A gold field's text → its IDs (comma-separated, blanks dropped)."""
    return [g.strip() for g in text.split(",") if g.strip()]


def resolve_doc_ids(resolver: DocIdResolver, text: str) -> tuple[list[int], list[str]]:
    """A gold field's text → (the DocIDs it names, the IDs the corpus does not hold)."""
    values = split_ids(text)
    return resolver.resolve(values), resolver.unknown(values)
