import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    setupFiles: ["test/support/setup.ts"],
    // Integration and end-to-end tests start real tmux servers and MCP server processes.
    testTimeout: 30_000,
    hookTimeout: 30_000
  }
})
