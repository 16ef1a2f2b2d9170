"""The Diagnosis tab: the verdict system's reading (given only on enough decided verdicts), the
verdicts per level, the recommendations (each access fix's command, judge and measured effect),
access at the session's K beside use per tier, and a chart of the best system."""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.reactive import var
from textual.widgets import Static

from screens.base import covered
from screens.render import bar, fmt
from workbench import session as core
from workbench.safe_text import as_text, visible
from workbench.session import Recommendation, Session, UseRow

BAR_WIDTH = 18
# the verdict columns' headers: short enough for 80 columns, never two alike (ACC / ACC?)
VERDICT_SHORT = {"ACCESS": "ACC", "ACCESS?": "ACC?", "USE-UNDER-DISTRACTORS": "DISTR", "UNDECIDED": "UND", "NOT-YET": "NYET"}


@dataclass(frozen=True)
class DiagnosisView:
    """What the tab shows, made in a worker: the parts drawn, and the recommendations they were
    drawn from (the verdict system's, read afresh; the UI thread keeps them on the session)."""

    session: Session
    system: str
    recommendations: tuple[Recommendation, ...]
    parts: tuple[RenderableType, ...]


class DiagnosisViewReady(Message):
    def __init__(self, view: DiagnosisView) -> None:
        super().__init__()
        self.view = view


class DiagnosisPane(VerticalScroll):
    DEFAULT_CSS = """
    DiagnosisPane { height: 1fr; scrollbar-gutter: stable; }  /* the tables are laid out beside the scrollbar, never under it */
    """

    session: var[Session | None] = var(None, always_update=True)
    verdicts: var[int] = var(0)  # bumped when access results, verdicts or labels change
    use: var[int] = var(0)  # bumped when the use table changes
    view: var[DiagnosisView | None] = var(None)  # what is shown: posted by the worker, drawn by watch_view

    def compose(self) -> ComposeResult:
        yield Static("Waiting for access results…", id="diagnosis-body")

    def _redraw(self) -> None:
        self.render_diagnosis()

    watch_session = watch_verdicts = watch_use = _redraw  # every input of the tab redraws it
    _stale = ""  # "draw" / "reread": what came while covered, done when the tab shows again

    def draw_if_stale(self) -> None:
        if self._stale:
            self.render_diagnosis(reread=self._stale == "reread")

    def render_diagnosis(self, reread: bool = False) -> None:
        """The tab made again in a worker (its recommendations read from the stored runs when the
        verdict system changed, the diagnosis is new or ``reread``); what it shows until then stays.
        Under the inspector it waits until the tab shows again (its worker would take the
        interpreter from the inspector's keys at every model answer)."""
        if covered(self):
            self._stale = "reread" if reread or self._stale == "reread" else "draw"
            return
        self._stale = ""
        s = self.session
        if s is None or not s.results:
            self.view = None
            self.query_one("#diagnosis-body", Static).update(
                "Waiting for access results…" if s is None or s.tierset else "Build tiers and indexes first (Ctrl+B).")
            return
        self.prepare_view(s, reread)

    @work(thread=True, exclusive=True, exit_on_error=False, group="recommend")
    def prepare_view(self, s: Session, reread: bool) -> None:
        kept = core.shown_recommendations(s)
        if s.diagnosis is not None and (kept is None or reread):
            system, recs = core.read_recommendations(s)
        else:
            system, recs = core.verdict_system(s) or "", kept or []
        self.post_message(DiagnosisViewReady(DiagnosisView(s, system, tuple(recs), tuple(diagnosis_parts(s, recs)))))

    def on_diagnosis_view_ready(self, msg: DiagnosisViewReady) -> None:
        v = msg.view
        if v.session is not self.session:
            return  # another project (or version) was loaded meanwhile: its own view follows
        if v.session.diagnosis is not None and v.system == (core.verdict_system(v.session) or ""):
            core.keep_recommendations(v.session, v.system, list(v.recommendations))  # t and the palette run the first fix
        self.view = v

    def watch_view(self, view: DiagnosisView | None) -> None:
        if view is not None:
            self.query_one("#diagnosis-body", Static).update(Group(*view.parts))


