# Engram: `make run` starts the app, `make test` runs the whole suite. Both install first.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
APT_PACKAGES := libxcb-cursor0 libxkbcommon-x11-0 libxcb-icccm4 libxcb-keysyms1 libxcb-shape0 \
	libxcb-render-util0 libxcb-image0 libxcb-randr0 libxcb-xinerama0 libegl1 libgl1 \
	libfontconfig1 libdbus-1-3 xvfb xauth git

.PHONY: install system-deps agent-clis run test test-fast lint format bench bench-quick demo screenshots package clean

install: $(STAMP)

$(STAMP): pyproject.toml
	@$(MAKE) --no-print-directory system-deps
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	$(BIN)/python -m app.cli model install
	touch $(STAMP)

# Qt's xcb platform and Xvfb come from Debian (PostgreSQL 16 + pgvector for the team-store
# tests comes from the pgserver wheel in the test extra: Debian 12 has no pgvector); they are
# installed only when missing and when we may.
system-deps:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
		echo "installing system packages:$$missing"; \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null) \
		|| echo "warning: could not install$$missing (the GUI may need them; tests run offscreen)"; \
	elif command -v apt-get >/dev/null 2>&1; then \
		echo "note: missing system packages:$$missing (run: sudo apt-get install$$missing)"; \
	fi

run: $(STAMP)
	@if [ -z "$$DISPLAY$$WAYLAND_DISPLAY" ] && [ -z "$$QT_QPA_PLATFORM" ]; then \
		echo "No display found: starting under Xvfb (set DISPLAY to use your desktop)."; \
		xvfb-run -a $(BIN)/python -m app.main --demo-if-empty; \
	else $(BIN)/python -m app.main --demo-if-empty; fi

# The agents' own CLIs that tests/integration/test_real_agent_clis.py drives, at the exact
# versions tests/agent-clis pins: for the tests only (users of the app do not need them), so
# `make test` installs them from the npm registry into tests/agent-clis/node_modules (ignored
# by git) and again only when the pinned files change. `install --no-save`, not `ci`: the
# lock holds only the platform packages the registry served when it was made, which `ci`
# calls out of sync; --no-save installs what the lock pins and never edits it.
AGENT_CLIS := tests/agent-clis
AGENT_STAMP := $(AGENT_CLIS)/node_modules/.installed

agent-clis:
	@if command -v npm >/dev/null 2>&1; then $(MAKE) -s --no-print-directory $(AGENT_STAMP); \
	else echo "npm not found: skipping the real agent CLI tests (claude, codex, gemini, opencode)"; fi

$(AGENT_STAMP): $(AGENT_CLIS)/package.json $(AGENT_CLIS)/package-lock.json
	@echo "installing the agent CLIs pinned in $(AGENT_CLIS) (npm)"
	cd $(AGENT_CLIS) && npm install --no-save --no-audit --no-fund --loglevel=error
	touch $@

# the whole suite, one worker per core (each worker starts its own test servers);
# PYTEST_ARGS narrows it, e.g. PYTEST_ARGS=tests/integration/test_real_agent_clis.py
test: $(STAMP) agent-clis
	PATH="$(CURDIR)/$(AGENT_CLIS)/node_modules/.bin:$$PATH" QT_QPA_PLATFORM=offscreen \
		$(BIN)/python -m pytest -q -p no:cacheprovider -n auto --dist loadfile $(PYTEST_ARGS)

# the inner loop: no GUI, no servers, no child processes, no benchmarks, nothing slow
FAST := not gui and not slow and not postgres and not subprocess and not bench
test-fast: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q -p no:cacheprovider -n auto -m "$(FAST)"

# the gates CI runs before the tests (CONTRIBUTING.md)
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	$(BIN)/mypy
	$(BIN)/python tests/mypy_ratchet.py  # ui/: the error count may only go down

format: $(STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

bench: $(STAMP)
	$(BIN)/python -m bench all

bench-quick: $(STAMP)
	$(BIN)/python -m bench all --quick

demo: $(STAMP)
	$(BIN)/python -m app.cli demo

screenshots: $(STAMP)
	xvfb-run -a -s "-screen 0 1400x900x24" $(BIN)/python -m app.screenshots screenshots

package: $(STAMP)
	$(BIN)/pip install --quiet pyinstaller
	$(BIN)/pyinstaller --noconfirm packaging/engram.spec

clean:
	rm -rf $(VENV) build dist *.egg-info
