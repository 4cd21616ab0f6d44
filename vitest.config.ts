import { defineConfig } from "vitest/config"

// Files that replace modules (vi.mock) need a module graph of their own.
const ownModules = ["test/integration/provision.test.ts", "test/unit/runMachine.live.property.test.ts"]

export default defineConfig({
  test: {
    // Stops the run at once when TMPDIR is too long for the tests' sockets.
    globalSetup: ["test/support/globalSetup.ts"],
    setupFiles: ["test/support/setup.ts"],
    // Integration and end-to-end tests start real tmux servers and MCP server processes.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Most of a test's time is spent waiting on tmux, shells and server processes, so more files
    // than cores run at once (the default would be one worker on two cores).
    maxWorkers: 3,
    // A file's `describe.concurrent` tests (each in its own world, most of their time waiting on
    // sleeping runs and quiet windows) run three at a time: more would share the cores thinner than
    // each test's timeout allows on a loaded machine.
    maxConcurrency: 3,
    projects: [
      // Files in one worker share their imports: loading Effect and the SDK once per file
      // was a third of the suite's CPU.
      { extends: true, test: { name: "shared", include: ["test/**/*.test.ts"], exclude: ownModules, isolate: false } },
      { extends: true, test: { name: "isolated", include: ownModules } }
    ]
  }
})