def diagnosis_parts(s: Session, recs: list[Recommendation] | None = None) -> list[RenderableType]:
    """The tab's parts; ``recs``: the verdict system's recommendations (None: those kept on the session)."""
    k = s.k
    by = {(r.system, r.tier): r.summary for r in s.results}
    systems = list(s.systems)
    t = Table(title=f"Access (K={k}) and use per tier", title_justify="left", expand=True)
    t.add_column("tier", no_wrap=True)
    for sys_ in systems:
        t.add_column(f"{sys_}\nSR/FR", justify="right", no_wrap=True)
    t.add_column("SR−FR\n(best)", justify="right")
    t.add_column("QA", justify="right")
    t.add_column("oracle", justify="right")
    use = s.use.rows if s.use else {}
    chart = Text()
    label_width = max((len(visible(t.name, one_line=True)) for t in s.tiers), default=4)
    best_sys = max(systems, key=lambda x: sum(sm.fr_at_k or 0.0 for tt in s.tiers if (sm := by.get((x, tt.name)))),
                   default=None)
    for tier in s.tiers:
        cells = []
        for sys_ in systems:
            sm = by.get((sys_, tier.name))
            cells.append("–" if sm is None else f"{fmt(sm.sr_at_k)}/{fmt(sm.fr_at_k)}")
        best = by.get((best_sys, tier.name)) if best_sys else None
        qa, oracle = _use_figures(use.get(tier.name, {}))
        t.add_row(as_text(tier.name), *cells, fmt(best.multi_gap) if best else "–", qa, oracle)
        chart.append(f"{visible(tier.name, one_line=True):<{label_width}} ")  # whole names: the width is theirs
        chart.append_text(bar(best.sr_at_k if best else None, BAR_WIDTH, "cyan"))
        chart.append(" ")
        chart.append_text(bar(best.fr_at_k if best else None, BAR_WIDTH, "magenta"))
        chart.append(" ")
        q = _use_value(use.get(tier.name, {}), "qa")
        chart.append_text(bar(None if q is None else q / 5, BAR_WIDTH, "green"))
        chart.append("\n")
    legend = Text.assemble(("Chart", "bold"), f" ({best_sys}): ", (f"SR@{k}", "cyan"), " · ", (f"FR@{k}", "magenta"),
                           " · ", ("QA/5", "green"), "\n")
    parts: list[RenderableType] = [*verdict_section(s, recs), t, legend, chart]
    if any(_distrusted(row, task) for row in use.values() for task in ("qa", "oracle")):
        parts.append(Text("* judged by a judge that cannot tell right answers from wrong ones (calibration "
                          "failed): treat these QA figures as noise; set a capable `judge` in workbench.toml.",
                          style="yellow"))
    return parts


def _use_value(row: dict[str, UseRow], task: str) -> float | None:
    vals = [v.QA for v in row.values() if v.QA is not None and v.task == task]
    return max(vals) if vals else None


def _distrusted(row: dict[str, UseRow], task: str) -> bool:
    """Scored by a judge that failed its calibration (cannot tell right answers from wrong)."""
    return any(v.distrusted and v.task == task for v in row.values())


def _use_figures(row: dict[str, UseRow]) -> tuple[str, str]:
    qa, oracle = _use_value(row, "qa"), _use_value(row, "oracle")
    marked_oracle = fmt(oracle) + ("*" if oracle is not None and _distrusted(row, "oracle") else "")
    if qa is None and any(not v.fits and v.task == "qa" for v in row.values()):
        return "no fit", marked_oracle
    return fmt(qa) + ("*" if qa is not None and _distrusted(row, "qa") else ""), marked_oracle


def reading_shown(reading: str, decided: int) -> str:
    """A reading only on enough decided verdicts (the one rule, workbench/project/settings.py); else a dash
    (one cell at 80 columns: the line above the table says why)."""
    return reading if core.reading_given(decided) else "–"


