# ollm build and test entry points. `make test` is what CI runs.
GO        ?= go
NPM_DIR   := .deps/npm
NPM_PKGS  := @modelcontextprotocol/server-everything @modelcontextprotocol/server-filesystem @agentclientprotocol/sdk @modelcontextprotocol/inspector@^2.12.0

.PHONY: all build test fmt-check vet cross unit deps sys-deps bench install clean bench-report bench-deps

all: build

build:
	$(GO) build -o bin/ollm ./cmd/ollm

install:
	$(GO) install ./cmd/ollm

# deps installs what the tests need outside Go: the MCP reference servers,
# into a git-ignored folder. It is a no-op when they are already there.
deps: $(NPM_DIR)/.installed sys-deps

# sys-deps installs the Debian packages tests drive for real: tmux (the TUI
# test in a real terminal), openssh-client (ssh-agent, the sandbox's agent
# test) and procps (pgrep). It does nothing when they are present, and says
# what it installs and with which command before it does: never silently,
# never a sudo the user did not see coming.
SYS_DEPS := tmux:tmux ssh-agent:openssh-client pgrep:procps
sys-deps:
	@missing=; for d in $(SYS_DEPS); do \
		command -v $${d%%:*} >/dev/null 2>&1 || missing="$$missing $${d#*:}"; done; \
	[ -z "$$missing" ] && exit 0; \
	if ! command -v apt-get >/dev/null 2>&1; then \
		echo "make sys-deps: the tests need these packages, and this machine has no apt-get: install them yourself:$$missing"; exit 1; fi; \
	SUDO=$$( [ "$$(id -u)" = 0 ] || echo "sudo " ); \
	echo "make sys-deps: installing$$missing (needed by the tests) with: $${SUDO}apt-get install -y$$missing"; \
	$${SUDO}apt-get update -qq && $${SUDO}apt-get install -y -qq $$missing

$(NPM_DIR)/.installed: Makefile
	mkdir -p $(NPM_DIR)
	cd $(NPM_DIR) && ( [ -f package.json ] || echo '{"private":true}' > package.json ) && \
		npm install --no-audit --no-fund --loglevel=error $(NPM_PKGS)
	touch $@

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.deps/*')); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

# cross builds for the other systems ollm supports, which no test machine
# here runs: waitExit and the sandbox have per-OS files, and a Linux-only
# call in shared code breaks them silently otherwise.
cross:
	GOOS=darwin $(GO) build ./...
	GOOS=freebsd $(GO) build ./...

unit: deps
	OLLM_NPM_DIR=$(CURDIR)/$(NPM_DIR) $(GO) test -race -count=1 ./...

test: fmt-check vet cross unit

# bench runs every Go benchmark once; figures go into README.md and
# docs/notes/<area>.md with the machine they ran on.
bench: deps
	OLLM_NPM_DIR=$(CURDIR)/$(NPM_DIR) $(GO) test -run '^$$' -bench . -benchmem ./...

# bench-deps installs the references only the benchmarks use: Gemini CLI
# (npm @google/gemini-cli), the reference of the start rows, into its own
# git-ignored folder. A no-op when it is there.
GEMINI_DIR := .deps/gemini

bench-deps: $(GEMINI_DIR)/.installed

$(GEMINI_DIR)/.installed:
	mkdir -p $(GEMINI_DIR)
	cd $(GEMINI_DIR) && ( [ -f package.json ] || echo '{"private":true}' > package.json ) && \
		npm install --no-audit --no-fund --loglevel=error @google/gemini-cli
	touch $@

# bench-report runs every benchmark target the issues set, each next to its
# reference in the same run (bare exec, ripgrep, raw JSON-RPC, cold apply,
# Gemini CLI), and writes docs/performance.md with the machine. A few
# minutes, CPU-heavy.
bench-report: deps bench-deps
	@command -v rg >/dev/null 2>&1 || { \
		echo "installing ripgrep (the grep and glob reference)"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq ripgrep; }
	OLLM_NPM_DIR=$(CURDIR)/$(NPM_DIR) $(GO) run ./internal/benchreport -o docs/performance.md -raw .deps/bench-raw.txt

clean:
	rm -rf bin .deps
