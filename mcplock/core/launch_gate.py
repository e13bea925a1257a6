"""What must hold before `update`, `update-pr` or `refresh` launches anything a lock names
(docs/updates.md, "Before anything runs"): the lock is the reviewed artefact only when the
organisation's signing policy says so, and a variable that loads code is never run on the
lock's word alone.

- ``[signing] require = true``: the lock's signature must be by a listed key, over this lock,
  under this policy (:func:`mcplock.trust.signing.enforce`), as `check`, `diff` and the guard
  require — a pusher without the key cannot make the scheduled bot run their launch.
- ``env-loads-code``: a server whose launch sets or passes on a variable that loads code
  (``NODE_OPTIONS``, ``LD_PRELOAD`` …, :mod:`mcplock.packages.envcode`) is launched only when a
  person trusted that very launch on this machine (`mcplock trust NAME`, which shows the
  variable), or the command names it (``--allow-code-env VAR``). CI's "the lock is reviewed"
  never covers it, as a bulk trust never does.

Nothing here launches or prints; a refusal is an error (exit 2, the signature's exit 1) whose
hint is the repair.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping

from mcplock.errors import UsageError
from mcplock.lock.spec import ServerSpec
from mcplock.text.untrusted import shell_word


class CodeEnvRefused(UsageError):
    code = "env-loads-code"


def enforce_signing(lockfile: str, policy: str | None, environ: Mapping[str, str] | None = None) -> None:
    """The organisation's signing policy (``MCPLOCK_POLICY`` and ``--policy``) over ``lockfile``:
    a SignatureError (exit 1) when it requires a signature this lock does not have."""
    from mcplock.trust import org_policy
    from mcplock.trust.signing import enforce

    org = org_policy.resolve(policy, environ)
    enforce(org, lockfile)


def refuse_code_env(
    specs: Iterable[ServerSpec],
    lock_dir: str,
    allowed: Collection[str] = (),
    environ: Mapping[str, str] | None = None,
    *,
    command: str = "update",
) -> None:
    """Refuse (CodeEnvRefused) the launches (``specs``, as they would run) that load code through a
    variable that neither ``allowed`` names nor a person trusted on this machine with this very launch."""
    from mcplock.core import trust
    from mcplock.packages.envcode import of_spec

    done: set[str] | None = None
    refused: list[tuple[str, list[str]]] = []
    for spec in specs:
        names = [v for v in of_spec(spec) if v not in allowed]
        if not names:
            continue
        if done is None:
            done = trust.TrustStore(environ).trusted(trust.project_key(lock_dir))
        if trust.launch_hash(spec) in done:
            continue
        refused.append((spec.name, names))
    if refused:
        raise _refusal(refused, command)


def _refusal(refused: list[tuple[str, list[str]]], command: str) -> CodeEnvRefused:
    what = "; ".join(f"`{name}` sets {', '.join(names)}" for name, names in refused)
    first_name, first_vars = refused[0]
    return CodeEnvRefused(
        f"nothing was launched: {what}, which make{'s' if sum(len(n) for _, n in refused) == 1 else ''} its "
        "launcher load code outside the package pin, and no person trusted that launch on this machine",
        hint=f"remove the variable from the server's entry in the lock (then `mcplock sign` where signatures "
        f"are required); if a person reviewed what it loads, trust it (`mcplock trust {shell_word(first_name)}`) "
        f"or run `mcplock {command} --allow-code-env {first_vars[0]}`",
    )
