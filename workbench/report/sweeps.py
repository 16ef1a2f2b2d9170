"""Sweep results for the diagnosis report: Markdown, inline SVG, and a JSON-able dict.

    sweeps_markdown(project) -> str   # "" when the project has no sweeps
    sweeps_svg(project) -> str        # "" likewise; <section> of inline <svg>, no external resources
    sweeps_dict(project) -> dict      # {} likewise; {"volume": {...}, "depth": {...}, "distribution": {...}}
    summary_markdown(summary) -> str  # one sweep's section (the CLI prints this after a run)

Each uses the latest stored sweep of each kind. Text from data is html-escaped in the SVG and
kept out of Markdown tables except as escaped cells. Every figure carries its n.
"""

from __future__ import annotations

from html import escape

from workbench.display import MISSING
from workbench.project.files import Project
from workbench.report.text import no_autolinks, shown
from workbench.sweeps.distributions import BIN_WIDTH
from workbench.sweeps.summary import sweeps_dict  # the report's input, made in sweeps/ (the TUI charts it too)





# ---------------------------------------------------------------- Markdown


def _f(x, digits: int = 2) -> str:
    return MISSING if x is None else f"{x:.{digits}f}"


def _ci(d: dict) -> str:
    if d.get("mean") is None:
        return MISSING
    return f"{d['mean']:.2f} [{d['lo']:.2f}, {d['hi']:.2f}]"


def _prop(p: dict) -> str:
    if not p["n"]:
        return MISSING
    return f"{p['rate']:.2f} [{p['lo']:.2f}, {p['hi']:.2f}] ({p['k']}/{p['n']})"


def _md_cell(text: str) -> str:
    return no_autolinks(escape(shown(text, one_line=True)).replace("|", "&#124;"))


def _md_header(s: dict) -> list[str]:
    return [
        f"Sweep `{s['sweep_id']}`: model {_md_cell(s['model'])}, {s['done']}/{s['arms']} arms, seed {s['seed']}, "
        f"answer budget {s['max_tokens']} tokens, wall time {s['wall_s']:.0f} s.",
        f"Scored by: **{s['decided_by']}** ({_md_cell(s['calibration'] or 'judge not run yet')}).",
        "",
    ]


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head), *("| " + " | ".join(r) + " |" for r in rows), ""]


_TITLES = {"volume": "Volume sweep (context rot)", "depth": "Depth × length grid (Protocol A)",
           "distribution": "Fact placement by distribution (Protocol B)"}


def volume_markdown(s: dict) -> str:
    lines = [f"### {_TITLES['volume']}", "", *_md_header(s)]
    lines.append("Score (share correct) by total input tokens, mean [95% interval over cases × repeats] (n answers / cases):")
    lines.append("")
    rows = []
    for fam, pts in s["families"].items():
        for p in pts:
            length = "gold only" if p["length"] == 0 else str(p["length"])
            rows.append([fam, length, str(p["input_tokens"]), _ci(p), f"{p['n']} / {p['cases']}"])
    lines += _table(["family", "length", "mean input tokens", "score", "n / cases"], rows)
    if s["latency"]:
        lines += _table(["length", "p50 latency s", "p95 latency s", "n calls (cached answers left out)"],
                        [[str(x["length"]), _f(x["p50_s"]), _f(x["p95_s"]), str(x["n"])] for x in s["latency"]])
    if s["residue"]:
        lines.append("Composition residue = single-hop² − two-hop (positive: composing costs more than two independent lookups):")
        lines.append("")
        lines += _table(["length", "single-hop", "single-hop²", "two-hop", "residue [95%]", "n single / two-hop"],
                        [[str(x["length"]), _f(x["single_hop"]), _f(x["expected_two_hop"]), _f(x["two_hop"]),
                          f"{x['residue']:.2f} [{x['lo']:.2f}, {x['hi']:.2f}]", f"{x['n_single']} / {x['n_two_hop']}"] for x in s["residue"]])
    lines += [f"- **{_md_cell(f)}**" for f in s["flags"]]
    return "\n".join(lines).rstrip() + "\n"


def _prompt_markdown(s: dict) -> list[str]:
    lines = []
    if s["by_variant"]:
        lines += _table(["prompt", "literal", "inference", "answerable", "faithfulness", "refusals (answerable)"],
                        [[v, _prop(b["literal"]), _prop(b["inference"]), _prop(b["answerable"]), _prop(b["faithfulness"]),
                          _prop(b["refusals_answerable"])] for v, b in s["by_variant"].items()])
    if s["safety_tax"]:
        lines.append("Safety tax = standard − strict (anti-hallucination) prompt, Newcombe 95% interval, Fisher's exact test:")
        lines.append("")
        lines += _table(["task", "standard", "strict", "Δ [95%]", "Fisher p"],
                        [[t["task"], _prop(t["standard"]), _prop(t["strict"]), f"{t['tax']:+.2f} [{t['lo']:+.2f}, {t['hi']:+.2f}]",
                          _f(t["fisher_p"], 3)] for t in s["safety_tax"]])
    lines += [f"- **{_md_cell(f)}**" for f in s["flags"]]
    return lines


