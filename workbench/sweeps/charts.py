"""Terminal charts of sweep summaries, drawn with Rich (CLI and the TUI's Sweeps tab).

Own Rich rendering rather than textual-plotext: no new dependency beside an exactly pinned
Textual, the same renderables print in the CLI and in the TUI, and they snapshot-test as text.
Curves are horizontal bars (one per length, with the 95% interval) and heatmaps are tables whose
cells are shaded by the share correct; every cell shows its k/n or n.
"""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text

from workbench.display import MISSING
from workbench.safe_text import as_text

BAR = 24


def _bar(mean: float | None, lo: float | None, hi: float | None) -> Text:
    """█ up to the mean, ─ across the interval, · beyond."""
    if mean is None:
        return Text(MISSING)
    cells = []
    for i in range(BAR):
        x = (i + 0.5) / BAR
        if x <= mean:
            cells.append(("█", "bold cyan"))
        elif lo is not None and hi is not None and lo <= x <= hi:
            cells.append(("─", "cyan"))
        else:
            cells.append(("·", "dim"))
    t = Text()
    for ch, style in cells:
        t.append(ch, style)
    return t


def _shade(k: int, n: int) -> Text:
    if not n:
        return Text(MISSING, style="dim")
    v = k / n
    bg = f"rgb({int(255 - 224 * v)},{int(255 - 136 * v)},{int(255 - 75 * v)})"
    return Text(f"{k}/{n}".center(7), style=f"black on {bg}")


def header(s: dict) -> Text:
    t = Text()
    t.append(f"{s['kind']} sweep {s['sweep_id']}", "bold")
    t.append(" · model ")
    t.append_text(as_text(s["model"], one_line=True))
    t.append(f" · {s['done']}/{s['arms']} arms · {s['wall_s']:.0f} s · scored by {s['decided_by']}")
    return t


def volume_chart(s: dict) -> Group:
    table = Table(title="score vs total input tokens (█ mean, ─ 95% interval over cases × repeats)", title_justify="left")
    for c in ("family", "tokens", "score", "mean [95%]", "n/cases"):
        table.add_column(c, justify="left" if c in ("family", "score") else "right")
    for fam, pts in s["families"].items():
        for p in pts:
            table.add_row(fam, "gold only" if p["length"] == 0 else str(p["length"]), _bar(p.get("mean"), p.get("lo"), p.get("hi")),
                          MISSING if p.get("mean") is None else f"{p['mean']:.2f} [{p['lo']:.2f}, {p['hi']:.2f}]", f"{p['n']}/{p['cases']}")
    parts: list = [header(s), table]
    if s["residue"]:
        res = Table(title="composition residue = single-hop² − two-hop", title_justify="left")
        for c in ("tokens", "single²", "two-hop", "residue [95%]", "n"):
            res.add_column(c, justify="right")
        for x in s["residue"]:
            res.add_row(str(x["length"]), f"{x['expected_two_hop']:.2f}", f"{x['two_hop']:.2f}",
                        f"{x['residue']:+.2f} [{x['lo']:+.2f}, {x['hi']:+.2f}]", f"{x['n_single']}/{x['n_two_hop']}")
        parts.append(res)
    if s["latency"]:
        parts.append(Text("p95 latency: " + ", ".join(f"{x['length']}: {x['p95_s']:.1f} s (n={x['n']})" for x in s["latency"])))
    parts += [Text(f, style="bold red") for f in s["flags"]]
    return Group(*parts)


def heatmap(title: str, rows: list[str], cols: list[str], cells: list[list[tuple[int, int]]]) -> Table:
    table = Table(title=title, title_justify="left")
    table.add_column("")
    for c in cols:
        table.add_column(c, justify="center")
    for r, line in zip(rows, cells):
        table.add_row(r, *(_shade(k, n) for k, n in line))
    return table


def _prompt_tables(s: dict) -> list:
    parts: list = []
    if s["safety_tax"]:
        t = Table(title="safety tax = standard − strict (Newcombe 95%, Fisher's exact p)", title_justify="left")
        for c in ("task", "standard", "strict", "Δ [95%]", "p"):
            t.add_column(c, justify="left" if c == "task" else "right")
        for x in s["safety_tax"]:
            t.add_row(x["task"], f"{x['standard']['k']}/{x['standard']['n']}", f"{x['strict']['k']}/{x['strict']['n']}",
                      f"{x['tax']:+.2f} [{x['lo']:+.2f}, {x['hi']:+.2f}]", MISSING if x["fisher_p"] is None else f"{x['fisher_p']:.3f}")
        parts.append(t)
    parts += [Text(f, style="bold red") for f in s["flags"]]
    return parts


def distribution_chart(s: dict) -> Group:
    dists = list(dict.fromkeys(r["distribution"] for r in s["rows"]))
    variants = list(s["by_variant"])
    cols = [f"{v} {task}" for v in variants for task in ("literal", "inference", "faithful")]
    key = {"literal": "literal", "inference": "inference", "faithful": "faithfulness"}
    cells = []
    for d in dists:
        line = []
        for v in variants:
            row = next((r for r in s["rows"] if r["distribution"] == d and r["variant"] == v), None)
            for task in ("literal", "inference", "faithful"):
                p = row[key[task]] if row else {"k": 0, "n": 0}
                line.append((p["k"], p["n"]))
        cells.append(line)
    return Group(header(s), heatmap("share correct by distribution", dists, cols, cells), *_prompt_tables(s))


def depth_chart(s: dict) -> Group:
    parts: list = [header(s)]
    for v, grid in s["grid"].items():
        parts.append(heatmap(f"depth × length, {v} prompt (rows: tokens)", [str(L) for L in s["lengths"]],
                             [f"{d:.0%}" for d in s["depths"]], [[(c["k"], c["n"]) for c in line] for line in grid]))
    return Group(*parts, *_prompt_tables(s))


CHARTS = {"volume": volume_chart, "distribution": distribution_chart, "depth": depth_chart}


def sweep_chart(summary: dict) -> Group:
    if not summary["done"]:
        return Group(header(summary), Text("no finished arms yet", style="dim"))
    return CHARTS[summary["kind"]](summary)


def sweep_panels(project) -> list[Group]:
    """The latest sweep of each kind as terminal charts ([] when the project has none)."""
    from workbench.sweeps.summary import sweeps_dict

    return [sweep_chart(s) for s in sweeps_dict(project).values()]
