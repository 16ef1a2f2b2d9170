"""Text that comes from data (documents, queries, project names, endpoint errors) shown as text.

A document may carry ANSI/OSC escape sequences (window title, colours, OSC 8 links, OSC 52 clipboard)
or Rich markup; neither may drive the terminal or the renderer. `visible` makes every control
character printable (ESC → ␛, other C0 → their Unicode control pictures, C1 and bidi overrides →
`<U+XXXX>`); `markup_escaped` also escapes Rich markup; `as_text` builds a Rich/Textual `Text`, which
is never parsed as markup. Use one of them wherever data meets a screen, a table or a report.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.text import Text

# C0 controls except tab and newline, DEL, C1 controls, and the Unicode bidi/format controls that can
# reorder or hide what is shown (Trojan-Source style).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f\x80-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _picture(match: re.Match[str]) -> str:
    c = match.group()
    code = ord(c)
    if code < 0x20:
        return chr(0x2400 + code)  # ␀ … ␟ (ESC → ␛)
    if code == 0x7F:
        return "\u2421"  # ␡
    return f"<U+{code:04X}>"


def visible(text: str, *, one_line: bool = False) -> str:
    """Control characters made visible; with one_line, newlines and tabs become spaces."""
    out = _CONTROL.sub(_picture, text)
    if one_line:
        out = out.replace("\r", " ").replace("\n", " ").replace("\t", " ")
    return out


def markup_escaped(text: str, *, one_line: bool = False) -> str:
    """Safe to embed in a Rich markup string (console.print(f"... {markup_escaped(x)} ..."))."""
    from rich.markup import escape  # here: rich is not imported by commands that print through it nothing

    return escape(visible(text, one_line=one_line))


def as_text(text: str, style: str = "", *, one_line: bool = False) -> Text:
    """A Rich Text (also a Textual renderable) of data: never parsed as markup."""
    from rich.text import Text

    return Text(visible(text, one_line=one_line), style=style)


# "Authorization: Bearer <token>" echoed back by an endpoint (or a proxy) in an error body.
_BEARER = re.compile(r"(?i)\b(bearer)\s+[A-Za-z0-9._~+/=-]{4,}")
REDACTED = "***"


def redacted(text: str, secrets: tuple[str, ...] | list[str] = (), *, bearer: bool = True) -> str:
    """``text`` with each secret value (an API key from the environment) and every Bearer token
    replaced by ***: how error texts are stored and shown. ``bearer`` False: the key values only
    (a model's answer may say "bearer" in plain prose)."""
    for secret in secrets:
        if secret and len(secret) >= 4:  # a 1-3 character "key" would blank out ordinary words
            text = text.replace(secret, REDACTED)
    return _BEARER.sub(rf"\1 {REDACTED}", text) if bearer else text