def distribution_markdown(s: dict) -> str:
    lines = [f"### {_TITLES['distribution']}", "", *_md_header(s)]
    lines += _table(["distribution", "prompt", "literal", "inference", "faithfulness", "refusals (answerable)"],
                    [[r["distribution"], r["variant"], _prop(r["literal"]), _prop(r["inference"]), _prop(r["faithfulness"]),
                      _prop(r["refusals_answerable"])] for r in s["rows"]])
    lines += _prompt_markdown(s)
    return "\n".join(lines).rstrip() + "\n"


def depth_markdown(s: dict) -> str:
    lines = [f"### {_TITLES['depth']}", "", *_md_header(s)]
    for v, grid in s["grid"].items():
        lines.append(f"Share correct, {v} prompt (rows: input tokens; columns: depth):")
        lines.append("")
        rows = [[str(L)] + [(f"{c['k']}/{c['n']}" if c["n"] else MISSING) for c in line] for L, line in zip(s["lengths"], grid)]
        lines += _table(["tokens"] + [f"{d:.0%}" for d in s["depths"]], rows)
    lines += _prompt_markdown(s)
    return "\n".join(lines).rstrip() + "\n"


_MD = {"volume": volume_markdown, "depth": depth_markdown, "distribution": distribution_markdown}


def summary_markdown(summary: dict) -> str:
    """One sweep's summary (workbench.sweeps.summary.summarize) as a Markdown section."""
    if not summary["done"]:
        lines = [f"### {_TITLES[summary['kind']]}", "", *_md_header(summary), "No finished arms yet."]
        return "\n".join(lines) + "\n"
    return _MD[summary["kind"]](summary)


def sweeps_markdown(project: Project) -> str:
    return markdown_section(sweeps_dict(project))


def markdown_section(data: dict) -> str:
    """The "## Sweeps" section of sweeps_dict's output ("" when there are none)."""
    if not data:
        return ""
    return "## Sweeps\n\n" + "\n".join(summary_markdown(v) for v in data.values())


# ---------------------------------------------------------------- SVG

W, H, PAD = 520, 260, 48
COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]


def _svg_open(title: str, h: int = H) -> list[str]:
    return [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{h}" viewBox="0 0 {W} {h}" role="img" '
            f'font-family="sans-serif" font-size="11"><title>{escape(title)}</title>',
            f'<text x="{W / 2}" y="16" text-anchor="middle" font-weight="bold">{escape(title)}</text>']


