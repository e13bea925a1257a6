"""What a ``docker run`` / ``podman run`` command line runs: the image (repository, tag, digest) and
whether its options hand the container the host (:func:`host_access`). No I/O.

The image is found only where every option before it is known (valued or a flag): an option
mcplock does not know leaves the image unknown, so the command has no pin — a valued option
mcplock did not know once made it pin the option's value.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from mcplock.packages.launch import LOCAL, Launch, NoPin, _is_option, _scan

_DOCKER_VALUED = frozenset(
    {
        "-e",
        "--env",
        "--env-file",
        "-v",
        "--volume",
        "--name",
        "-p",
        "--publish",
        "--network",
        "--net",
        "--entrypoint",
        "-w",
        "--workdir",
        "-u",
        "--user",
        "--mount",
        "-l",
        "--label",
        "--label-file",
        "--platform",
        "--pull",
        "-m",
        "--memory",
        "--memory-swap",
        "--memory-reservation",
        "--cpus",
        "--cpu-shares",
        "-c",
        "--cpuset-cpus",
        "--add-host",
        "--cap-add",
        "--cap-drop",
        "--device",
        "--dns",
        "--dns-search",
        "--dns-option",
        "-h",
        "--hostname",
        "--ipc",
        "--pid",
        "--restart",
        "--runtime",
        "--security-opt",
        "--shm-size",
        "--tmpfs",
        "--ulimit",
        "--gpus",
        "--log-driver",
        "--log-opt",
        "--cidfile",
        "--group-add",
        "--expose",
        "--link",
        "--volumes-from",
        "--stop-signal",
        "--stop-timeout",
        "--health-cmd",
        "--health-interval",
        "--health-retries",
        "--health-timeout",
        "--attach",
        "-a",
        "--cgroupns",
        "--cgroup-parent",
        "--isolation",
        "--mac-address",
        "--ip",
        "--ip6",
        "--network-alias",
        "--pids-limit",
        "--storage-opt",
        "--sysctl",
        "--userns",
        "--uts",
        "--detach-keys",
        "--annotation",
        "--device-cgroup-rule",
        "--blkio-weight",
        "--kernel-memory",
        "--oom-score-adj",
        "--volume-driver",
        "--domainname",
        "--dns-opt",
        "--blkio-weight-device",
        "--cpu-period",
        "--cpu-quota",
        "--cpu-rt-period",
        "--cpu-rt-runtime",
        "--cpuset-mems",
        "--device-read-bps",
        "--device-read-iops",
        "--device-write-bps",
        "--device-write-iops",
        "--health-start-period",
        "--health-start-interval",
        "--link-local-ip",
        "--memory-swappiness",
        "--cpu-count",
        "--cpu-percent",
        "--io-maxbandwidth",
        "--io-maxiops",
    }
)
# docker run's options that take no value: an option in neither set leaves the image unknown, so
# the command has no pin (a valued option mcplock did not know made it pin the option's value)
_DOCKER_FLAGS = frozenset(
    {
        "-i",
        "--interactive",
        "-t",
        "--tty",
        "-d",
        "--detach",
        "--rm",
        "--init",
        "--privileged",
        "--read-only",
        "-P",
        "--publish-all",
        "-q",
        "--quiet",
        "--sig-proxy",
        "--no-healthcheck",
        "--oom-kill-disable",
        "--disable-content-trust",
        "--help",
        "--use-api-socket",
    }
)
_SHORT_FLAGS = {o[1] for o in _DOCKER_FLAGS if len(o) == 2}
_DOCKER_GLOBAL_VALUED = frozenset(
    {"-H", "--host", "--context", "-c", "--config", "-l", "--log-level", "--tlscacert", "--tlscert", "--tlskey"}
)
_SHORT_VALUED = {o[1] for o in _DOCKER_VALUED if len(o) == 2}
_DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")


def image_ref(ref: str) -> tuple[str, str | None, str | None] | None:
    """``repo[:tag][@sha256:…]`` → (repo, tag, digest); None when it is not an image reference."""
    named, _, digest = ref.partition("@")
    if digest and not _DIGEST.match(digest):
        return None
    repo, tag = _split_tag(named)
    if tag == "" or not _IMAGE_REPO.match(repo):
        return None
    return repo, tag, digest or None


_IMAGE_REPO = re.compile(r"^[a-z0-9]+([._:/-][a-z0-9]+)*$")


def _split_tag(named: str) -> tuple[str, str | None]:
    """``repo:tag`` → (repo, tag): the colon after the last slash (a registry's ``host:port/``
    is no tag); tag None when there is none."""
    colon = named.rfind(":")
    if colon > named.rfind("/"):
        return named[:colon], named[colon + 1 :]
    return named, None


def _docker_opts(argv: Sequence[str]) -> int | str:
    """The index of the image in ``docker run`` arguments (short flags may be bundled: ``-it``,
    ``-eK=V``, ``-ie K=V``), or the option mcplock does not know (then where the image is is
    not known either)."""
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            return i + 1
        if not _is_option(a):
            return i
        words = _long_option(a) if a.startswith("--") else _short_options(a[1:])
        if isinstance(words, str):
            return words
        i += words
    return i


def _long_option(a: str) -> int | str:
    """How many words a ``--option`` takes (its value may be the next word), or the option when
    mcplock does not know it."""
    key = a.partition("=")[0]
    if key not in _DOCKER_VALUED and key not in _DOCKER_FLAGS:
        return key
    return 2 if ("=" not in a and a in _DOCKER_VALUED) else 1


def _short_options(letters: str) -> int | str:
    """How many words ``-abc`` takes: flags, the first valued letter taking the rest of the word
    or the next word; or the letter mcplock does not know."""
    for j, ch in enumerate(letters):
        if ch in _SHORT_VALUED:
            return 1 if j + 1 < len(letters) else 2
        if ch not in _SHORT_FLAGS:
            return f"-{ch}"
    return 1


_HOST_NAMESPACES = ("--pid", "--network", "--net", "--ipc", "--uts", "--userns", "--cgroupns")
_SOCKETS = ("/var/run/docker.sock", "/run/docker.sock", "/run/podman/podman.sock", "/var/run/podman/podman.sock")


def host_access(options: Sequence[str]) -> list[str]:
    """The ``docker run`` options (as written) that let the container out to the host: it then
    runs as the host would, whatever image the pin names (``--privileged``, a host namespace,
    the host's root or the docker socket mounted, every capability or a device)."""
    return [shown for key, value, shown in _valued_options(options) if _reaches_host(key, value)]


def _valued_options(options: Sequence[str]) -> Iterator[tuple[str, str, str]]:
    """Each option with its value, as ``(option, value, as written)``: ``--opt=V``, ``--opt V``
    (for an option that takes one), ``-vV``; a flag's value is empty."""
    i = 0
    while i < len(options):
        key, value, shown, words = _valued_option_at(options, i)
        yield key, value, shown
        i += words


def _valued_option_at(options: Sequence[str], i: int) -> tuple[str, str, str, int]:
    """The option at ``options[i]`` as ``(option, value, as written)``, and how many words it takes."""
    a = options[i]
    key, eq, value = a.partition("=")
    if not eq and key in _DOCKER_VALUED and i + 1 < len(options):
        return key, options[i + 1], f"{a} {options[i + 1]}", 2
    if not eq and len(a) > 2 and a.startswith("-v"):  # -v/src:/dst
        return a[:2], a[2:], a, 1
    return key, value, a, 1


def _reaches_host(key: str, value: str) -> bool:
    """Whether one ``docker run`` option hands the container the host."""
    src = _mount_source(key, value)
    return (
        key in ("--privileged", "--device")
        or (key in _HOST_NAMESPACES and value == "host")
        or bool(src and _host_path(src))
        or (key == "--cap-add" and value.upper() in ("ALL", "SYS_ADMIN", "SYS_PTRACE", "SYS_MODULE"))
    )


def _host_path(src: str) -> bool:
    """Whether mounting this host path hands the container the host: the docker socket, the
    root or one of its system directories."""
    return src in _SOCKETS or src.rstrip("/") in ("", "/etc", "/root", "/home", "/proc", "/sys")


def _mount_source(key: str, value: str) -> str | None:
    """The host path a ``-v``/``--volume``/``--mount`` option mounts (None for any other option)."""
    if key in ("-v", "--volume"):
        return value.split(":", 1)[0]
    if key == "--mount":
        return next((p.split("=", 1)[1] for p in value.split(",") if p.startswith(("source=", "src="))), "")
    return None


def _docker(argv: Sequence[str]) -> Launch | NoPin:
    _, i = _scan(argv, _DOCKER_GLOBAL_VALUED)
    rest = _run_arguments(argv[i:])
    if rest is None:
        return LOCAL
    at = _docker_opts(rest)
    if isinstance(at, str):
        return NoPin(f"no registry pin (docker run option {at} is not one mcplock knows, so neither is the image)")
    if at >= len(rest):
        return NoPin("no registry pin (docker run names no image)")
    ref = image_ref(rest[at])
    if ref is None:
        return NoPin(f"no registry pin ({rest[at]} is not an image reference)")
    repo, tag, digest = ref
    return Launch("docker run", "oci", repo, tag, args=tuple(rest[at + 1 :]), options=tuple(rest[:at]), digest=digest)


def _run_arguments(command: Sequence[str]) -> Sequence[str] | None:
    """What follows ``run`` / ``container run`` in a docker command (None: another command)."""
    for sub in (["run"], ["container", "run"]):
        if command[: len(sub)] == sub:
            return command[len(sub) :]
    return None
