from rich.console import Console

from workbench.safe_text import as_text, markup_escaped, visible


def test_escape_sequences_become_visible():
    osc_title = "\x1b]0;pwned\x07doc"
    assert "\x1b" not in visible(osc_title) and "\x07" not in visible(osc_title)
    assert visible(osc_title) == "␛]0;pwned␇doc"
    assert visible("a\x9bb\u202ec") == "a<U+009B>b<U+202E>c"
    assert visible("line1\nline2\tx") == "line1\nline2\tx"
    assert visible("line1\nline2", one_line=True) == "line1 line2"


def test_markup_is_not_interpreted():
    console = Console(record=True, width=200, color_system=None)
    console.print(f"name: {markup_escaped('[blink]P[/][link=https://example.invalid]L[/link]')}")
    out = console.export_text()
    assert "[blink]P[/][link=https://example.invalid]L[/link]" in out
    assert as_text("[bold]x[/]").plain == "[bold]x[/]"