def verdict_section(s: Session, recs: list[Recommendation] | None = None) -> list[RenderableType]:
    """The diagnosis' verdicts: the primary system's reading per tier level, its rule, the recommendations
    (``recs``: the verdict system's; None: those kept on the session)."""
    d, system = s.diagnosis, core.verdict_system(s)
    if d is None or system is None:
        return [Text("Verdicts: computing…", "dim")]
    readings = d.readings(system)
    if not readings:
        return [Text(f"Verdicts of {system}: none yet", "dim")]
    overall = readings[-1]
    of = f"{overall.decided} decided verdict{'s' if overall.decided != 1 else ''} of {sum(overall.counts.values())}"
    if core.reading_given(overall.decided):
        head = Text.assemble(("Diagnosis ", "bold"), (visible(system, one_line=True), "bold cyan"), " is ",
                             (overall.reading, "bold yellow"), f" ({overall.certainty_line})\n", (overall.rule, "dim"))
    else:
        head = Text.assemble(("Diagnosis ", "bold"), (visible(system, one_line=True), "bold cyan"), ": ",
                             ("no reading yet", "bold yellow"),
                             f" ({of}; a reading needs at least {core.MIN_DECIDED}: – in the table)\n", (overall.rule, "dim"))
    # no outer edge: ten columns fit the 78 cells beside the scrollbar at 80 columns
    t = Table(title="Verdicts per tier level (query × tier; the rules: docs/reference/verdicts.md, and the report)", title_justify="left", expand=True,
              show_edge=False, pad_edge=False)
    t.add_column("level", no_wrap=True)
    for v in core.VERDICTS:  # short forms: ACCESS and ACCESS? stay apart at 80 columns (the legend below names them)
        t.add_column(VERDICT_SHORT.get(v, v), justify="right", no_wrap=True)
    t.add_column("reading", min_width=7)  # its header whole at 80 columns
    for r in readings:
        t.add_row(as_text(r.level, one_line=True), *(str(r.counts.get(v, 0)) for v in core.VERDICTS),
                  reading_shown(r.reading, r.decided))
    legend = Text(" · ".join(f"{VERDICT_SHORT.get(v, v)} {v}" for v in core.VERDICTS if VERDICT_SHORT.get(v, v) != v) + "\n",
                  "dim")
    recs_text = recommendations_text(s, overall.recommendations, core.shown_recommendations(s) if recs is None else recs)
    recs_text.append("r: export the report (Markdown, self-contained HTML, JSON)\n", "dim")
    return [head, t, legend, funnel_text(d.funnel(system), system), recs_text]


FUNNEL_STYLES = {"not_retrieved": "red", "ranked_out": "dark_orange", "not_delivered": "yellow", "not_used": "magenta",
                 "right": "green", "undecided": "wheat4", "unknown": "grey50", "no_answer": "grey30"}

FUNNEL_SHORT = {"not_retrieved": "never", "ranked_out": ">K", "not_delivered": "not given", "not_used": "ignored",
                "right": "right", "undecided": "undecided", "unknown": "?", "no_answer": "no answer"}


def funnel_text(rows: "list[core.Funnel]", system: str) -> Text:
    """The loss funnel: one bar per level, a cell per stage in proportion, the counts beside it."""
    out = Text.assemble(("Where the gold is lost", "bold"), f" ({visible(system, one_line=True)}): ")
    for stage in core.STAGES:
        out.append("■ ", FUNNEL_STYLES[stage])
        out.append(f"{core.STAGE_LABELS[stage]}  ")
    out.append("\n")
    width = max((len(visible(f.level, one_line=True)) for f in rows), default=4)
    for f in rows:
        counts = f.funnel.as_dict()
        out.append(f"{visible(f.level, one_line=True):<{width}} ")
        for stage in core.STAGES:
            cells = round(BAR_WIDTH * 2 * counts[stage] / f.n) if f.n else 0
            out.append("█" * cells, FUNNEL_STYLES[stage])
        out.append(" " + ", ".join(f"{FUNNEL_SHORT[st]} {counts[st]}" for st in core.STAGES if counts[st]) + f" of {f.n}\n")
    return out


def recommendations_text(s: Session, texts: list[str], shown: list[Recommendation] | None) -> Text:
    """The recommendations in order (``shown``: read from the stored runs; None: not yet, the
    diagnosis' texts), each access fix with its command, its judge and, once tried, its measured
    effect; the key that runs the first runnable one."""
    recs = Text("Recommendations (access first):\n", "bold")
    for i, rec in enumerate(shown if shown is not None else [core.Recommendation(x) for x in texts], 1):
        recs.append(f"  {i}. {visible(rec.text)}\n", "")
        for line in rec.lines:
            measured = line.startswith("measured:") and not line.endswith("is not stored)")
            recs.append(f"     {visible(line)}\n", "bold green" if measured else "dim")
    if not texts:
        recs.append("  none: nothing decided fails\n", "dim")
    fix = core.first_runnable(shown or [])
    if fix is not None:
        recs.append("t", "bold")
        recs.append(f": try {visible(fix.system, one_line=True)} on {visible(', '.join(fix.tiers), one_line=True)} "
                    f"({core.fix_cost(s, fix)})\n")
    elif shown and any(r.fix is not None and r.fix.kind == "rerank" for r in shown):
        recs.append("t: runs a rerank once a [rerankers.NAME] is configured in workbench.toml\n", "dim")
    return recs
