#!/usr/bin/env bash
# Cuts a release from a clean main: bash scripts/release.sh 0.2.0
# Checks that the version is the one package.json and CHANGES.md name, that the tree is clean, then
# runs the checks and the whole suite, builds, packs the tarball into release/, and tags v<version>.
# It publishes nothing and pushes nothing: push the tag and upload the tarball by hand.
set -euo pipefail
cd "$(dirname "$0")/.."
version="${1:?usage: scripts/release.sh VERSION (as package.json has it)}"
fail() { echo "release: $*" >&2; exit 1; }

[ "$(node -p 'require("./package.json").version')" = "$version" ] || fail "package.json's version is not $version"
grep -q "^## $version" CHANGES.md || fail "CHANGES.md has no '## $version' section"
[ -z "$(git status --porcelain)" ] || fail "the work tree has uncommitted changes"
[ "$(git rev-parse --abbrev-ref HEAD)" = main ] || fail "not on main"
! git rev-parse -q --verify "refs/tags/v$version" >/dev/null || fail "tag v$version exists already"

npm ci --no-audit --no-fund
npm run check
npm test
mkdir -p release
tarball=$(node scripts/pack.ts release)
git tag -a "v$version" -m "libtmux-mcp $version"
echo "release: tagged v$version at $(git rev-parse --short HEAD); tarball $tarball"
