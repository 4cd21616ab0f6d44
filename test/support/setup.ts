/**
 * Runs before every test file: points TMUX_TMPDIR of the test process itself at a private folder
 * and forgets TMUX/TMUX_PANE, so that even a test that forgets to pass an environment can never
 * reach the user's own tmux servers.
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

process.env.TMUX_TMPDIR = mkdtempSync(join(tmpdir(), "libtmux-mcp-guard-"))
delete process.env.TMUX
delete process.env.TMUX_PANE
