#!/bin/sh
# The page's screenshots in docs/web/, light and dark, at 1400 and 800 px wide: a server on
# a temporary data dir holding this repository's committed tree (keyword only, no model
# needed), shot by headless Chromium. Rerun after changing the page:
#   cargo build --bin lore && docs/web/screenshots.sh [path/to/lore]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
lore=${1:-$repo/target/debug/lore}
chromium=${LORE_CHROMIUM:-chromium}
tmp=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT INT TERM
# The committed tree, copied aside (the stores view shows a store's source path).
mkdir "$tmp/lore"
git -C "$repo" archive HEAD | tar -x -C "$tmp/lore"
"$lore" --data-dir "$tmp/data" store add lore "$tmp/lore" --embed none --exclude 'docs/web/**' >/dev/null 2>&1
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$lore" --data-dir "$tmp/data" serve --addr "127.0.0.1:$port" --no-watch >"$tmp/serve.log" 2>&1 &
pid=$!
base="http://127.0.0.1:$port"
i=0
until curl -sf "$base/health" >/dev/null; do
  i=$((i + 1)); [ $i -lt 100 ] || { cat "$tmp/serve.log"; exit 1; }; sleep 0.1
done
# The unit of the first result of a search, opened beside the results.
id=$(curl -sf "$base/api/search" -H 'content-type: application/json' \
  -d '{"query":"fuse bm25 and vector scores","limit":5}' |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["results"][0]["id"])')
shot() { # name width scheme url
  flags=""
  [ "$3" = dark ] && flags="--force-dark-mode --blink-settings=preferredColorScheme=0"
  # shellcheck disable=SC2086
  "$chromium" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
    --disable-background-networking --user-data-dir="$tmp/profile-$1" \
    --window-size="$2,900" --virtual-time-budget=10000 $flags \
    --screenshot="$here/$1.png" "$4" >/dev/null 2>&1
  echo "docs/web/$1.png"
}
q="q=fuse+bm25+and+vector+scores&limit=5&id=$id"
shot search-1400-light 1400 light "$base/?$q"
shot search-1400-dark 1400 dark "$base/?$q"
shot search-800-light 800 light "$base/?$q"
shot search-800-dark 800 dark "$base/?$q"
shot graph-1400-light 1400 light "$base/?graph=fuse_per_store"
shot graph-1400-dark 1400 dark "$base/?graph=fuse_per_store"
shot home-1400-light 1400 light "$base/"
shot stores-1400-dark 1400 dark "$base/?view=stores"
shot files-1400-light 1400 light "$base/?view=files&store=lore&dir=crates/lore-engine/src"
shot outline-800-dark 800 dark "$base/?view=file&store=lore&path=crates/lore-engine/src/query/fusion.rs"
