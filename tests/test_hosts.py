"""mcplock.hosts: importing servers from MCP host configs (samples in tests/data/host-configs)."""

from __future__ import annotations

import dataclasses
import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcplock.errors import ConfigError, UsageError
from mcplock.hosts import (
    HostConfig,
    ImportedServer,
    config_hash,
    detect_host,
    discover,
    load_host_config,
)
from mcplock.hosts.jsonc import to_json
from mcplock.lock.templates import expand

DATA = Path(__file__).parent / "data" / "host-configs"
CANARY = "ghp_CANARY1234567890abcdefghij"


def load(name: str, **kw: object) -> HostConfig:
    return load_host_config(DATA / name, **kw)  # type: ignore[arg-type]


def write(tmp_path: Path, rel: str, text: str) -> Path:
    p = tmp_path / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    return p


def stored(hc: HostConfig) -> dict[str, dict[str, object]]:
    return {n: s.spec.stored() for n, s in hc.servers.items()}


def assert_no_canary(*objs: object) -> None:
    for o in objs:
        assert CANARY not in repr(o)
        assert CANARY not in str(o)


# --- every sample ----------------------------------------------------------------------------


def test_claude_code_project_file() -> None:
    hc = load("claude-code.mcp.json")
    assert hc.host == "claude-code"
    assert list(hc.servers) == ["github", "github-local", "filesystem", "internal-docs"]
    assert hc.skipped == {}
    s = stored(hc)
    assert s["github"] == {
        "transport": "http",
        "url": "https://api.githubcopilot.com/mcp/",
        "headers": {"Authorization": "Bearer ${GITHUB_TOKEN}"},
    }
    assert s["github-local"]["transport"] == "stdio"
    assert s["github-local"]["command"] == "docker"
    assert s["github-local"]["env"] == {"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}"}
    # type missing = stdio; ${VAR:-default} kept as is
    assert s["filesystem"] == {
        "transport": "stdio",
        "command": "npx",
        "args": ["-y", "@modelcontextprotocol/server-filesystem", "${CLAUDE_PROJECT_DIR:-.}"],
    }
    assert s["internal-docs"] == {
        "transport": "sse",
        "url": "${DOCS_MCP_URL:-https://mcp.internal.example.com/sse}",
        "headers": {"X-API-Key": "${DOCS_API_KEY}"},
    }
    for imp in hc.servers.values():
        assert imp.spec.source == str(DATA / "claude-code.mcp.json")
        assert imp.templated == ()
        assert dict(imp.spec.secrets) == {}


def test_source_override() -> None:
    hc = load("claude-code.mcp.json", source=".mcp.json")
    assert {s.spec.source for s in hc.servers.values()} == {".mcp.json"}
    assert hc.path == str(DATA / "claude-code.mcp.json")


def test_claude_user_file_with_project_scope() -> None:
    hc = load("claude-code.claude.json", project_dir="/home/dev/work/acme-api")
    assert hc.host == "claude-code"
    assert list(hc.servers) == ["notion", "stripe", "sqlite"]
    s = stored(hc)
    assert s["notion"] == {"transport": "http", "url": "https://mcp.notion.com/mcp"}
    assert s["stripe"] == {"transport": "http", "url": "https://mcp.stripe.com"}
    assert s["sqlite"]["args"] == ["mcp-server-sqlite", "--db-path", "${HOME}/data/acme.db"]
    assert s["sqlite"]["env"] == {"LOG_LEVEL": "${LOG_LEVEL:-info}"}
    assert any("disabledMcpServers" in w for w in hc.servers["notion"].warnings)
    assert any("local scope" in w for w in hc.servers["stripe"].warnings)


def test_claude_user_file_other_directory(tmp_path: Path) -> None:
    hc = load("claude-code.claude.json", project_dir=tmp_path)
    assert list(hc.servers) == ["notion"]
    assert any("1 other project scope" in w for w in hc.warnings)


