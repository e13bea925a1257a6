"""What the package cache reads of a server spec, as a type: :class:`mcplock.lock.spec.ServerSpec` is one.

``packages`` may not import ``spec`` (``spec`` imports :mod:`mcplock.packages.pin`; the
architecture test forbids the cycle, type-only imports included), so the cache states the part of
a spec it uses as a protocol and hands back the same type it was given (``dataclasses.replace``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import Field
from typing import Any, ClassVar, Protocol, TypeVar

from mcplock.model.paths import Env  # the environment a cache location is read from (None: os.environ)
from mcplock.packages.pin import PackagePin

__all__ = ["Env", "Runnable", "S"]


class Runnable(Protocol):
    """A server spec as the package cache reads it: a frozen dataclass (the cache rewrites it
    with ``dataclasses.replace``) with a name, a command line, an environment and its pin."""

    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]

    @property
    def name(self) -> str: ...
    @property
    def command(self) -> str | None: ...
    @property
    def args(self) -> tuple[str, ...]: ...
    @property
    def env(self) -> Mapping[str, str]: ...
    @property
    def stdio(self) -> bool: ...
    @property
    def package(self) -> PackagePin | None: ...


S = TypeVar("S", bound=Runnable)
