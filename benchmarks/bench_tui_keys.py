"""The query inspector in a real terminal (tmux), run by hand: key → redraw while a model run is in
flight, and Enter on the query list → the inspector's ranking rows on screen.

    python benchmarks/bench_tui_keys.py PROJECT [QUERY] [--repeats 5] [--opens 6]

PROJECT (a built project: `.test-cache/sample-*`) is copied to a temporary folder first, so the
answers a run stores never make the next run's tasks return at once, and PROJECT is not written.

1. Keys (issue 42's target: p95 ≤ 150 ms each). Opens QUERY (default finance-05) at 120×40 on the tier
   it opens at, starts an oracle run, then presses each of `n p ] [ 1 2 3 y w G` in turn, REPEATS times,
   and polls `tmux capture-pane` until the screen differs from the one before the key (the
   elapsed-seconds ticker, the task bar and the footer are left out of the comparison, so only the
   key's own redraw counts). A model run is kept in flight: when one ends, the next task that fits
   the shown tier and has no stored answer is started (o, g, h in turn; the key that starts it
   switches to the Model tab, and the next press is measured from there). A press counts as made
   during a model run when the task bar shows one both before the key and once its redraw is seen;
   the others are reported apart.
   Then, back on the query list (leaving the inspector cancels its run), `y` (the next verdict
   system) and `r` (the report) REPEATS times each: the first redraw (the notice that answers the
   key; the work goes on in a worker).
2. Opening a query (target: ≤ 0.5 s). For several queries, from the query list filtered to the
   query: the time from Enter to the first capture showing a ranking row (rank 1 and a DocID in a
   ranking table) under that query's head.

Both polls cost a few milliseconds: the reference is the time one `capture-pane` takes, measured in
the same run. Absolute times depend on the machine's load (say it with the figures); the reference
shows how much of a figure the poll itself is.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

SESSION = "bench-keys"
KEYS = ("n", "p", "]", "[", "1", "2", "3", "y", "w", "G")  # in the inspector, a model run in flight
MAIN_KEYS = ("y", "r")  # on the query list
TASK_KEYS = ("o", "g", "h")  # oracle, retrieve-then-read, near-miss QA: each fits an 8K window on every tier
IN_FLIGHT = "(x: cancel)"  # the task bar's own words, only while a long task runs
RANKING_ROW = re.compile(r"│ +1 +\d{3,} ")  # rank 1 and its DocID, inside a ranking table's border


def app_pid() -> int:
    """The workbench process in the pane: the deepest of the pane's processes naming workbench
    (the pane's shell and env may stand above it)."""
    pane = int(tmux("display-message", "-p", "-t", SESSION, "#{pane_pid}").strip())
    parent = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent[int(stat.parent.name)] = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue

    def depth(pid: int) -> int:  # steps up to the pane's process, -1 when not under it
        n = 0
        while pid != pane:
            if pid <= 1 or pid not in parent:
                return -1
            pid, n = parent[pid], n + 1
        return n

    found = []
    for pid in parent:
        try:
            named = b"workbench" in Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if named and depth(pid) >= 0:
            found.append((depth(pid), pid))
    if not found:
        raise SystemExit("the workbench process was not found in the tmux pane")
    return max(found)[1]


def ui_cpu_ms(pid: int) -> float:
    """CPU time of the process's main thread (Textual's UI thread), in ms: what a key costs the UI
    whatever the machine's load (the wall-clock figures grow with it)."""
    return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0]) / 1e6


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", "-L", SESSION, *args], check=True, capture_output=True, text=True).stdout


def capture() -> str:
    return tmux("capture-pane", "-p", "-t", SESSION)


def screen() -> str:
    lines = capture().splitlines()
    return "\n".join(line for line in lines[:-2] if "running " not in line)  # no ticker, task bar, footer


def in_flight(shot: str | None = None) -> bool:
    lines = (shot if shot is not None else capture()).splitlines()
    return any(IN_FLIGHT in line for line in lines[-2:])