def test_claude_user_file_local_wins_whole(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    proj.mkdir()
    cfg = {
        "mcpServers": {"a": {"command": "user-cmd", "env": {"X": "1"}}, "b": {"command": "b"}},
        "projects": {str(proj): {"mcpServers": {"a": {"command": "local-cmd"}}}},
    }
    p = write(tmp_path, ".claude.json", json.dumps(cfg))
    hc = load_host_config(p, project_dir=proj)
    assert list(hc.servers) == ["a", "b"]
    assert stored(hc)["a"] == {"transport": "stdio", "command": "local-cmd"}  # not merged with user env
    assert any("replaces the user-scope entry" in w for w in hc.servers["a"].warnings)


def test_claude_code_transport_rules(tmp_path: Path) -> None:
    cfg = {
        "mcpServers": {
            "alias": {"type": "streamable-http", "url": "https://x.example/mcp"},
            "untyped-url": {"url": "https://x.example/mcp"},
            "ws": {"type": "ws", "url": "wss://x.example/mcp"},
            "nothing": {"args": ["x"]},
            "http-no-url": {"type": "http"},
            "stdio-no-cmd": {"type": "stdio", "url": "https://x.example"},
            "weird": {"type": "carrier-pigeon", "url": "https://x.example"},
        }
    }
    hc = load_host_config(write(tmp_path, ".mcp.json", json.dumps(cfg)))
    assert list(hc.servers) == ["alias"]
    assert hc.servers["alias"].spec.transport == "http"
    assert "url without type" in hc.skipped["untyped-url"]
    assert "ws transport not supported" in hc.skipped["ws"]
    assert "neither command nor url" in hc.skipped["nothing"]
    assert "without a url" in hc.skipped["http-no-url"]
    assert "without a command" in hc.skipped["stdio-no-cmd"]
    assert "unknown transport type" in hc.skipped["weird"]


def test_claude_desktop() -> None:
    hc = load("claude_desktop_config.json")
    assert hc.host == "claude-desktop"
    assert list(hc.servers) == ["filesystem", "github-local", "github-remote", "internal-docs"]
    assert all(s.spec.transport == "stdio" for s in hc.servers.values())
    gl = hc.servers["github-local"]
    # a REPLACE_WITH_… placeholder under a secret-sounding key still counts as a literal secret
    assert gl.spec.env == {"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_PERSONAL_ACCESS_TOKEN}"}
    assert gl.spec.secrets == {"GITHUB_PERSONAL_ACCESS_TOKEN": "REPLACE_WITH_GITHUB_TOKEN"}
    assert gl.templated == ("env GITHUB_PERSONAL_ACCESS_TOKEN: literal value moved to ${GITHUB_PERSONAL_ACCESS_TOKEN}",)
    assert any("placeholder" in w for w in gl.warnings)
    rem = hc.servers["github-remote"]
    assert rem.spec.env == {"AUTH_HEADER": "${AUTH_HEADER}"}
    assert rem.spec.args[-1] == "Authorization:${AUTH_HEADER}"
    # the probe expands the mcp-remote argument from the config's value, in memory
    assert expand(rem.spec.args[-1], {}, rem.spec.secrets) == "Authorization:Bearer REPLACE_WITH_GITHUB_TOKEN"
    docs = hc.servers["internal-docs"]
    assert docs.spec.env == {"DOCS_API_KEY": "${DOCS_API_KEY}"}
    for imp in hc.servers.values():
        assert "REPLACE_WITH" not in json.dumps(imp.spec.stored())
        assert "REPLACE_WITH" not in repr(imp)


def test_claude_desktop_remote_entry_skipped(tmp_path: Path) -> None:
    p = write(tmp_path, "claude_desktop_config.json", '{"mcpServers": {"r": {"url": "https://x.example/mcp"}}}')
    hc = load_host_config(p)
    assert hc.servers == {}
    assert "Claude Desktop" in hc.skipped["r"]


def test_cursor() -> None:
    hc = load("cursor.mcp.json", host="cursor")
    assert hc.host == "cursor"
    s = stored(hc)
    assert s["github"] == {
        "transport": "http",
        "url": "https://api.githubcopilot.com/mcp/",
        "headers": {"Authorization": "Bearer ${GITHUB_TOKEN}"},  # ${env:NAME} → ${NAME}
    }
    assert s["github-local"]["env"] == {"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}"}
    # ${workspaceFolder} → ${MCPLOCK_PROJECT_DIR:-.}
    assert s["project-tools"]["args"] == ["${MCPLOCK_PROJECT_DIR:-.}/tools/mcp_server.py"]
    assert s["project-tools"]["env"] == {"LOG_LEVEL": "info"}
    assert any("envFile" in w for w in hc.servers["project-tools"].warnings)
    # url without type ending in /sse: legacy SSE, with a warning
    assert s["internal-docs"]["transport"] == "sse"
    assert s["internal-docs"]["headers"] == {"X-API-Key": "${DOCS_API_KEY}"}
    assert any("/sse" in w for w in hc.servers["internal-docs"].warnings)
    assert hc.skipped == {}


def test_vscode() -> None:
    hc = load("vscode.mcp.json")
    assert hc.host == "vscode"
    assert list(hc.servers) == ["github", "githubLocal", "projectTools", "internalDocs"]
    s = stored(hc)
    assert s["github"]["headers"] == {"Authorization": "Bearer ${MCP_INPUT_GITHUB_TOKEN}"}
    assert "${input:github-token} prompts in VS Code: set MCP_INPUT_GITHUB_TOKEN in the environment for mcplock" in (
        hc.servers["github"].warnings
    )
    assert s["githubLocal"]["env"] == {"GITHUB_PERSONAL_ACCESS_TOKEN": "${MCP_INPUT_GITHUB_TOKEN}"}
    # type optional: command = stdio; cwd kept with ${workspaceFolder} mapped
    assert s["projectTools"] == {
        "transport": "stdio",
        "command": "uv",
        "args": ["run", "mcp-server"],
        "env": {"DATABASE_URL": "${DATABASE_URL}", "LOG_LEVEL": "info"},
        "cwd": "${MCPLOCK_PROJECT_DIR:-.}/tools",
    }
    assert s["internalDocs"]["transport"] == "sse"
    assert s["internalDocs"]["headers"] == {"X-API-Key": "${MCP_INPUT_DOCS_API_KEY}"}


def test_vscode_jsonc_and_rules(tmp_path: Path) -> None:
    text = """// workspace MCP servers
{
  /* block
     comment */
  "servers": {
    "web": {"url": "https://x.example/mcp", "headers": {"X-Url": "http://a//b", },},  // trailing
    "tricky": {"command": "node", "args": ["/* not a comment */", "// nor this", "a,]"]},
    "home": {"command": "${userHome}/bin/srv", "args": ["${workspaceFolder}${/}x", "${env:FOO}"]},
    "sock": {"type": "http", "url": "unix:///tmp/mcp.sock"},
    "pipe": {"url": "pipe:///mcp"},
    "cmdvar": {"command": "x", "args": ["${command:pickFile}"]},
    "both": {"command": "srv", "url": "https://x.example/mcp"},
  },
}
"""
    hc = load_host_config(write(tmp_path, ".vscode/mcp.json", text))
    assert hc.host == "vscode"
    s = stored(hc)
    assert s["web"] == {"transport": "http", "url": "https://x.example/mcp", "headers": {"X-Url": "http://a//b"}}
    assert s["tricky"]["args"] == ["/* not a comment */", "// nor this", "a,]"]
    assert s["home"]["command"] == "${HOME}/bin/srv"
    assert s["home"]["args"] == ["${MCPLOCK_PROJECT_DIR:-.}/x", "${FOO}"]
    assert "unix://" in hc.skipped["sock"]
    assert "pipe://" in hc.skipped["pipe"]
    assert "${command:…}" in hc.skipped["cmdvar"]
    assert s["both"]["transport"] == "stdio"


def test_windsurf() -> None:
    hc = load("windsurf.mcp_config.json")
    assert hc.host == "windsurf"
    s = stored(hc)
    assert s["github"] == {
        "transport": "http",
        "url": "https://api.githubcopilot.com/mcp/",
        "headers": {"Authorization": "Bearer ${GITHUB_TOKEN}"},
    }
    assert s["filesystem"]["args"][-1] == "/Users/alex/projects"
    assert s["internal-docs"]["transport"] == "sse"
    assert s["internal-docs"]["url"] == "https://mcp.internal.example.com/sse"


def test_codex() -> None:
    hc = load("codex.config.toml")
    assert hc.host == "codex"
    assert list(hc.servers) == ["github", "github-local", "project-tools", "internal-docs"]
    s = stored(hc)
    assert s["github"] == {
        "transport": "http",
        "url": "https://api.githubcopilot.com/mcp/",
        "headers": {"Authorization": "Bearer ${GITHUB_TOKEN}"},
    }
    # env_vars forwards the variable as it is: pass-env (a name), no longer an env template
    assert s["github-local"]["pass-env"] == ["GITHUB_PERSONAL_ACCESS_TOKEN"] and "env" not in s["github-local"]
    assert any("enabled = false" in w for w in hc.servers["github-local"].warnings)
    assert s["project-tools"]["cwd"] == "/home/dev/work/acme-api/tools"
    assert s["project-tools"]["env"] == {
        "DATABASE_URL": "postgresql://readonly@localhost:5432/acme",
        "LOG_LEVEL": "info",
    }
    assert s["internal-docs"] == {
        "transport": "http",
        "url": "https://mcp.internal.example.com/mcp",
        "headers": {"X-API-Key": "${DOCS_API_KEY}", "X-Client": "codex"},
    }


def test_codex_rules(tmp_path: Path) -> None:
    text = f"""
[mcp_servers.a]
command = "srv"
env = {{ API_TOKEN = "{CANARY}" }}
env_vars = ["HOME_DIR", {{ name = "OTHER", source = "remote" }}]

[mcp_servers.b]
url = "https://x.example/sse"
http_headers = {{ Authorization = "Bearer {CANARY}" }}

[mcp_servers.c]
command = "x"
url = "https://x.example/mcp"
"""
    hc = load_host_config(write(tmp_path, "config.toml", text))
    s = stored(hc)
    assert s["a"]["env"] == {"API_TOKEN": "${API_TOKEN}"}
    assert s["a"]["pass-env"] == ["HOME_DIR", "OTHER"]
    assert hc.servers["a"].spec.secrets == {"API_TOKEN": CANARY}
    assert s["b"]["transport"] == "http"  # Codex has no SSE
    assert s["b"]["headers"] == {"Authorization": "Bearer ${B_TOKEN}"}
    assert hc.servers["b"].spec.secrets == {"B_TOKEN": CANARY}
    assert "both command and url" in hc.skipped["c"]
    assert_no_canary(hc, s)


def test_gemini() -> None:
    hc = load("gemini.settings.json")
    assert hc.host == "gemini"
    s = stored(hc)
    # httpUrl = Streamable HTTP; $VAR → ${VAR}
    assert s["github"] == {
        "transport": "http",
        "url": "https://api.githubcopilot.com/mcp/",
        "headers": {"Authorization": "Bearer ${GITHUB_TOKEN}"},
    }
    assert s["project-tools"]["cwd"] == "./tools"
    assert s["project-tools"]["env"] == {"LOG_LEVEL": "${LOG_LEVEL:-info}"}
    assert s["internal-docs"]["transport"] == "sse"  # url alone ending in /sse


def test_gemini_url_shapes(tmp_path: Path) -> None:
    cfg = {
        "mcpServers": {
            "plain": {"url": "https://x.example/mcp"},
            "typed": {"url": "https://x.example/sse", "type": "http"},
            "typed-sse": {"url": "https://x.example/events", "type": "sse"},
            "both": {"httpUrl": "https://x.example/mcp", "url": "https://x.example/sse", "command": "x"},
        },
        "mcp": {"excluded": ["plain"]},
    }
    hc = load_host_config(write(tmp_path, ".gemini/settings.json", json.dumps(cfg)))
    s = stored(hc)
    assert s["plain"]["transport"] == "http"
    assert s["typed"]["transport"] == "http"
    assert s["typed-sse"]["transport"] == "sse"
    assert s["both"] == {"transport": "http", "url": "https://x.example/mcp"}
    assert any("mcp.excluded" in w for w in hc.servers["plain"].warnings)


# --- secrets ---------------------------------------------------------------------------------


def _canary_config() -> dict[str, object]:
    return {
        "mcpServers": {
            "gh": {
                "type": "http",
                "url": f"https://x.example/mcp?api_key={CANARY}&v=1",
                "headers": {"Authorization": f"Bearer {CANARY}", "X-Api-Key": CANARY, "X-Trace": "on"},
            },
            "local": {
                "command": "srv",
                "args": [f"--token={CANARY}", "--api-key", CANARY, f"GITHUB_TOKEN={CANARY}", CANARY, "--db-path", "/x"],
                "env": {"GITHUB_TOKEN": CANARY, "LOG_LEVEL": "debug", "github-pat": CANARY},
            },
        }
    }


def test_canary_secret_never_stored_or_shown(tmp_path: Path) -> None:
    p = write(tmp_path, ".mcp.json", json.dumps(_canary_config()))
    hc = load_host_config(p)
    assert hc.skipped == {}
    gh, local = hc.servers["gh"], hc.servers["local"]
    assert gh.spec.headers == {"Authorization": "Bearer ${GH_TOKEN}", "X-Api-Key": "${X_API_KEY}", "X-Trace": "on"}
    assert gh.spec.url == "https://x.example/mcp?api_key=${GH_API_KEY}&v=1"
    assert local.spec.env == {"GITHUB_TOKEN": "${GITHUB_TOKEN}", "LOG_LEVEL": "debug", "github-pat": "${GITHUB_PAT}"}
    assert local.spec.args == (
        "--token=${LOCAL_TOKEN}",
        "--api-key",
        "${LOCAL_API_KEY}",
        "GITHUB_TOKEN=${GITHUB_TOKEN}",
        "${LOCAL_SECRET}",
        "--db-path",
        "/x",
    )
    for imp in (gh, local):
        assert set(imp.spec.secrets.values()) == {CANARY}
        assert CANARY not in json.dumps(imp.spec.stored())
        assert_no_canary(imp, imp.spec, imp.templated, imp.warnings, config_hash(imp.spec))
    assert_no_canary(hc)
    assert "env GITHUB_TOKEN: literal value moved to ${GITHUB_TOKEN}" in local.templated
    assert "header Authorization: literal value moved to ${GH_TOKEN}" in gh.templated
    # the probe gets the values back, in memory
    assert expand(gh.spec.headers["Authorization"], {}, gh.spec.secrets) == f"Bearer {CANARY}"
    expected = _canary_config()["mcpServers"]["local"]["args"]  # type: ignore[index]
    assert [expand(a, {}, local.spec.secrets) for a in local.spec.args] == expected


def test_url_credentials_templated(tmp_path: Path) -> None:
    url = f"https://bot:hunter2pass@x.example/{CANARY}/sse?token=abc123&x=1"
    cfg = {"mcpServers": {"s": {"type": "sse", "url": url}}}
    imp = load_host_config(write(tmp_path, ".mcp.json", json.dumps(cfg))).servers["s"]
    assert imp.spec.url == "https://bot:${S_PASSWORD}@x.example/${S_SECRET}/sse?token=${S_TOKEN}&x=1"
    assert imp.spec.secrets == {"S_PASSWORD": "hunter2pass", "S_SECRET": CANARY, "S_TOKEN": "abc123"}
    assert expand(imp.spec.url, {}, imp.spec.secrets) == url
    assert_no_canary(imp)
    assert "hunter2pass" not in repr(imp)


def test_two_values_for_one_name_get_distinct_variables(tmp_path: Path) -> None:
    cfg = {"mcpServers": {"s": {"command": "x", "env": {"API_KEY": "sk-" + "a" * 20, "api-key": "sk-" + "b" * 20}}}}
    imp = load_host_config(write(tmp_path, ".mcp.json", json.dumps(cfg))).servers["s"]
    assert imp.spec.env == {"API_KEY": "${API_KEY}", "api-key": "${API_KEY_2}"}
    assert imp.spec.secrets == {"API_KEY": "sk-" + "a" * 20, "API_KEY_2": "sk-" + "b" * 20}


def test_templates_and_plain_values_are_not_secrets(tmp_path: Path) -> None:
    cfg = {
        "mcpServers": {
            "s": {
                "type": "http",
                "url": "https://x.example/mcp",
                "headers": {"Authorization": "Bearer ${TOKEN}", "X-Client": "mcplock"},
            }
        }
    }
    imp = load_host_config(write(tmp_path, ".mcp.json", json.dumps(cfg))).servers["s"]
    assert imp.templated == ()
    assert imp.spec.secrets == {}
    assert imp.spec.headers == cfg["mcpServers"]["s"]["headers"]  # type: ignore[index]


def test_secret_in_broken_file_not_in_error(tmp_path: Path) -> None:
    p = write(tmp_path, ".mcp.json", f'{{"mcpServers": {{"s": {{"command": "x", "env": {{"T": "{CANARY}" oops}}}}}}}}')
    with pytest.raises(ConfigError) as ei:
        load_host_config(p)
    assert CANARY not in str(ei.value) and CANARY not in (ei.value.hint or "")
    p = write(tmp_path, ".mcp.json", f'{{"mcpServers": {{"s": {{"command": "x", "args": ["{CANARY}", 5]}}}}}}')
    with pytest.raises(ConfigError) as ei:
        load_host_config(p)
    assert CANARY not in str(ei.value)
    assert "`args` must be a list of strings" in str(ei.value)


# --- errors ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rel", "text", "needle", "line"),
    [
        (".mcp.json", '{\n  "mcpServers": {\n    "a": {"command": "x",}\n    "b": {}\n  }\n}\n', "invalid JSON", 4),
        (".mcp.json", '{\n  "mcpServers": []\n}\n', "`mcpServers` must be an object", 2),
        (".mcp.json", '{\n  "mcpServers": {\n    "a": "npx"\n  }\n}\n', "server `a` must be an object", 3),
        (
            ".mcp.json",
            '{"mcpServers": {\n "a": {\n "command": "x",\n "args": "-y"}}}',
            "`args` must be a list of strings",
            4,
        ),
        (".mcp.json", '{"mcpServers": {\n "a": {"command": "x",\n "env": {"A": 1}}}}', "`env.A` must be a string", 3),
        (".mcp.json", '{"mcpServers": {\n "a": {"command": 1}}}', "`command` must be a string", 2),
        (".mcp.json", '{"mcpServers": {\n "a": {"command": "x"},\n "a": {"command": "y"}}}', "appears twice", 3),
        (".mcp.json", "[1, 2]", "top level must be an object", None),
        (".vscode/mcp.json", '{\n  /* never closed\n  "servers": {}\n}', "unterminated", 2),
        (".codex/config.toml", '[mcp_servers.a]\ncommand = "x"\nargs = ["a",\n', "invalid TOML", 3),
        (".codex/config.toml", '[mcp_servers.a]\ncommand = "x"\ncommand = "y"\n', "invalid TOML", 3),
        (".codex/config.toml", "mcp_servers = 3\n", "`mcp_servers` must be an object", 1),
        (
            ".codex/config.toml",
            '[mcp_servers.a]\nurl = "https://x"\nbearer_token_env_var = "not a name"\n',
            "must name an environment variable",
            3,
        ),
    ],
)
def test_broken_files_raise_config_error_with_line(
    tmp_path: Path, rel: str, text: str, needle: str, line: int | None
) -> None:
    p = write(tmp_path, rel, text)
    with pytest.raises(ConfigError) as ei:
        load_host_config(p)
    msg = str(ei.value)
    assert msg.startswith(str(p))
    assert needle in msg
    if line is not None:
        assert msg.startswith(f"{p}:{line}: "), msg
    assert ei.value.hint
    assert ei.value.exit_code == 2


