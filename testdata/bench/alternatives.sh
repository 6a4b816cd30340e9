#!/bin/sh
# Measures mcpcode against the alternatives, side by side in one run: the
# figures of docs/BENCHMARKS.md, "Against the alternatives". Every figure
# comes from testdata/bench/pairs (shuffled rounds, ratios per round).
#
#   make npm && sh testdata/bench/alternatives.sh [HELLO_ROUNDS] [FLOW_ROUNDS] [GEN_ROUNDS]
#
# Needs Go, a system Node (node -e, tsx, the official SDK) and the pinned
# npm packages: deno, bun, tsx, mcporter, @modelcontextprotocol/sdk and
# node@22 (which mcporter needs), from testdata/npm.
set -eu
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
NH=${1:-20}
NF=${2:-10}
NG=${3:-5}
NPM=$ROOT/testdata/npm/node_modules
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
mkdir -p "$W/bin"
CGO_ENABLED=0 go build -trimpath -o "$W/bin/mcpcode" ./cmd/mcpcode
CGO_ENABLED=0 go build -trimpath -o "$W/bin/replay" ./testdata/bench/replay
go build -o "$W/pairs" ./testdata/bench/pairs
export PATH="$W/bin:$NPM/node/bin:$PATH" DENO_NO_UPDATE_CHECK=1 # node 22, pinned in testdata/npm
PAIRS="$W/pairs"
echo "machine: $(nproc) cores, $(uname -sr), go $(go env GOVERSION), node $(node --version), deno $("$NPM/deno/deno" --version | head -1 | cut -d' ' -f2), bun $("$NPM/bun/bin/bun.exe" --version)"

echo
echo "== 1. hello.ts, each a whole process (reference: node -e)"
echo "   (300 ms between runs, as between an agent's programs)"
mkdir "$W/hello"
echo '{"mcpServers":{}}' >"$W/hello/mcp.json"
echo 'console.log("hello");' >"$W/hello/hello.ts"
$PAIRS -dir "$W/hello" -n "$NH" -gap 300ms \
	'node -e=node -e console.log("hello")' \
	"mcpcode run=$W/bin/mcpcode run hello.ts" \
	"mcpcode run --isolation none=$W/bin/mcpcode run --isolation none hello.ts" \
	"deno run=$NPM/deno/deno run hello.ts" \
	"bun=$NPM/bun/bin/bun.exe hello.ts" \
	"tsx=$NPM/.bin/tsx hello.ts"

echo
echo "== 2. the 10,000-row flow against the demo servers (programs/pending-orders.ts)"
cp -r examples/demo "$W/demo"
$PAIRS -dir "$W/demo" -n "$NF" -gap 300ms \
	"node + official SDK=node $ROOT/testdata/bench/node/pending-orders.mjs mcpcode demo-server google-drive" \
	"mcpcode run=$W/bin/mcpcode run programs/pending-orders.ts"

echo
echo "== 3. the same flow against a server whose answer is precomputed (replay): the client's own share"
replay record "$W/getsheet.rec" -- mcpcode demo-server google-drive
mkdir "$W/replay"
cp -r examples/demo/servers examples/demo/programs "$W/replay/"
echo "{\"mcpServers\":{\"google-drive\":{\"command\":\"replay\",\"args\":[\"serve\",\"$W/getsheet.rec\"]}}}" >"$W/replay/mcp.json"
# "server alone" is the least a client of the server does (replay client:
# start it, initialize, list, call, read the answer, stop it): the server's
# own share, to subtract from each client's time.
$PAIRS -dir "$W/replay" -n "$NF" -gap 300ms \
	"node + official SDK=node $ROOT/testdata/bench/node/pending-orders.mjs replay serve $W/getsheet.rec" \
	"mcpcode run=$W/bin/mcpcode run programs/pending-orders.ts" \
	"server alone=replay client -- replay serve $W/getsheet.rec"

echo
echo "== 4. TypeScript from a server of 10,000 tools (the corpus cycled; tools/list in pages of 500)"
replay catalog "$W/catalog.rec" -n 10000 -corpus generator/testdata/corpus
mkdir -p "$W/gen/config"
echo "{\"mcpServers\":{\"big\":{\"command\":\"replay\",\"args\":[\"serve\",\"$W/catalog.rec\"]}}}" >"$W/gen/mcp.json"
cp "$W/gen/mcp.json" "$W/gen/config/mcporter.json"
# Each gen writes into a directory of its own: deleting the last tree
# inside the timed command would time the deletion too.
mkdir "$W/runs"
cat >"$W/gen-fresh.sh" <<SH
d=\$(mktemp -d -p "$W/runs") && cp "$W/gen/mcp.json" "\$d/" && cd "\$d" && exec mcpcode gen >/dev/null 2>&1
SH
cat >"$W/emit-ts.sh" <<SH
cd "$W/gen" && exec "$NPM/node/bin/node" "$NPM/mcporter/dist/cli.js" emit-ts big --mode types --out "$W/gen/big.d.ts" >/dev/null
SH
"$W/pairs" -n "$NG" -warm 1 -rss 1 \
	"mcporter emit-ts (one .d.ts)=sh $W/emit-ts.sh" \
	"mcpcode gen (10,001 files)=sh $W/gen-fresh.sh"
(cd "$W/gen" && mcpcode gen >/dev/null 2>&1 && touch "$W/marker" && sleep 1)
start=$(date +%s%N)
(cd "$W/gen" && mcpcode gen >/dev/null 2>&1)
end=$(date +%s%N)
echo "mcpcode gen again, nothing changed: $(((end - start) / 1000000)) ms, files written: $(find "$W/gen/servers" "$W/gen/.mcpcode" -newer "$W/marker" -type f ! -path '*/logs/*' | wc -l)"

echo
echo "== 5. a run that calls one tool of an npm stdio server (server-memory read_graph), with and without a session"
mkdir "$W/mem"
echo "{\"mcpServers\":{\"memory\":{\"command\":\"$NPM/node/bin/node\",\"args\":[\"$NPM/@modelcontextprotocol/server-memory/dist/index.js\"],\"env\":{\"MEMORY_FILE_PATH\":\"$W/mem/memory.jsonl\"}}}}" >"$W/mem/mcp.json"
printf 'import { callMCPTool } from "mcpcode:runtime";\nexport default await callMCPTool("memory", "read_graph", {});\n' >"$W/mem/read.ts"
(cd "$W/mem" && mcpcode session start --idle 10m >/dev/null && mcpcode run read.ts >/dev/null)
$PAIRS -dir "$W/mem" -n "$NH" -gap 100ms -also "mcpcode run, session=session start --foreground" \
	"mcpcode run, no session=$W/bin/mcpcode run --no-session read.ts" \
	"mcpcode run, session=$W/bin/mcpcode run read.ts"
(cd "$W/mem" && mcpcode session stop >/dev/null)

echo
echo "== 6. JavaScript kernels: goja (what programs run on) and Node"
go test ./runtime -run '^$' -bench GojaKernels -benchtime 5x | grep '^Benchmark'
node testdata/bench/node/kernels.mjs 5
echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
