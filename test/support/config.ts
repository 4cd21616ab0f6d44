/**
 * A server configuration for tests that build services by hand: the defaults, with overrides.
 */
import type { ServerConfig } from "../../src/domain/config.ts"

/** The default configuration, as parsing an empty environment yields it, with overrides. */
export const testConfig = (overrides: Partial<ServerConfig> = {}): ServerConfig => ({
  socket: { form: "name", name: "libtmux-mcp" },
  socketExplicit: false,
  tmuxConfig: { kind: "minimal" },
  selection: { toolsets: undefined, tools: undefined, excludeTools: undefined },
  suppressHistory: true,
  waitMaxSeconds: 30,
  tmuxBin: "tmux",
  transport: "auto",
  auditLog: undefined,
  adopt: "adopt",
  lease: "shared",
  watchSsh: undefined,
  ...overrides
})