def test_unreadable_and_unknown(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such file"):
        load_host_config(tmp_path / "nope.json")
    with pytest.raises(ConfigError, match="is a directory"):
        load_host_config(tmp_path)
    (tmp_path / "bin.json").write_bytes(b'{"a":\n "\xff"}')
    with pytest.raises(ConfigError, match=r"bin.json:2: not UTF-8"):
        load_host_config(tmp_path / "bin.json")
    with pytest.raises(ConfigError, match="not a recognised MCP host config"):
        load_host_config(write(tmp_path, "x.json", '{"foo": 1}'))
    with pytest.raises(ConfigError, match="Claude Code settings file"):
        load("claude-code.settings.json")
    with pytest.raises(UsageError, match="unknown host"):
        load("claude-code.mcp.json", host="emacs")


def test_no_servers_key_is_empty_with_a_warning(tmp_path: Path) -> None:
    hc = load_host_config(write(tmp_path, ".gemini/settings.json", '{"theme": "dark"}'))
    assert hc.host == "gemini" and hc.servers == {} and hc.skipped == {}
    assert any("nothing to import" in w for w in hc.warnings)
    hc = load_host_config(write(tmp_path, ".vscode/mcp.json", '{"mcpServers": {"a": {"command": "x"}}}'))
    assert hc.host == "vscode" and hc.servers == {}
    assert any("VS Code reads `servers`" in w for w in hc.warnings)


def test_bad_server_names_skipped(tmp_path: Path) -> None:
    cfg = {"mcpServers": {"a/b": {"command": "x"}, "": {"command": "x"}, "ok": {"command": "x"}}}
    hc = load_host_config(write(tmp_path, ".mcp.json", json.dumps(cfg)))
    assert list(hc.servers) == ["ok"]
    assert "'/'" in hc.skipped["a/b"] and "empty" in hc.skipped[""]


# --- detection and discovery -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("rel", "host"),
    [
        (".mcp.json", "claude-code"),
        ("claude_desktop_config.json", "claude-desktop"),
        (".cursor/mcp.json", "cursor"),
        (".vscode/mcp.json", "vscode"),
        (".codeium/windsurf/mcp_config.json", "windsurf"),
        (".codex/config.toml", "codex"),
        (".gemini/settings.json", "gemini"),
    ],
)
def test_detect_by_file_name(tmp_path: Path, rel: str, host: str) -> None:
    key = "servers" if host == "vscode" else "mcpServers"
    text = '[mcp_servers.a]\ncommand = "x"\n' if rel.endswith(".toml") else f'{{"{key}": {{"a": {{"command": "x"}}}}}}'
    hc = load_host_config(write(tmp_path, rel, text))
    assert hc.host == host
    assert hc.servers["a"].spec.command == "x"