def line_chart(title: str, series: dict[str, list[tuple[float, float, float, float]]], x_label: str, y_label: str = "share correct") -> str:
    """Curves with interval bands: series name → [(x, y, lo, hi)]; y in 0..1."""
    xs = [p[0] for pts in series.values() for p in pts]
    if not xs:
        return ""
    x0, x1 = min(xs), max(xs)
    span = (x1 - x0) or 1.0

    def X(x):
        return PAD + (x - x0) / span * (W - 2 * PAD)

    def Y(y):
        return H - PAD + 10 - y * (H - 2 * PAD)

    out = _svg_open(title)
    out.append(f'<line x1="{PAD}" y1="{Y(0)}" x2="{W - PAD}" y2="{Y(0)}" stroke="#444"/>')
    out.append(f'<line x1="{PAD}" y1="{Y(0)}" x2="{PAD}" y2="{Y(1)}" stroke="#444"/>')
    for t in (0, 0.5, 1):
        out.append(f'<text x="{PAD - 6}" y="{Y(t) + 4}" text-anchor="end">{t:g}</text>')
    for x in sorted(set(xs)):
        out.append(f'<text x="{X(x):.1f}" y="{Y(0) + 14}" text-anchor="middle">{escape(f"{x:g}")}</text>')
    out.append(f'<text x="{W / 2}" y="{H - 6}" text-anchor="middle">{escape(x_label)}</text>')
    out.append(f'<text x="12" y="{H / 2}" transform="rotate(-90 12 {H / 2})" text-anchor="middle">{escape(y_label)}</text>')
    for i, (name, pts) in enumerate(series.items()):
        c = COLOURS[i % len(COLOURS)]
        pts = sorted(pts)
        if len(pts) > 1:
            band = [f"{X(x):.1f},{Y(hi):.1f}" for x, _, _, hi in pts] + [f"{X(x):.1f},{Y(lo):.1f}" for x, _, lo, _ in reversed(pts)]
            out.append(f'<polygon points="{" ".join(band)}" fill="{c}" fill-opacity="0.12" stroke="none"/>')
            out.append(f'<polyline points="{" ".join(f"{X(x):.1f},{Y(y):.1f}" for x, y, _, _ in pts)}" fill="none" stroke="{c}" stroke-width="2"/>')
        for x, y, lo, hi in pts:
            out.append(f'<line x1="{X(x):.1f}" y1="{Y(lo):.1f}" x2="{X(x):.1f}" y2="{Y(hi):.1f}" stroke="{c}"/>')
            out.append(f'<circle cx="{X(x):.1f}" cy="{Y(y):.1f}" r="3" fill="{c}"/>')
        out.append(f'<rect x="{W - PAD - 120}" y="{26 + 14 * i}" width="10" height="10" fill="{c}"/>')
        out.append(f'<text x="{W - PAD - 106}" y="{35 + 14 * i}">{escape(name)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def heatmap(title: str, rows: list[str], cols: list[str], cells: list[list[tuple[int, int]]]) -> str:
    """Share correct per cell (k/n), white (0) to blue (1); empty cells grey."""
    if not rows or not cols:
        return ""
    cw, ch = (W - 2 * PAD - 20) / len(cols), 18
    h = 40 + ch * len(rows) + 40
    out = _svg_open(title, int(h))
    for i, r in enumerate(rows):
        y = 30 + i * ch
        out.append(f'<text x="{PAD + 16}" y="{y + 13}" text-anchor="end">{escape(r)}</text>')
        for j, (k, n) in enumerate(cells[i]):
            x = PAD + 20 + j * cw
            if n:
                v = k / n
                fill = f"rgb({int(255 - 224 * v)},{int(255 - 136 * v)},{int(255 - 75 * v)})"
                label = f"{k}/{n}"
            else:
                fill, label = "#ddd", ""
            out.append(f'<rect x="{x:.1f}" y="{y}" width="{cw - 1:.1f}" height="{ch - 1}" fill="{fill}"><title>{escape(f"{r} × {cols[j]}: {label or MISSING}")}</title></rect>')
    for j, c in enumerate(cols):
        out.append(f'<text x="{PAD + 20 + (j + 0.5) * cw:.1f}" y="{30 + len(rows) * ch + 14}" text-anchor="middle">{escape(c)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def volume_svg(s: dict) -> str:
    series = {fam: [(p["length"], p["mean"], p["lo"], p["hi"]) for p in pts if p.get("mean") is not None]
              for fam, pts in s["families"].items() if fam != "two-hop-gold"}
    charts = [line_chart(f"Score vs input tokens ({s['model']}, {s['decided_by']})", series, "total input tokens")]
    if s["residue"]:
        charts.append(line_chart("Composition residue: single-hop² − two-hop",
                                 {"residue": [(x["length"], max(0.0, min(1.0, x["residue"])), max(0.0, x["lo"]), min(1.0, x["hi"])) for x in s["residue"]]},
                                 "total input tokens", "residue (clipped to 0..1)"))
    return "\n".join(c for c in charts if c)


def distribution_svg(s: dict) -> str:
    dists = list(dict.fromkeys(r["distribution"] for r in s["rows"]))
    variants = list(s["by_variant"])
    cells = [[(r["literal"]["k"], r["literal"]["n"]) for v in variants for r in s["rows"] if r["distribution"] == d and r["variant"] == v] for d in dists]
    parts = [heatmap("Literal extraction by distribution and prompt", dists, variants, cells)]
    series = {}
    for v, bins in s["by_depth_bin"].items():
        pts = []
        for b in bins:
            if b["n"]:
                from workbench.stats import wilson

                lo, hi = wilson(b["k"], b["n"])  # type: ignore[misc]
                pts.append(((b["bin"] + 0.5) * BIN_WIDTH, b["k"] / b["n"], lo, hi))
        series[v] = pts
    parts.append(line_chart("Literal extraction by depth of the fact (all distributions)", series, "depth (0 = start)"))
    return "\n".join(p for p in parts if p)


def depth_svg(s: dict) -> str:
    cols = [f"{d:.0%}" for d in s["depths"]]
    return "\n".join(heatmap(f"Depth × length, {v} prompt", [str(L) for L in s["lengths"]], cols,
                             [[(c["k"], c["n"]) for c in line] for line in grid]) for v, grid in s["grid"].items())


_SVG = {"volume": volume_svg, "depth": depth_svg, "distribution": distribution_svg}


def sweeps_svg(project: Project) -> str:
    return svg_section(sweeps_dict(project))


def sweep_figure(kind: str, summary: dict) -> str:
    """One sweep's charts as an HTML <figure> ("" while no arm is finished)."""
    return f'<figure class="sweep sweep-{kind}">\n{_SVG[kind](summary)}\n</figure>' if summary["done"] else ""


def svg_section(data: dict) -> str:
    """The HTML <section> of inline SVG charts of sweeps_dict's output ("" when there are none)."""
    if not data:
        return ""
    body = "\n".join(sweep_figure(k, v) for k, v in data.items() if v["done"])
    return f'<section class="sweeps">\n<h2>Sweeps</h2>\n{body}\n</section>\n'
