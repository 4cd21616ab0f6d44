// npm runs the `prepack` script before `npm pack` and `npm publish` in the checkout, and also before
// `npm run pack`, as it runs `preX` before any script X. The checkout's package.json keeps its build
// scripts, which would run (and fail) where the tarball is installed: only `npm run pack`
// (scripts/pack.ts, which packs a copy without them) goes on. Plain JavaScript, like node-floor.mjs.
const command = process.env.npm_command
// npm names `npm run` "run" (npm 10 and later) or "run-script" (npm 7 to 9).
if (command !== "run" && command !== "run-script") {
  console.error(
    `libtmux-mcp: \`npm ${command ?? "pack"}\` here would pack the checkout's package.json with its build scripts; ` +
      "make the tarball with `npm run pack`, which packs one without them (publish that tarball)"
  )
  process.exit(1)
}
