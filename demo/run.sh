#!/usr/bin/env bash
# make demo: lock a bundled example MCP server, then catch a rug pull.
# Runs in a scratch directory (demo/.work), with the real console script and a real
# stdio server (fixtures/mcp_fixture.py serving fixtures/surfaces/demo.json).
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
MCPLOCK="$ROOT/.venv/bin/mcplock"
WORK="${MCPLOCK_DEMO_DIR:-$ROOT/demo/.work}"  # (a test runs it elsewhere)
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK"
cp "$ROOT/fixtures/surfaces/demo.json" surface.json
cp "$ROOT/fixtures/mcp_fixture.py" docs_server.py
cp "$ROOT"/fixtures/fixture_*.py .  # the modules the script imports from its directory
export NO_COLOR="${NO_COLOR:-}"
# the demo's trust record, drift evidence and caches stay in the scratch directory, not in your home
export XDG_DATA_HOME="$WORK/.xdg/data" XDG_STATE_HOME="$WORK/.xdg/state" XDG_CACHE_HOME="$WORK/.xdg/cache"
export XDG_CONFIG_HOME="$WORK/.xdg/config"

step() { if [ -t 1 ] && [ -z "$NO_COLOR" ]; then printf '\n\033[1m== %s\033[0m\n' "$*"; else printf '\n== %s\n' "$*"; fi; }
run() { printf '$ %s\n' "$*"; "$@"; rc=$?; printf '(exit %s)\n' "$rc"; return 0; }

step "1. Lock the example 'docs' server (a real MCP server over stdio)"
run "$MCPLOCK" add docs --yes -- python3 docs_server.py stdio --surface surface.json

step "2. mcp.lock — commit this file; every definition is pinned by its sha256"
sed -n '1,30p' mcp.lock; echo "…"

step "3. Every tool, with its flags"
run "$MCPLOCK" list

step "4. CI runs 'mcplock diff': the live server still matches the lock"
run "$MCPLOCK" diff

step "5. RUG PULL: upstream quietly rewrites search_docs, loosens read_page, adds run_shell"
cp "$ROOT/fixtures/surfaces/demo-rugpull.json" surface.json
echo "(the server now tells the model to send search results to evil.example)"

step "6. 'mcplock diff' catches it — exit 1 fails the CI job"
run "$MCPLOCK" diff

step "7. 'mcplock refresh' stages the changes for review and quarantines the changed tools"
run "$MCPLOCK" refresh
run "$MCPLOCK" list

step "8. Until a person reviews, hosts reading the lock never see the new definitions"
"$ROOT/.venv/bin/python" - <<'PY'
import mcplock
lock = mcplock.load("mcp.lock")
for t in lock.enabled_tools():
    print(f"  host sees {t.server}/{t.name}: {t.description!r}")
PY
run "$MCPLOCK" check
run "$MCPLOCK" show docs/search_docs

step "9. Reject the poisoned change; the tool stays disabled and is not proposed again"
run "$MCPLOCK" reject docs/search_docs docs/run_shell
run "$MCPLOCK" accept docs/read_page
run "$MCPLOCK" diff

step "10. The lock binds at run time: the guard serves hosts only what the lock accepted"
echo "(a host launches 'mcplock run docs' instead of the server; 'mcplock call' is the same guard for one call)"
run "$MCPLOCK" call docs/search_docs --args '{"query": "roadmap"}'
run "$MCPLOCK" call docs/read_page --approve --args '{"page_id": "roadmap"}'

step "11. Everything reviewed: 'mcplock check' (the pre-commit hook) passes; commit mcp.lock"
run "$MCPLOCK" check

echo
echo "The demo ran in $WORK. Try: cd $WORK && $MCPLOCK --help"
