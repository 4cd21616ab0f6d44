#!/usr/bin/env bash
# A process that exits once a server answered its first tools/list, for timing a cold start from
# outside (`/usr/bin/time`, hyperfine): it starts `node <entry>`, sends initialize and tools/list
# over stdio, waits for the answer and exits. With `--bare` it runs `node -e 0` instead: the same
# driver minus the server, the yardstick. bash starts in a few milliseconds, so the ratio of the two
# is close to the cold start's own ratio to a bare Node start. With `--binary` it starts the single
# executable (npm run build:binary) itself, with no Node.
#
#   bench/first-contact.sh dist/libtmux-mcp.js
#   bench/first-contact.sh --binary build/binary/libtmux-mcp
#   bench/first-contact.sh --bare
set -u
node=${NODE:-node}
if [ "${1:-}" = "--bare" ]; then exec "$node" -e 0; fi
if [ "${1:-}" = "--binary" ] && [ $# -eq 2 ]; then start=("$2"); else start=("$node" "${1:-}"); fi
[ $# -eq 1 ] || [ "${start[0]}" != "$node" ] || {
  echo "usage: bench/first-contact.sh <server entry> | --binary <executable> | --bare" >&2
  exit 2
}
# A private tmux folder: the server only probes its socket there; nothing is left behind.
dir=$(mktemp -d "${TMPDIR:-/tmp}/libtmux-mcp-first-XXXXXX")
trap 'rm -rf "$dir"' EXIT
coproc server { exec env -i PATH="$PATH" HOME="$HOME" TMUX_TMPDIR="$dir" "${start[@]}" 2>/dev/null; }
printf '%s\n' \
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"first-contact","version":"0"}}}' \
  '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
  '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' >&"${server[1]}"
while IFS= read -r line <&"${server[0]}"; do
  case $line in *'"id":2'*) kill "$server_PID"; wait "$server_PID" 2>/dev/null; exit 0 ;; esac
done
echo "the server exited before answering tools/list" >&2
exit 1
