"""Key → redraw in the query inspector while a model run is in flight (run by hand; needs tmux).

    python benchmarks/bench_tui_keys.py PROJECT [QUERY]

Opens PROJECT in tmux at 120×40, opens QUERY (default finance-05) on the tier it opens at, starts
an oracle run (`3` `o`), then for each of `n p [ ] 1 2 3` sends the key and polls `tmux
capture-pane` until the screen differs from the one before the key (the elapsed-seconds ticker,
the task bar and the footer are left out of the comparison, so only the key's own redraw counts).
Reported: median and worst of several presses per key, and whether the model run was still in
flight for all of them. The poll itself costs a few milliseconds: the reference is the time one
`capture-pane` takes, measured in the same run.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time

SESSION = "bench-keys"
REPEATS = 5


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], check=True, capture_output=True, text=True).stdout


def screen() -> str:
    lines = tmux("capture-pane", "-p", "-t", SESSION).splitlines()
    return "\n".join(line for line in lines[:-2] if "running " not in line)  # no ticker, task bar, footer


def wait_for(text: str, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while text not in tmux("capture-pane", "-p", "-t", SESSION):
        if time.monotonic() > deadline:
            raise SystemExit(f"never saw {text!r} on the screen")
        time.sleep(0.05)


def redraw_ms(key: str, timeout: float = 5.0) -> float | None:
    before = screen()
    start = time.perf_counter()
    tmux("send-keys", "-t", SESSION, key)
    while time.perf_counter() - start < timeout:
        if screen() != before:
            return (time.perf_counter() - start) * 1000
    return None


def main() -> None:
    project = sys.argv[1]
    query = sys.argv[2] if len(sys.argv) > 2 else "finance-05"
    env = " ".join(f"{k}={v}" for k, v in (("PYTHONPATH", os.environ.get("PYTHONPATH", "")),) if v)
    subprocess.run(["tmux", "kill-session", "-t", SESSION], capture_output=True)
    tmux("new-session", "-d", "-s", SESSION, "-x", "120", "-y", "40", f"env {env} workbench open {project}")
    wait_for("queries")
    time.sleep(1)
    tmux("send-keys", "-t", SESSION, "/", query, "Enter", "Enter")
    wait_for("Rankings")
    head = tmux("capture-pane", "-p", "-t", SESSION)
    shown_tier = head.split("gold in top 10 at ", 1)[-1].split(":", 1)[0] if "gold in top 10 at " in head else "?"
    tmux("send-keys", "-t", SESSION, "3", "o")
    wait_for("running oracle")
    t0 = time.perf_counter()
    for _ in range(20):
        screen()
    capture_ms = (time.perf_counter() - t0) * 1000 / 20
    figures: dict[str, list[float]] = {}
    missed: dict[str, int] = {}
    for _ in range(REPEATS):
        for key in ("n", "p", "]", "[", "1", "2", "3"):
            ms = redraw_ms(key)
            if ms is None:
                missed[key] = missed.get(key, 0) + 1
            else:
                figures.setdefault(key, []).append(ms)
            time.sleep(0.3)
    still_running = "running oracle" in tmux("capture-pane", "-p", "-t", SESSION)
    print(f"{query} on {shown_tier}")
    print(f"one capture-pane: {capture_ms:.1f} ms (the poll's resolution)")
    print(f"model run still in flight at the end: {still_running}")
    print("key   presses  median ms  worst ms")
    for key in ("n", "p", "]", "[", "1", "2", "3"):
        vals = figures.get(key, [])
        if vals:
            print(f"{key:<5} {len(vals):>7}  {statistics.median(vals):>9.0f}  {max(vals):>8.0f}"
                  + (f"  ({missed[key]} without a redraw in 5 s)" if key in missed else ""))
        else:
            print(f"{key:<5}       0  no redraw seen")
    subprocess.run(["tmux", "kill-session", "-t", SESSION], capture_output=True)


if __name__ == "__main__":
    main()
