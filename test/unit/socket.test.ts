/**
 * Socket selectors and their resolution, exactly as tmux resolves them.
 */
import * as Result from "effect/Result"
import { assert, describe, it } from "vitest"
import {
  formatSelector,
  inheritedPath,
  parseSocketSelector,
  type ResolveEnvironment,
  resolveSocketPath,
  socketFlags
} from "../../src/domain/socket.ts"

const parse = (raw: string) => Result.getOrThrow(parseSocketSelector(raw))
const env = (partial: Partial<ResolveEnvironment>): ResolveEnvironment => ({
  uid: 1000,
  // Like Node's realpath: an empty path resolves to the working folder.
  realpath: (path) =>
    path === ""
      ? "/exists/cwd"
      : path === "/tmp/"
      ? "/tmp"
      : path.startsWith("/exists")
      ? path.replace(/\/$/u, "")
      : undefined,
  ...partial
})

describe("selectors", () => {
  it("reads name:<name>, a bare name, inherit and path:/abs, so that a server named inherit is name:inherit", () => {
    assert.deepStrictEqual(parse("name:work"), { form: "name", name: "work" })
    assert.deepStrictEqual(parse("work"), { form: "name", name: "work" })
    assert.deepStrictEqual(parse("inherit"), { form: "inherit" })
    assert.deepStrictEqual(parse("name:inherit"), { form: "name", name: "inherit" })
    assert.deepStrictEqual(parse("path:/run/agent.sock"), { form: "path", path: "/run/agent.sock" })
  })

  it("writes the canonical selector and the tmux flags that pin it", () => {
    assert.strictEqual(formatSelector(parse("work")), "name:work")
    assert.deepStrictEqual(socketFlags(parse("work")), ["-L", "work"])
    assert.deepStrictEqual(socketFlags(parse("path:/s")), ["-S", "/s"])
    assert.deepStrictEqual(socketFlags(parse("inherit")), [])
    // tmux cuts $TMUX at its first comma: the path, read from the right, is passed instead.
    assert.deepStrictEqual(socketFlags(parse("inherit"), "/tmp/a,b/sock,123,0"), ["-S", "/tmp/a,b/sock"])
    assert.deepStrictEqual(socketFlags(parse("inherit"), ""), [])
  })

  it("rejects names that would leave the socket directory and paths that are not absolute, naming valid forms", () => {
    for (const raw of ["", "a/b", "..", ".", "name:", "path:relative", "path:", "sp ace", `path:/${"x".repeat(200)}`]) {
      const result = parseSocketSelector(raw)
      assert.isTrue(Result.isFailure(result), raw)
      if (Result.isFailure(result)) assert.include(result.failure.message, "valid forms", raw)
    }
  })
})

describe("resolution", () => {
  it("puts a name under the realpath of TMUX_TMPDIR, then tmux-<uid>", () => {
    assert.strictEqual(
      resolveSocketPath(parse("work"), env({ TMUX_TMPDIR: "/exists/dir/" })),
      "/exists/dir/tmux-1000/work"
    )
  })

  it("falls back to /tmp when TMUX_TMPDIR is unset, empty or does not resolve, as tmux does", () => {
    for (const dir of [undefined, "", "/missing"]) {
      assert.strictEqual(
        resolveSocketPath(parse("work"), env({ TMUX_TMPDIR: dir })),
        "/tmp/tmux-1000/work",
        String(dir)
      )
    }
  })

  it("resolves inherit to the socket in $TMUX, or to the default name outside tmux", () => {
    assert.strictEqual(
      resolveSocketPath(parse("inherit"), env({ TMUX: "/tmp/tmux-1000/default,123,0" })),
      "/tmp/tmux-1000/default"
    )
    assert.strictEqual(resolveSocketPath(parse("inherit"), env({ TMUX: "" })), "/tmp/tmux-1000/default")
    assert.strictEqual(
      resolveSocketPath(parse("inherit"), env({ TMUX_TMPDIR: "/exists/x" })),
      "/exists/x/tmux-1000/default"
    )
  })

  it("keeps an explicit path as given", () => {
    assert.strictEqual(resolveSocketPath(parse("path:/run/a.sock"), env({ TMUX: "/elsewhere,1,2" })), "/run/a.sock")
  })
})

describe("inheritedPath", () => {
  it("reads $TMUX from the right: the path may hold a comma, the last two fields are numbers", () => {
    assert.strictEqual(inheritedPath("/tmp/tmux-1000/default,123,0"), "/tmp/tmux-1000/default")
    assert.strictEqual(inheritedPath("/run/a,b/sock,4567,12"), "/run/a,b/sock")
    for (const none of [undefined, "", ",1,0", "/tmp/sock", "/tmp/sock,x,0"]) {
      assert.isUndefined(inheritedPath(none), String(none))
    }
  })
})
