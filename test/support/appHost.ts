/**
 * A host for the pane view as MCP Apps hosts run one: a page in a real browser (Debian's chromium,
 * driven by playwright-core; no browser download) with the extension's own host side (`AppBridge`
 * from @modelcontextprotocol/ext-apps) and the view's page in a sandboxed iframe. The view's tool
 * calls cross to this process, which makes them with the SDK's real client over stdio.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import type { Browser } from "playwright-core"
import { build } from "rolldown"

/** Where Debian puts its chromium; CI installs it (.ci/run). */
export const chromiumPath = "/usr/bin/chromium"

/** Whether the browser tests can run here: outside CI they skip when chromium is missing. */
export const browserAvailable = (): boolean => existsSync(chromiumPath) || process.env.CI === "true"

/**
 * Starts chromium headless (as root it needs --no-sandbox; the view's own iframe sandbox is the page's),
 * with a HOME of its own that goes when it closes: chromium writes its settings and crash reports there.
 */
export const launchBrowser = async (): Promise<Browser> => {
  const { chromium } = await import("playwright-core")
  const home = mkdtempSync(join(tmpdir(), "libtmux-mcp-browser-"))
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    args: ["--no-sandbox", "--disable-gpu", "--font-render-hinting=none", "--force-color-profile=srgb"],
    env: { ...process.env, HOME: home }
  }).catch((error: unknown) => {
    rmSync(home, { recursive: true, force: true })
    throw error
  })
  browser.on("disconnected", () => rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 }))
  return browser
}

const entry = "\0app-bridge-entry"

/** The extension's host side, bundled for the page: `globalThis.ExtApps = { AppBridge, PostMessageTransport }`. */
export const hostBundle = async (): Promise<string> => {
  const out = await build({
    input: entry,
    cwd: fileURLToPath(new URL("../..", import.meta.url)),
    platform: "browser",
    logLevel: "silent",
    write: false,
    plugins: [{
      name: "app-bridge-entry",
      resolveId: (id) => id === entry ? id : undefined,
      load: (id) =>
        id === entry
          ? "import { AppBridge, PostMessageTransport } from \"@modelcontextprotocol/ext-apps/app-bridge\"\n" +
            "globalThis.ExtApps = { AppBridge, PostMessageTransport }\n"
          : undefined
    }],
    output: { format: "iife" }
  })
  const chunk = out.output[0]
  if (chunk === undefined || chunk.type !== "chunk") throw new Error("the AppBridge bundle is empty")
  return chunk.code
}

/**
 * The host page: the bundle, an iframe sandboxed as hosts sandbox apps (scripts only: an opaque
 * origin), and a bridge whose tool calls go to `hostCallTool` (a function the test exposes).
 * `startView(html)` loads the view; `bridge` is the page's AppBridge.
 */
export const hostPage = (bundle: string): string =>
  `<!doctype html>
<html><head><meta charset="utf-8"><style>body{margin:0;background:#111}iframe{border:0;width:760px;height:420px}</style>
</head><body><iframe id="view" sandbox="allow-scripts"></iframe>
<script>${bundle.replaceAll("</script", "<\\/script")}</script>
<script>
window.startView = async (html) => {
  const { AppBridge, PostMessageTransport } = globalThis.ExtApps
  const iframe = document.getElementById("view")
  const bridge = new AppBridge(null, { name: "libtmux-mcp-test-host", version: "1.0.0" }, { serverTools: {} },
    { hostContext: { theme: "dark", displayMode: "inline" } })
  bridge.oncalltool = (params) => window.hostCallTool(params)
  window.viewReady = new Promise((resolve) => { bridge.oninitialized = resolve })
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow))
  window.bridge = bridge
  iframe.srcdoc = html
  await window.viewReady
}
</script></body></html>`
