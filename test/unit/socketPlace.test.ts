/**
 * The socket-place decision (issue 18, item 1): a tmux client obeys its server, so no client of ours
 * may connect to a socket another user could have bound, and no server may be started where another
 * user could have put `<socket>.lock`. Grouped by threat, over a fake file system.
 */
import { assert, describe, it } from "vitest"
import {
  checkPlace,
  checkTmuxFolderPath,
  type Entry,
  placeOf,
  type PlaceReader,
  type PlaceRefusal,
  type SocketPlace
} from "../../src/domain/socketPlace.ts"

const me = 1000
const stranger = 1001

type Node = Entry & { readonly target?: string }

const folder = (mode: number, uid = me): Node => ({ kind: "folder", uid, mode })
const socket = (uid = me): Node => ({ kind: "socket", uid, mode: 0o600 })
const file = (uid = me): Node => ({ kind: "file", uid, mode: 0o600 })
const link = (target: string, uid = me): Node => ({ kind: "symlink", uid, mode: 0o777, target })

/** A reader over a table of paths; the usual / and /tmp are there unless replaced. */
const fs = (nodes: Record<string, Node>): PlaceReader => {
  const table: Record<string, Node> = { "/": folder(0o755, 0), "/tmp": folder(0o1777, 0), ...nodes }
  return {
    lstat: (path) => table[path] ?? "missing",
    readlink: (path) => table[path]?.target ?? { problem: "not a link" }
  }
}

const place = (path: string, reader: PlaceReader): SocketPlace => {
  const found = placeOf(path, me, reader)
  if ("detail" in found) throw new Error(`expected a place, got: ${found.detail}`)
  return found
}

const refused = (found: SocketPlace | PlaceRefusal | undefined, ...texts: ReadonlyArray<string>) => {
  assert.isDefined(found)
  assert.isTrue(found !== undefined && "detail" in found, `expected a refusal, got ${JSON.stringify(found)}`)
  for (const text of texts) assert.include((found as PlaceRefusal).detail, text)
  // Every refusal says what to do instead.
  assert.match((found as PlaceRefusal).detail, /choose|remove it|start it yourself/u)
}

describe("a private folder", () => {
  const reader = fs({ "/tmp/mine": folder(0o700), "/tmp/mine/agent.sock": socket() })

  it("is accepted, with or without the socket, to connect and to start a server", () => {
    const found = place("/tmp/mine/agent.sock", reader)
    assert.deepStrictEqual(found, {
      socket: "/tmp/mine/agent.sock",
      lock: "/tmp/mine/agent.sock.lock",
      folder: "/tmp/mine",
      sharedMode: undefined,
      uid: me
    })
    assert.isUndefined(checkPlace(found, reader, "connect"))
    assert.isUndefined(checkPlace(found, reader, "start"))
    const empty = fs({ "/tmp/mine": folder(0o700) })
    assert.isUndefined(checkPlace(place("/tmp/mine/agent.sock", empty), empty, "start"))
  })

  it("accepts a folder others may read but not write, owned by us or by root", () => {
    const open = fs({ "/srv": folder(0o755, 0), "/srv/me": folder(0o755) })
    assert.isUndefined(checkPlace(place("/srv/me/agent.sock", open), open, "start"))
  })
})

describe("folders others can write without the sticky bit", () => {
  it("refuses the socket's own folder of mode 0777, naming it and its mode", () => {
    refused(placeOf("/tmp/open/s", me, fs({ "/tmp/open": folder(0o777) })), "/tmp/open", "mode 0777")
  })

  it("refuses a group-writable folder (0770), even one of ours", () => {
    refused(placeOf("/tmp/team/s", me, fs({ "/tmp/team": folder(0o770) })), "/tmp/team", "mode 0770")
  })

  it("refuses an ancestor of mode 0777 above a private folder: the private one could be swapped", () => {
    const reader = fs({ "/srv": folder(0o777, 0), "/srv/mine": folder(0o700) })
    refused(placeOf("/srv/mine/s", me, reader), "/srv ", "mode 0777")
  })
})

describe("folders owned by another user", () => {
  it("refuses a folder on the way owned by anyone but us or root, naming its owner", () => {
    const reader = fs({
      "/home": folder(0o755, 0),
      "/home/bob": folder(0o755, stranger),
      "/home/bob/me": folder(0o700)
    })
    refused(placeOf("/home/bob/me/s", me, reader), "/home/bob", `uid ${stranger}`)
  })

  it("refuses the socket's own folder owned by another user, even of mode 0700", () => {
    refused(placeOf("/tmp/theirs/s", me, fs({ "/tmp/theirs": folder(0o700, stranger) })), `uid ${stranger}`)
  })
})

