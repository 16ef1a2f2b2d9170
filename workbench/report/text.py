"""Data text as the reports write it: control characters visible (workbench/safe_text.py), and also
the invisible format characters a reader could not see otherwise (zero-width space, joiners, the word
joiner, the byte-order mark, the soft hyphen…), written `<U+XXXX>` as safe_text writes U+202E.

For Markdown, bare URLs are also kept from becoming links: GitHub-style autolinking turns
`https://…`, `ftp://…` and `www.…` into live links, so the colon of a scheme and the dot after
`www` are backslash-escaped (a valid CommonMark escape: the text reads the same, nothing links).
E-mail addresses are still autolinked by GitHub (its rule reads the text after escapes): left as is.
"""

from __future__ import annotations

import re

from workbench.safe_text import visible

# Default-ignorable format characters that render as nothing (Unicode "Cf" that hide text).
_INVISIBLE = re.compile("[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200d\u2060-\u2064"
                        "\u206a-\u206f\u3164\ufeff\uffa0\U000e0000-\U000e007f]")
_SCHEME = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]{1,31}):(?=//)")
_WWW = re.compile(r"(?i)\b(www)\.")


def shown(text: object, *, one_line: bool = False) -> str:
    """Every character of data visible: controls as pictures, invisible format characters as <U+XXXX>."""
    return _INVISIBLE.sub(lambda m: f"<U+{ord(m.group()):04X}>", visible(str(text), one_line=one_line))


def no_autolinks(markdown_text: str) -> str:
    """Markdown (already escaped) in which no bare URL becomes a link: `https\\://`, `www\\.`."""
    return _WWW.sub(r"\1\\.", _SCHEME.sub(r"\1\\:", markdown_text))
