/**
 * The bundled bin: a small entry (dist/libtmux-mcp.js) that turns on Node's compile cache and then
 * loads the server chunk (dist/libtmux-mcp-main.js), so the cache covers the server's code.
 */
import { fileURLToPath } from "node:url"

/**
 * The SDK's ajv validator checks elicited input, which this server never asks for:
 * a stub keeps ajv out of the bundle.
 */
export const withoutAjv = {
  name: "without-ajv",
  resolveId(source, importer) {
    if (source.endsWith("/validation/ajv-provider.js") && importer?.includes("@modelcontextprotocol/sdk")) {
      return fileURLToPath(new URL("scripts/ajv-stub.js", import.meta.url))
    }
    return undefined
  }
}

export default {
  input: { "libtmux-mcp": "src/bin.ts" },
  platform: "node",
  logLevel: "warn",
  plugins: [withoutAjv],
  output: { dir: "dist", format: "esm", entryFileNames: "[name].js", chunkFileNames: "libtmux-mcp-[name].js" }
}
