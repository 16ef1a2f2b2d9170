"""What the front end loads ahead, once its first figures are on screen, so that a key's first use
does not stop the UI.

The Why pane's dense part embeds the query with the project's embedder. Loading it imports
sentence-transformers and torch: seconds of one core with the interpreter held (an import runs
module code under the GIL and the import lock), so every key pressed meanwhile waits. Done in a
worker right after the first diagnosis, it happens while the user reads the list."""

from __future__ import annotations

from workbench.access.indexing import embedding_errors, make_project_embedder
from workbench.errors import WorkbenchError
from workbench.session.state import Session

LOCAL_BACKEND = "sentence-transformers"  # the in-process embedder; an endpoint's costs nothing to load


def warm_up(session: Session) -> str:
    """Load the project's local embedder (blocking: a worker's call; once per process, the Why pane
    and add-query reuse it). Returns the model loaded, "" when there is nothing to load or it does
    not load (the feature that needs it says why, when it is used)."""
    e = session.project.config.embedding
    if e.backend != LOCAL_BACKEND:
        return ""
    try:
        embedder = make_project_embedder(session.project)
        with embedding_errors(session.project):
            embedder.embed([])  # loads the model, embeds nothing
    except WorkbenchError:
        return ""
    return e.model
