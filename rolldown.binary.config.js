/**
 * The single executable's code (`npm run build:binary`, scripts/build-binary.ts): one CommonJS file
 * holding every dependency, since a Node single-executable application runs one CommonJS script
 * whose `require` loads only Node's built-ins. The late loads (bin.ts, start.ts, main.ts) are
 * inlined into it; re2js is not (only the regex worker uses it: it goes in as an asset).
 */
import { withoutAjv } from "./rolldown.config.js"

export default {
  input: "src/bin.ts",
  platform: "node",
  logLevel: "warn",
  plugins: [withoutAjv],
  // Effect's fromEnv reads import.meta?.env, which CommonJS has not: {} stands for it, as intended.
  checks: { emptyImportMeta: false },
  output: { file: "build/binary/libtmux-mcp.cjs", format: "cjs", codeSplitting: false }
}
