# The README's test command is `make test`; .ci/run calls exactly that.
SHELL := /bin/bash
export PATH := $(PATH):/usr/local/go/bin
GO ?= go

.PHONY: cross-build release test testenv fmt-check tables-check vet unit vscode-test vscode-e2e web-e2e web-assets protocol-test fuzz-smoke build bench generate

# Every check, going on past failures; ends with "N passed, N failed".
test:
	scripts/make-test.sh

# The test environment, its independent pieces at once: scripts/testenv.sh.
testenv:
	scripts/testenv.sh

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

# The LALR tables must be what bison makes of the grammar files.
tables-check:
	@tmp=$$(mktemp -d); \
	for g in pcp6 pcp622 pcp63 pcp7; do \
		$(GO) run ./grammar/lalr/internal/gentables -y grammar/lalr/$$g.y -o $$tmp/tables_$$g.go -var $${g}Automaton || exit 1; \
		cmp -s $$tmp/tables_$$g.go grammar/lalr/tables_$$g.go || { echo "grammar/lalr/tables_$$g.go is stale: run make generate"; exit 1; }; \
	done; rm -rf $$tmp; echo "LALR tables match the grammar files"

vet:
	$(GO) vet ./...

unit:
	$(GO) test -race -count=1 ./...

fuzz-smoke:
	scripts/fuzz-smoke.sh

# The VS Code extension (editors/vscode): build, lint, unit and grammar
# tests, the server driven by Microsoft's LSP client libraries, and a .vsix
# with the server inside.
vscode-test:
	CGO_ENABLED=0 $(GO) build -o bin/pcp-derive-lsp ./cmd/pcp-derive-lsp
	cd editors/vscode && npm ci --no-audit --no-fund >/dev/null && PCP_DERIVE_LSP_BIN=$(CURDIR)/bin/pcp-derive-lsp npm run ci

protocol-test: vscode-test

# The extension in real VS Code (code-server) driven through headless
# chromium against the test pmcd: scripts/vscode-e2e.sh. Installs code-server,
# Node 24 and chromium on first use, cached in /var/cache/pcp-derive-lsp/vscode.
# Screenshots go to build/vscode-e2e/; UPDATE_SCREENSHOTS=1 copies the ones
# docs/editors.md shows into docs/images/.
vscode-e2e:
	scripts/vscode-e2e.sh

# The explain page (pcp-derive-lsp web) in headless chromium, from the
# binary with no network, over an archive and the live test pmcd:
# scripts/web-e2e.sh (the VS Code test's cached chromium and Node).
# UPDATE_SCREENSHOTS=1 copies its screenshots to docs/images/.
web-e2e:
	scripts/web-e2e.sh

# The page's plotting library from npm (web/package-lock.json) into
# web/assets/vendor/, which is committed so go build needs no npm.
web-assets:
	scripts/web-assets.sh

build:
	CGO_ENABLED=0 $(GO) build -o bin/pcp-derive-lsp ./cmd/pcp-derive-lsp

# Speed against libpcp and the PCP tools, measured in the same run (needs
# the test pmcd; archives are recorded once into bench/.cache). Not part of
# make test: the numbers are printed, never asserted. Ends with one table
# of issue #18's measures, also written to bench/results.json.
bench:
	bench/all.sh

# Regenerates the LALR tables from grammar/lalr/*.y (needs bison).
generate:
	$(GO) generate ./grammar/lalr

# A release into dist/: servers for linux/darwin/windows x amd64/arm64,
# .deb and .rpm packages for linux amd64/arm64 (with a man page and shell
# completions generated from the commands' help), a .vsix per VS Code
# platform and a universal one, SHA256SUMS. The version
# is the git tag (git describe), or make release VERSION=0.2.0; see
# scripts/release.sh --help. Not part of make test (TestReleaseBuild runs
# the script for this machine's platform only, and installs and removes
# its .deb and .rpm).
release:
	scripts/release.sh $(VERSION)

# The release's other platforms still build (no cgo, no Unix-only calls
# outside build-tagged files).
cross-build:
	for t in darwin/arm64 windows/amd64 linux/arm64; do \
		CGO_ENABLED=0 GOOS=$${t%/*} GOARCH=$${t#*/} $(GO) build -o /dev/null ./cmd/pcp-derive-lsp || exit 1; \
	done