def wait_for(text: str, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while text not in capture():
        if time.monotonic() > deadline:
            raise SystemExit(f"never saw {text!r} on the screen:\n{capture()}")
        time.sleep(0.05)


def keys(*args: str, pause: float = 0.7) -> None:
    """Keys one at a time: focus moves between them (filter → list → inspector)."""
    for k in args:
        tmux("send-keys", "-t", SESSION, *(["-l", k] if len(k) > 1 and k not in ("Enter", "Escape") else [k]))
        time.sleep(pause)


def redraw_ms(key: str, pid: int, timeout: float = 5.0) -> tuple[float, float] | None:
    """(wall ms, UI-thread CPU ms) from sending ``key`` to the first capture that differs."""
    before = screen()
    cpu = ui_cpu_ms(pid)
    start = time.perf_counter()
    tmux("send-keys", "-t", SESSION, key)
    while time.perf_counter() - start < timeout:
        if screen() != before:
            return (time.perf_counter() - start) * 1000, ui_cpu_ms(pid) - cpu
    return None


class ModelRun:
    """Keeps one model run in flight: the next task in turn that starts on the shown tier."""

    def __init__(self) -> None:
        self.turn = 0
        self.started = 0

    def keep(self) -> bool:
        if in_flight():
            return True
        for _ in range(2 * len(TASK_KEYS)):  # each task once per tier shown (] and [ alternate two tiers)
            key = TASK_KEYS[self.turn % len(TASK_KEYS)]
            self.turn += 1
            tmux("send-keys", "-t", SESSION, key)
            deadline = time.monotonic() + 3.0
            while time.monotonic() < deadline:
                if in_flight():
                    self.started += 1
                    time.sleep(0.5)  # the Model tab it switched to has drawn
                    return True
                time.sleep(0.05)
        return False


HEAD = "key      presses  median ms  p95 ms  worst ms  UI CPU median/worst ms"


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[18] if len(values) > 1 else values[0]


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.1f} (1 min) / {five:.1f} (5 min) on {os.cpu_count()} CPUs"


def summary(label: str, vals: list[tuple[float, float]], missed: int = 0) -> str:
    if not vals:
        return f"{label:<8}       0  no redraw seen"
    wall, cpu = [w for w, _ in vals], [c for _, c in vals]
    line = (f"{label:<8} {len(vals):>7}  {statistics.median(wall):>9.0f}  {p95(wall):>6.0f}  {max(wall):>8.0f}"
            f"  {statistics.median(cpu):>9.0f} / {max(cpu):.0f}")
    return line + (f"  ({missed} without a redraw in 5 s)" if missed else "")


def bench_keys(query: str, repeats: int, pid: int) -> None:
    keys("/", query, "Enter", "Enter")
    wait_for("Rankings")
    time.sleep(2)
    head = capture()
    shown_tier = head.split("gold in top 10 at ", 1)[-1].split(":", 1)[0] if "gold in top 10 at " in head else "?"
    run = ModelRun()
    if not run.keep():
        raise SystemExit("no model run would start (is the local model server available?)")
    t0 = time.perf_counter()
    for _ in range(20):
        screen()
    capture_ms = (time.perf_counter() - t0) * 1000 / 20
    during: dict[str, list[tuple[float, float]]] = {}
    idle: dict[str, list[tuple[float, float]]] = {}
    missed: dict[str, int] = {}
    for _ in range(repeats):
        for key in KEYS:
            run.keep()
            before = in_flight()
            ms = redraw_ms(key, pid)
            if ms is None:
                missed[key] = missed.get(key, 0) + 1
            else:
                (during if before and in_flight() else idle).setdefault(key, []).append(ms)
            time.sleep(0.3)
    print(f"1. key → redraw: {query} on {shown_tier} at 120×40; {load()} at the end")
    print(f"one capture-pane: {capture_ms:.1f} ms (the poll's resolution)")
    print(f"model runs started to keep one in flight: {run.started}")
    print(f"{HEAD}   (during a model run)")
    for key in KEYS:
        print(summary(key, during.get(key, []), missed.get(key, 0)))
    if idle:
        print(f"{HEAD}   (nothing in flight: the run ended before or during the press)")
        for key in KEYS:
            if key in idle:
                print(summary(key, idle[key]))
    keys("Escape", pause=1.0)  # leaving the inspector cancels its run
    wait_for(" queries · system")
    time.sleep(2)
    main: dict[str, list[tuple[float, float]]] = {}
    for _ in range(repeats):
        for key in MAIN_KEYS:
            ms = redraw_ms(key, pid)
            if ms is None:
                missed[f"list {key}"] = missed.get(f"list {key}", 0) + 1
            else:
                main.setdefault(key, []).append(ms)
            time.sleep(1.5)  # the report's worker and the notices end before the next press
    print(f"{HEAD}   (on the query list, no model run; {load()})")
    for key in MAIN_KEYS:
        print(summary(key, main.get(key, []), missed.get(f"list {key}", 0)))