def test_detect_by_shape() -> None:
    assert detect_host("x.json", {"servers": {}}) == "vscode"
    assert detect_host("x.json", {"mcpServers": {"a": {"httpUrl": "https://x"}}}) == "gemini"
    assert detect_host("x.json", {"mcpServers": {"a": {"serverUrl": "https://x"}}}) == "windsurf"
    assert detect_host("x.json", {"mcpServers": {"a": {"command": "x"}}}) == "claude-code"
    assert detect_host(".mcp.json", {"servers": {}}) == "vscode"
    assert detect_host("x.json", {"other": 1}) is None


def test_discover(tmp_path: Path) -> None:
    assert discover(tmp_path) == []
    for rel in (
        ".gemini/settings.json",
        ".mcp.json",
        ".codex/config.toml",
        ".vscode/mcp.json",
        ".cursor/mcp.json",
        ".windsurf/mcp_config.json",
    ):
        write(tmp_path, rel, "{}")
    (tmp_path / ".vscode" / "settings.json").write_text("{}")
    assert discover(tmp_path) == [
        tmp_path / ".mcp.json",
        tmp_path / ".cursor" / "mcp.json",
        tmp_path / ".vscode" / "mcp.json",
        tmp_path / ".codex" / "config.toml",
        tmp_path / ".gemini" / "settings.json",
    ]
    assert discover(str(tmp_path)) == discover(tmp_path)
    # a directory where a file is expected is not a config
    shutil.rmtree(tmp_path / ".cursor")
    (tmp_path / ".cursor" / "mcp.json").mkdir(parents=True)
    assert tmp_path / ".cursor" / "mcp.json" not in discover(tmp_path)


