/**
 * Runs before every test file: points TMUX_TMPDIR of the test process itself at a private folder
 * and forgets TMUX/TMUX_PANE, so that even a test that forgets to pass an environment can never
 * reach the user's own tmux servers.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll } from "vitest"

const guard = mkdtempSync(join(tmpdir(), "libtmux-mcp-guard-"))
process.env.TMUX_TMPDIR = guard
// Tests leave nothing behind, this folder included.
afterAll(() => rmSync(guard, { recursive: true, force: true }))
delete process.env.TMUX
delete process.env.TMUX_PANE
