"""A long task says how far it is and how long it has left (workbench/display.py: progress_words),
in the TUI's task bar as the CLI's bars do."""

from workbench.display import duration_words, progress_words


def test_the_count_the_rate_and_the_time_left():
    assert progress_words(0, 0, 0.0) == ""
    assert progress_words(0, 40_000, 0.0) == "0/40,000"  # nothing counted yet: no rate to tell
    assert progress_words(12_000, 40_000, 40.0) == "12,000/40,000 · 300/s · about 1 min 33 s left"
    assert progress_words(3, 10, 2.0) == "3/10 · 1.5/s · about 5 s left"
    assert progress_words(10, 10, 2.0) == "10/10 · 5.0/s"  # done: nothing left to estimate
    assert progress_words(7, 0, 1.0) == "7 · 7.0/s"  # no total known: the count and the rate only


def test_durations_in_words():
    assert duration_words(0.2) == "1 s" and duration_words(59.4) == "59 s"
    assert duration_words(60) == "1 min" and duration_words(65.2) == "1 min 5 s"
    assert duration_words(3725) == "1 h 2 min"