def test_discover_then_load_every_sample(tmp_path: Path) -> None:
    for name, rel in (
        ("claude-code.mcp.json", ".mcp.json"),
        ("cursor.mcp.json", ".cursor/mcp.json"),
        ("vscode.mcp.json", ".vscode/mcp.json"),
        ("codex.config.toml", ".codex/config.toml"),
        ("gemini.settings.json", ".gemini/settings.json"),
    ):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(DATA / name, tmp_path / rel)
    hosts = [load_host_config(p).host for p in discover(tmp_path)]
    assert hosts == ["claude-code", "cursor", "vscode", "codex", "gemini"]


# --- config_hash -----------------------------------------------------------------------------


def test_config_hash_stability(tmp_path: Path) -> None:
    cfg = _canary_config()
    p = write(tmp_path, ".mcp.json", json.dumps(cfg))
    h1 = {n: config_hash(s.spec) for n, s in load_host_config(p).servers.items()}
    assert all(h.startswith("sha256:") and len(h) == 71 for h in h1.values())
    # same config → same hash (also from another path/source)
    p2 = write(tmp_path, "copy/.mcp.json", json.dumps(cfg, indent=4))
    assert {n: config_hash(s.spec) for n, s in load_host_config(p2, source="x").servers.items()} == h1
    # changed secret VALUE → same hash
    other = json.loads(json.dumps(cfg).replace(CANARY, "ghp_OTHER99999999999999999999999"))
    p3 = write(tmp_path, "other/.mcp.json", json.dumps(other))
    assert {n: config_hash(s.spec) for n, s in load_host_config(p3).servers.items()} == h1
    # changed argument → different hash
    cfg["mcpServers"]["local"]["args"][-1] = "/y"  # type: ignore[index]
    p4 = write(tmp_path, "changed/.mcp.json", json.dumps(cfg))
    h4 = {n: config_hash(s.spec) for n, s in load_host_config(p4).servers.items()}
    assert h4["gh"] == h1["gh"] and h4["local"] != h1["local"]