describe("a sticky folder others can write (like /tmp)", () => {
  it("refuses a name nobody holds yet: another user could bind it first", () => {
    const reader = fs({})
    refused(checkPlace(place("/tmp/agent.sock", reader), reader, "connect"), "/tmp/agent.sock", "mode 1777")
  })

  it("refuses a socket there that belongs to another user", () => {
    const reader = fs({ "/tmp/agent.sock": socket(stranger) })
    refused(checkPlace(place("/tmp/agent.sock", reader), reader, "connect"), `uid ${stranger}`)
  })

  it("accepts our own socket there to connect, but starts no server there", () => {
    const reader = fs({ "/tmp/agent.sock": socket() })
    const found = place("/tmp/agent.sock", reader)
    assert.strictEqual(found.sharedMode, 0o1777)
    assert.isUndefined(checkPlace(found, reader, "connect"))
    refused(checkPlace(found, reader, "start"), "/tmp/agent.sock.lock", "start it yourself")
  })
})

describe("the socket itself", () => {
  const at = (node: Node) => {
    const reader = fs({ "/tmp/mine": folder(0o700), "/tmp/mine/s": node })
    return checkPlace(place("/tmp/mine/s", reader), reader, "connect")
  }

  it("refuses a socket owned by another user, even in a private folder", () => {
    refused(at(socket(stranger)), "/tmp/mine/s", `uid ${stranger}`, `uid ${me}`)
  })

  it("refuses anything that is not a socket (tmux would delete it to start a server)", () => {
    refused(at(file()), "is a regular file, not a socket")
    refused(at(link("/etc/passwd")), "is a symbolic link, not a socket")
    refused(at(folder(0o700)), "is a folder, not a socket")
  })
})

describe("the lock tmux creates beside the socket", () => {
  const at = (node: Node) => {
    const reader = fs({ "/tmp/mine": folder(0o700), "/tmp/mine/s.lock": node })
    return checkPlace(place("/tmp/mine/s", reader), reader, "start")
  }

  it("refuses a symbolic link there (tmux would create what it points to)", () => {
    refused(at(link("/root/.bashrc", stranger)), "/tmp/mine/s.lock", "symbolic link")
    refused(at(link("/root/.bashrc")), "symbolic link")
  })

  it("refuses a lock of another user or one that is not a regular file, and accepts our own", () => {
    refused(at(file(stranger)), `uid ${stranger}`)
    refused(at(folder(0o700)), "is a folder")
    assert.isUndefined(at(file()))
  })

  it("is checked before every connection too: any command that may start a server opens it", () => {
    const reader = fs({ "/tmp/mine": folder(0o700), "/tmp/mine/s": socket(), "/tmp/mine/s.lock": link("/x") })
    refused(checkPlace(place("/tmp/mine/s", reader), reader, "connect"), "symbolic link")
  })
})

describe("links on the way", () => {
  it("follows a link to the real folder and checks the folder the link is in", () => {
    const reader = fs({
      "/home": folder(0o755, 0),
      "/home/me": folder(0o700),
      "/home/me/run": link("/tmp/mine"),
      "/tmp/mine": folder(0o700)
    })
    assert.strictEqual(place("/home/me/run/s", reader).socket, "/tmp/mine/s")
  })

  it("refuses a link kept in a folder another user can write, though its target is private", () => {
    const reader = fs({ "/open": folder(0o777, 0), "/open/run": link("/tmp/mine"), "/tmp/mine": folder(0o700) })
    refused(placeOf("/open/run/s", me, reader), "/open", "mode 0777")
  })

  it("checks every folder a relative link and .. lead through", () => {
    const reader = fs({
      "/srv": folder(0o755, 0),
      "/srv/a": folder(0o755),
      "/srv/a/up": link("../theirs/x"),
      "/srv/theirs": folder(0o755, stranger),
      "/srv/theirs/x": folder(0o700)
    })
    refused(placeOf("/srv/a/up/s", me, reader), "/srv/theirs", `uid ${stranger}`)
  })

  it("refuses a loop of links", () => {
    const reader = fs({ "/tmp/l1": link("/tmp/l2"), "/tmp/l2": link("/tmp/l1") })
    refused(placeOf("/tmp/l1/s", me, reader), "too many symbolic links")
  })
})

describe("folders that are not there or not folders", () => {
  it("refuses a missing socket folder (tmux creates the socket, not its folder)", () => {
    refused(placeOf("/tmp/missing/s", me, fs({})), "/tmp/missing does not exist")
  })

  it("refuses a path through a regular file", () => {
    refused(placeOf("/tmp/f/s", me, fs({ "/tmp/f": file() })), "/tmp/f is not a folder")
  })
})

describe("a socket in tmux's own folder (name:, or inherit outside tmux)", () => {
  it("refuses only what tmux would destroy or cannot use: tmux checks its folder's owner and mode", () => {
    const reader = fs({ "/tmp/tmux-1000": folder(0o700), "/tmp/tmux-1000/f": file(), "/tmp/tmux-1000/s": socket() })
    assert.isUndefined(checkTmuxFolderPath("/tmp/tmux-1000/s", reader))
    assert.isUndefined(checkTmuxFolderPath("/tmp/tmux-1000/new", reader))
    assert.isUndefined(checkTmuxFolderPath("/tmp/tmux-2000/new", reader))
    assert.include(checkTmuxFolderPath("/tmp/tmux-1000/f", reader)?.detail, "is a regular file, not a socket")
    assert.include(checkTmuxFolderPath("/tmp/f/s", fs({ "/tmp/f": file() }))?.detail, "/tmp/f is not a folder")
  })
})
