"""The bundled demo project: its source files ship inside the package (wheel: workbench/sample_corpus,
a source checkout: sample_corpus/), its derived state lives in the user's data folder — never
inside an installed package, which may be read-only and is replaced on upgrade."""

from __future__ import annotations

from pathlib import Path

from workbench.fsutil import atomic_write_bytes

# what makes the project; everything else (.workbench/, exports) is derived and stays in the copy
SOURCE_FILES = ("workbench.toml", "documents.jsonl", "queries.jsonl")
APP_NAME = "nearmiss-workbench"


def bundled_corpus() -> Path:
    """The sample corpus shipped with this installation."""
    package = Path(__file__).resolve().parents[1]  # workbench/
    packaged = package / "sample_corpus"  # the wheel's copy (pyproject force-include)
    if (packaged / "documents.jsonl").is_file():
        return packaged
    return package.parent / "sample_corpus"  # a source checkout


def demo_home() -> Path:
    """Where the demo project and its derived state live ($XDG_DATA_HOME/nearmiss-workbench/demo on Linux)."""
    import platformdirs

    return platformdirs.user_data_path(APP_NAME) / "demo"


def _with_user_queries(bundled: bytes, current: bytes) -> bytes:
    """The bundled queries, then the queries the user added to the demo (ids the bundle lacks):
    refreshing the bundled files must not drop what the user did."""
    import json

    ids = {json.loads(line)["query_id"] for line in bundled.decode().splitlines() if line.strip()}
    added = []
    for line in current.decode(errors="replace").splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue  # a damaged line of the old copy: the bundle replaces it
        if isinstance(row, dict) and row.get("query_id") not in ids:
            added.append(line + "\n")
    return bundled + "".join(added).encode() if added else bundled


def prepare_demo(source: Path | None = None, home: Path | None = None) -> Path:
    """The demo project folder: the bundled source files copied into ``home`` (again whenever an
    upgrade changed them; derived state then sees a new corpus hash and is rebuilt). Queries the
    user added to the demo's queries.jsonl are kept after the bundled ones."""
    source = source or bundled_corpus()
    home = home or demo_home()
    missing = [f for f in SOURCE_FILES if not (source / f).is_file()]
    if missing:
        raise FileNotFoundError(f"the sample corpus is incomplete: {', '.join(str(source / f) for f in missing)} missing")
    if home.resolve() == source.resolve():
        return home
    from workbench.fsutil import project_lock

    with project_lock(home):  # read-modify-write of the demo's queries.jsonl (an add-query may run at once)
        for name in SOURCE_FILES:
            data = (source / name).read_bytes()
            target = home / name
            if name == "queries.jsonl" and target.is_file():
                data = _with_user_queries(data, target.read_bytes())
            if not target.is_file() or target.read_bytes() != data:
                atomic_write_bytes(target, data)
    return home
