/**
 * `npm run build:binary`: the server as one executable file for glibc linux-x64 that runs without
 * Node (build/binary/libtmux-mcp). It is a copy of the Node running this script (Node 24, as
 * scripts/node24.sh gives) with a single-executable-application blob injected by postject: the
 * server bundled as one CommonJS file (rolldown.binary.config.js) with V8's code cache for it, and
 * as assets share/tmux-minimal.conf and re2js's CommonJS build for the regex worker (sea-config.json).
 * Nothing is downloaded. It ends by running the executable's `--version` with no Node on PATH.
 */
import { spawnSync } from "node:child_process"
import { chmodSync, copyFileSync, mkdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const seaConfig = JSON.parse(readFileSync(join(root, "sea-config.json"), "utf8")) as {
  readonly main: string
  readonly output: string
}
const folder = join(root, "build", "binary")
const executable = join(folder, "libtmux-mcp")
// The fuse Node's binary carries (see Node's single-executable-applications docs).
const fuse = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2"

const fail = (why: string): never => {
  process.stderr.write(`build:binary: ${why}\n`)
  process.exit(1)
}

const { header } = process.report.getReport() as { readonly header?: { readonly glibcVersionRuntime?: string } }
if (process.platform !== "linux" || process.arch !== "x64" || header?.glibcVersionRuntime === undefined) {
  fail(`builds for glibc linux-x64 only; this is ${process.platform}-${process.arch}`)
}
if (Number(process.versions.node.split(".")[0]) < 24) {
  fail(`needs Node 24 (this is ${process.versions.node}): run \`. scripts/node24.sh\` first`)
}

const started = performance.now()
const run = (command: string, args: ReadonlyArray<string>, quiet?: RegExp) => {
  const result = spawnSync(command, args, { cwd: root, encoding: "utf8" })
  const said = `${result.stdout}${result.stderr}`.split("\n").filter((line) => line !== "" && !quiet?.test(line))
  if (result.status !== 0) fail(`${[command, ...args].join(" ")} failed (${result.status}):\n${said.join("\n")}`)
  return said
}

rmSync(folder, { recursive: true, force: true })
mkdirSync(folder, { recursive: true })
run(process.execPath, [join(root, "node_modules", "rolldown", "bin", "cli.mjs"), "-c", "rolldown.binary.config.js"])
run(process.execPath, ["--experimental-sea-config", "sea-config.json"])
const draft = `${executable}.draft`
copyFileSync(process.execPath, draft)
chmodSync(draft, 0o755)
// postject's ELF reader warns about each section name it cannot map; the injection is unaffected.
const postject = join(root, "node_modules", "postject", "dist", "cli.js")
run(process.execPath, [postject, draft, "NODE_SEA_BLOB", seaConfig.output, "--sentinel-fuse", fuse], /string offset/u)
renameSync(draft, executable)
rmSync(join(root, seaConfig.output))

const check = spawnSync(executable, ["--version"], { encoding: "utf8", env: { PATH: "/nonexistent" } })
const expected = `libtmux-mcp ${JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version}\n`
if (check.stdout !== expected) fail(`${executable} --version printed ${JSON.stringify(check.stdout + check.stderr)}`)
const megabytes = (statSync(executable).size / 1e6).toFixed(1)
const seconds = ((performance.now() - started) / 1000).toFixed(1)
process.stdout.write(`build:binary: ${executable} (${megabytes} MB, Node ${process.versions.node}) in ${seconds} s\n`)
