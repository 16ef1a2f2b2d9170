"""Recording what an operation returned on its way through (not a test)."""

from __future__ import annotations


def recording(monkeypatch, module, name: str) -> list:
    """Each call's result of ``module.name``, recorded on the way through the real function."""
    real, seen = getattr(module, name), []

    def through(*args, **kwargs):
        seen.append(real(*args, **kwargs))
        return seen[-1]

    monkeypatch.setattr(module, name, through)
    return seen
