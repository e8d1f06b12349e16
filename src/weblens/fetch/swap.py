"""Swapping a stand-in into a module of a library weblens builds on, guarded by the library's source.

A stand-in (`fast_justext`, `fast_prepare`) does what some of the library's code does, faster. It is
swapped in only while that code is the code it was written against: the first 32 bits of the SHA-256
of the named functions' and classes' sources (plus any extra text, a constant's value) must equal the
digest it was written against. A release that changes that code keeps its own; the output stays right.
`stock` puts the library's own back for a while (a benchmark's baseline).
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import inspect
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["GuardedSwap"]


class GuardedSwap:
    """Attributes of `module` replaced by stand-ins (`replacements`: name -> the stand-in, looked up when
    installed), while `sources()` hashes to `digest`."""

    def __init__(
        self, module: str, replacements: dict[str, Callable[[], Any]], sources: Callable[[], list[Any]], digest: str
    ) -> None:
        self.module, self.replacements, self.sources, self.digest = module, replacements, sources, digest
        self.originals: dict[str, Any] = {}

    def _module(self) -> Any:
        return importlib.import_module(self.module)

    @functools.cached_property
    def _source_digest(self) -> str | None:
        try:
            parts = [part if isinstance(part, str) else inspect.getsource(part) for part in self.sources()]
        except (ImportError, AttributeError, OSError, TypeError):
            return None
        return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:8]

    def source_digest(self) -> str | None:
        """The first 8 hex digits of the SHA-256 of the sources (None when they cannot be read)."""
        return self._source_digest

    def install(self, digest: str | None = None) -> bool:
        """Swap the stand-ins in when the sources hash to `digest` (by default the one written against);
        whether they are in."""
        if self._source_digest != (digest or self.digest):
            return False
        module = self._module()
        if not self.originals:
            self.originals = {name: getattr(module, name) for name in self.replacements}
        self._put({name: made() for name, made in self.replacements.items()})
        return True

    def installed(self) -> bool:
        module = self._module()
        return all(getattr(module, name) is made() for name, made in self.replacements.items())

    def _put(self, values: dict[str, Any]) -> None:
        module = self._module()
        for name, value in values.items():
            setattr(module, name, value)

    @contextmanager
    def stock(self) -> Iterator[None]:
        """The library's own code for the duration (a benchmark's baseline); the stand-ins after."""
        active = self.installed()
        if active:
            self._put(self.originals)
        try:
            yield
        finally:
            if active:
                self.install()
