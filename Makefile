# `make test` is the one command that runs every test on a fresh clone.
# It first installs the pinned npm packages the tests need (TypeScript and
# real MCP servers) from testdata/npm/package-lock.json.

NPM_DIR := testdata/npm
NPM_STAMP := $(NPM_DIR)/node_modules/.mcpcode-installed

.PHONY: test test-short test-goja npm vet bench build

test: npm vet test-goja
	go test -race -count=1 ./...

# goja, the JavaScript engine, is vendored with our patches as its own module
# (third_party/goja, see its PATCHES.md): ./... above does not reach it. Its
# tests run twice, the second time with every concatenation in a buffer, and
# its profiler's tests with the tag that builds it in. Its tc39 tests run only
# where testdata/test262 was checked out (PATCHES.md).
test-goja:
	cd third_party/goja && go test -count=1 ./... && GOJA_BUFSTRING_MIN=1 go test -count=1 . && go test -count=1 -tags goja_profile -run Profil .

# The fast tier: no npm, tsc, real servers or end-to-end tests.
test-short:
	go test -short ./...

vet:
	go vet ./...

npm: $(NPM_STAMP)

$(NPM_STAMP): $(NPM_DIR)/package.json $(NPM_DIR)/package-lock.json
	cd $(NPM_DIR) && npm ci --no-audit --no-fund
	touch $@

build:
	go build -o mcpcode ./cmd/mcpcode

# The Go benchmarks, then the programs paired with Node (docs/BENCHMARKS.md,
# "JavaScript speed inside a program") and serve's CPU per execute and
# runs/s ("serve"). Each prints the load it ran under.
bench: npm
	go test -run '^$$' -bench . -benchmem ./...
	go run ./testdata/bench/programs -n 20
	go run ./testdata/bench/serveload cpu -n 200
	go run ./testdata/bench/serveload http -clients 50 -seconds 30