def test_config_hash_ignores_secrets_field() -> None:
    spec = load("claude_desktop_config.json").servers["github-local"].spec
    assert config_hash(spec) == config_hash(replace(spec, secrets={}))
    assert config_hash(spec) != config_hash(replace(spec, args=(*spec.args, "--read-only")))


def test_imported_server_is_frozen() -> None:
    imp = load("claude-code.mcp.json").servers["github"]
    assert isinstance(imp, ImportedServer)
    with pytest.raises(dataclasses.FrozenInstanceError):
        imp.templated = ("x",)  # type: ignore[misc]


# --- JSONC and import cost -------------------------------------------------------------------

_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None)
@given(_json_values, st.sampled_from([None, 0, 2]))
def test_jsonc_leaves_plain_json_alone(value: object, indent: int | None) -> None:
    text = json.dumps(value, indent=indent, ensure_ascii=False)
    assert to_json(text) == text
    assert json.loads(to_json(text)) == value


@settings(max_examples=100, deadline=None)
@given(_json_values)
def test_jsonc_comments_and_trailing_commas_roundtrip(value: object) -> None:
    text = json.dumps(value, indent=2, ensure_ascii=False)
    # a comment after every line, a trailing comma before every closing bracket
    noisy = "\n".join(line + " // c, ] }" for line in text.split("\n"))
    noisy = noisy.replace("\n}", ",\n}").replace("\n]", ",\n]") if isinstance(value, (dict, list)) and value else noisy
    assert json.loads(to_json("/* head */" + noisy)) == value