def bench_open(queries: list[str], pid: int) -> None:
    t0 = time.perf_counter()
    for _ in range(20):
        capture()
    capture_ms = (time.perf_counter() - t0) * 1000 / 20
    figures: list[tuple[float, float]] = []
    print("\n2. Enter on the query list → the first ranking row on screen, at 120×40")
    print(f"one capture-pane: {capture_ms:.1f} ms (the poll's resolution)")
    for q in queries:
        wait_for(" queries · system")  # back on the list
        keys("/", pause=0.5)
        tmux("send-keys", "-t", SESSION, "C-u")  # the filter's previous query
        keys(q, "Enter", pause=1.0)
        cpu = ui_cpu_ms(pid)
        start = time.perf_counter()
        tmux("send-keys", "-t", SESSION, "Enter")
        seen = None
        while time.perf_counter() - start < 30:
            shot = capture()
            if f" {q} " in shot and RANKING_ROW.search(shot):
                seen = (time.perf_counter() - start) * 1000, ui_cpu_ms(pid) - cpu
                break
        print(f"  {q:<16} " + (f"{seen[0]:6.0f} ms  (UI CPU {seen[1]:.0f} ms)" if seen else "no ranking row in 30 s"))
        if seen is not None:
            figures.append(seen)
        time.sleep(1.5)  # the inspector's other workers (prompt sizes) end before leaving
        keys("Escape", pause=1.0)
    if figures:
        wall, cpu = [w for w, _ in figures], [c for _, c in figures]
        print(f"opens {len(figures)}  median {statistics.median(wall):.0f} ms  worst {max(wall):.0f} ms  "
              f"(UI CPU median {statistics.median(cpu):.0f} ms, worst {max(cpu):.0f} ms)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    ap.add_argument("project", type=Path)
    ap.add_argument("query", nargs="?", default="finance-05")
    ap.add_argument("--repeats", type=int, default=10, help="presses of each key")
    ap.add_argument("--opens", type=int, default=6, help="queries opened from the list")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-tui-"))
    project = tmp / args.project.name
    shutil.copytree(args.project, project)
    ids = [json.loads(line)["query_id"] for line in (project / "queries.jsonl").read_text().splitlines() if line.strip()]
    step = max(1, len(ids) // max(1, args.opens))
    opens = [q for q in ids[::step] if q != args.query][: args.opens]
    env = f"PYTHONPATH={os.environ['PYTHONPATH']} " if os.environ.get("PYTHONPATH") else ""
    subprocess.run(["tmux", "-L", SESSION, "kill-session", "-t", SESSION], capture_output=True)
    tmux("new-session", "-d", "-s", SESSION, "-x", "120", "-y", "40", f"env {env}workbench open {project}")
    try:
        wait_for(" queries · system")  # the list is loaded (the header says "queries" at once)
        time.sleep(2)
        pid = app_pid()
        print(f"at the start: {load()}")
        bench_keys(args.query, args.repeats, pid)
        bench_open(opens, pid)
    finally:
        subprocess.run(["tmux", "-L", SESSION, "kill-session", "-t", SESSION], capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
