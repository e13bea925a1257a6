"""What each SARIF rule of ``diff`` and ``check`` says (its short and full description): the
``check/<code>`` problems, ``pending/review``, and ``drift/<kind>-<change>`` by kind and change.
Text only: :mod:`mcplock.render.formats.sarif` writes the rules a run used."""

from __future__ import annotations

from mcplock.render.formats.common import KIND_TITLE

CHECK_RULES = {
    "hash-mismatch": (
        "A stored definition does not match its hash",
        "The lock was edited by hand or tampered with: what hosts would load is not what was reviewed.",
    ),
    "config-changed": (
        "A server changed in its host config since it was locked",
        "The host config and the lock disagree; re-import and re-probe the server.",
    ),
    "config-missing": (
        "A locked server is gone from its host config",
        "Remove it from the lock, or put it back in the host config.",
    ),
    "not-locked": (
        "A server of a host config is not in the lock",
        "Its tools reach the model without review; add it to the lock.",
    ),
    "config-error": (
        "A host config named by the lock cannot be read",
        "Restore the host config, or remove the servers imported from it.",
    ),
    "source-missing": (
        "A host config named by the lock no longer exists",
        "Restore the host config, or remove the servers imported from it.",
    ),
    "unknown-value": (
        "A value in the lock is not one mcplock knows",
        'An unknown `approval` is read as "always" (ask before each call); set it explicitly.',
    ),
    "pin-no-integrity": (
        "A package pin has no integrity",
        "What the server's command runs cannot be verified; resolve the pin again with `mcplock update`.",
    ),
    "policy/tools.deny": (
        "A tool the organisation's policy denies is enabled",
        "The policy (docs/policy.md) outranks the lock: the guard refuses the tool anyway.",
    ),
    "policy/tools.require-approval": (
        "A tool the organisation's policy keeps on approval is set to `never`",
        'Set `approval = "always"` with `mcplock approval`.',
    ),
    "policy/review.max-accepted-severity": (
        "An accepted item has findings above the policy's limit",
        "Review it with `mcplock show`; `mcplock disable` hides a tool.",
    ),
    "policy/packages.require-pin": ("A launched package has no pin", "Pin it with `mcplock update`."),
    "policy/packages.allow-registries": (
        "A server runs a package from a registry the policy does not allow",
        "Remove the server, or ask the policy's owners.",
    ),
    "policy/servers.allow": (
        "A server the organisation's policy does not allow",
        "Remove the server, or ask the policy's owners.",
    ),
    "pin-not-exact": (
        "A package pin names no one exact release",
        "Its version is an alias (`npm:other@1.0.0`), a range, a tag or a URL: the installer would "
        "run something the pin does not say, so nothing of it is started; restore the lock from git "
        "or pin again with `mcplock update`.",
    ),
    "env-loads-code": (
        "A server's launch sets a variable that loads code",
        "`NODE_OPTIONS`, `LD_PRELOAD`, `PYTHONPATH`, `BASH_ENV` … make the launcher load other code, "
        "which runs outside the package pin. Critical; a warning: `mcplock check` does not fail on "
        "it unless the organisation's policy accepts nothing above high.",
    ),
    "critical-accepted": (
        "An accepted, enabled item has critical lint findings",
        "It was accepted by name (or before the lint knew better) and reaches the model. Review "
        "it with `mcplock show`; `mcplock disable` hides a tool from hosts. A warning: `mcplock "
        "check` does not fail on it.",
    ),
}


PENDING_TEXT = (
    "A staged change awaits review",
    "A proposal staged by `mcplock refresh` or `mcplock add` awaits `mcplock accept` or `mcplock reject`; "
    "changed tools stay disabled until then.",
)


def drift_rule_text(kind: str, change: str) -> tuple[str, str]:
    what = KIND_TITLE.get(kind, kind)
    act = (
        "Review it before it reaches the model: `mcplock diff` shows it, `mcplock refresh` stages it, "
        "`mcplock accept` or `mcplock reject` decides."
    )
    if change == "changed":
        return (
            f"A locked {what} changed upstream",
            f"The server's {what} no longer matches the definition reviewed in the lock (a possible rug pull). " + act,
        )
    if change == "added":
        return (
            f"A server offers a {what} that is not in the lock",
            f"A new {what} has not been reviewed; hosts must not show it to the model yet. " + act,
        )
    return (
        f"A locked {what} is no longer offered",
        f"The server dropped a {what} that the lock pins; agents or hosts relying on it will fail. " + act,
    )
