"""Checks shared by the report tests: is an HTML report self-contained? And its text
with the spans that keep hyphenated words whole taken out."""

from __future__ import annotations

import re

# Anything that would make a browser fetch something: a URL with a scheme or
# protocol-relative, a src/href not pointing inside the page, CSS imports and urls,
# external scripts, stylesheets or fonts.
_EXTERNAL = [
    re.compile(r"https?://", re.I),
    re.compile(r"""(?:src|href|srcset|poster|data)\s*=\s*["']?\s*//""", re.I),
    re.compile(r"@import", re.I),
    re.compile(r"url\(", re.I),
    re.compile(r"<link\b", re.I),
    re.compile(r"<script\b[^>]*\bsrc\s*=", re.I),
    re.compile(r"<(?:iframe|object|embed)\b", re.I),
    re.compile(r"@font-face", re.I),
]
_ATTR = re.compile(r"""\b(src|href)\s*=\s*["']([^"']*)["']""", re.I)


def external_references(html: str) -> list[str]:
    """Every reference in ``html`` to something outside the page (empty when none)."""
    found = [m.group(0) for pattern in _EXTERNAL for m in pattern.finditer(html)]
    for attr, value in _ATTR.findall(html):
        inside = value.startswith("#") or (
            attr.lower() == "src" and value.startswith("data:image/png;base64,")
        )
        if not inside:
            found.append(f"{attr}={value[:60]}")
    return found


_WORD = re.compile(r'<span class="word">([^<]*)</span>')


def words_unwrapped(html: str) -> str:
    """``html`` without the spans that keep each hyphenated word on one line
    (``<span class="word">stone-strike</span>``) and the breaks between a path's parts
    (``<wbr>``), for tests that read its text."""
    return _WORD.sub(r"\1", html).replace("<wbr>", "")
