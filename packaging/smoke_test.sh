#!/usr/bin/env bash
# Smoke test of the packaged app (after `make package`), offscreen: the frozen binary must
# print its version, pass --self-test (store + model + search + keyring + Qt), serve the CLI
# that agents' hooks call, and paint the desktop app's first page.
# Usage: packaging/smoke_test.sh [dist/engram]
set -euo pipefail
bundle=${1:-dist/engram}
bin="$bundle/engram"
[ -x "$bin" ] || { echo "smoke: no packaged binary at $bin (run: make package)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export QT_QPA_PLATFORM=offscreen HOME="$tmp/home" ENGRAM_HOME="$tmp/data"
mkdir -p "$HOME"
start=$(date +%s.%N)

out=$("$bin" --version)
echo "version: $out"
[[ "$out" == engram\ * ]] || { echo "smoke: --version printed '$out'" >&2; exit 1; }

out=$("$bin" --self-test)
echo "self-test: $out"
[[ "$out" == *'"ok": true'* ]] || { echo "smoke: --self-test failed" >&2; exit 1; }

"$bin" remember --create-agent --agent smoke --category pref "Prefers pnpm over npm" >/dev/null
hits=$("$bin" recall --agent smoke "which package manager")
echo "cli recall: $hits" | head -1
[[ "$hits" == *pnpm* ]] || { echo "smoke: CLI recall did not find the fact" >&2; exit 1; }

# the desktop app itself: main window, fact browser, first page painted (offscreen)
out=$("$bin" --data-dir "$ENGRAM_HOME" --exit-after-first-paint --no-tray)
echo "gui: $out"
[[ "$out" == *first_paint_ms* ]] || { echo "smoke: the GUI did not paint" >&2; exit 1; }

end=$(date +%s.%N)
size=$(du -sh "$bundle" | cut -f1)
awk -v s="$start" -v e="$end" -v z="$size" -v b="$bundle" 'BEGIN { printf "smoke: ok in %.1f s; bundle %s at %s\n", e - s, z, b }'
