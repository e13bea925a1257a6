"""What the guard's parts read of the session and never write: what the host said
(:class:`HostState`, written by :class:`mcplock.guard.guard.Guard` alone), and the one way a
part says something on stderr (:class:`Notes`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mcplock.trust.decide import Host


@dataclass(slots=True)
class HostState:
    """The host of one session, as the guard learnt it."""

    policy: Host  # what the host can do (elicitation, the capabilities it lacks), for the lock's decisions
    era: str | None = None  # "legacy" (initialize) or "modern" (server/discover, the envelope); None: not yet
    caps: dict[str, Any] = field(default_factory=dict)  # the capabilities it declared
    ready: bool = False  # the upstream is verified and the host's opening answered: requests are served
    gone: bool = False  # stdin closed: nothing asked of the host can be answered any more

    @property
    def modern(self) -> bool:
        return self.era == "modern"


class Notes:
    """stderr for the guard's parts: :meth:`say` a line, :meth:`note` one only once per key."""

    __slots__ = ("_said", "say")

    def __init__(self, say: Callable[[str], None]) -> None:
        self.say = say
        self._said: set[str] = set()

    def note(self, key: str, text: str) -> None:
        if key not in self._said:
            self._said.add(key)
            self.say(text)