def test_import_does_not_pull_heavy_modules() -> None:
    import subprocess
    import sys

    code = (
        "import sys, mcplock.hosts; "
        "bad = [m for m in ('mcp', 'httpx', 'rich', 'typer', 'jsonschema', 'deepdiff') if m in sys.modules]; "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr


# --- the importers' registry (one module per host, as export has) ---------------------------


def test_every_host_has_one_importer_and_a_new_one_is_one_registration(tmp_path: Path) -> None:
    from mcplock.hosts import HOSTS
    from mcplock.hosts.formats import BY_NAME, IMPORTERS, Importer
    from mcplock.hosts.importers import Entry

    assert tuple(IMPORTERS) == HOSTS and sorted(i.host for i in BY_NAME) == sorted(HOSTS)
    assert all(type(i).__module__.startswith("mcplock.hosts.formats.") for i in IMPORTERS.values())

    class Plain(Importer):  # a host with the common shape: only its transport rule is its own
        host = "plain"

        def transport(self, e: Entry, warnings: list[str]) -> tuple[str, str | None]:
            return ("stdio", None) if e.string("command") is not None else ("http", e.string("url"))

    f = tmp_path / "plain.json"
    f.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "a": {"command": "node", "args": ["s.js"], "cwd": "sub"},
                    "b": {"url": "https://example.com/mcp"},
                }
            }
        )
    )
    with pytest.raises(UsageError):
        load_host_config(f, host="plain")
    IMPORTERS["plain"] = Plain()
    try:
        cfg = load_host_config(f, host="plain")
    finally:
        del IMPORTERS["plain"]
    assert cfg.host == "plain" and cfg.servers["a"].spec.args == ("s.js",)
    assert cfg.servers["a"].spec.cwd is None and "cwd is not a" in cfg.servers["a"].warnings[0]  # not its setting
    assert cfg.servers["b"].spec.transport == "http"
