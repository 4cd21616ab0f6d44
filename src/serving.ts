/**
 * The MCP server for what startup decided, over the live services: what serve.ts runs on stdio,
 * and what a test connects to in process. Nothing here touches the process (its streams, signals
 * or heap).
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Services from "./composition.ts"
import { unknownSettingWarnings } from "./domain/config.ts"
import { attachCommandFor } from "./domain/quote.ts"
import { advertisedSchemas } from "./generated/toolSchemas.ts"
import { Audit } from "./services/Audit.ts"
import { LinkGate } from "./services/LinkGate.ts"
import { Recorder } from "./services/Recorder.ts"
import { ServerLog } from "./services/ServerLog.ts"
import type { StartupFacts } from "./startup/Startup.ts"
import { version } from "./version.ts"
import { capabilitiesDocument, instructions, readyLine, warningLines } from "./wire/Disclosure.ts"
import { hostedSide } from "./wire/Hosted.ts"
import { makeServer, type ServerOptions } from "./wire/McpServer.ts"

/** What a server is built with besides the facts. */
export interface ServingOptions {
  /** Runs after each call is answered (the server process's heap collector). */
  readonly afterCall?: ServerOptions["afterCall"]
  /** Services to use instead of the live ones. */
  readonly replacements?: Services.ServiceReplacements
  /** The revision the connection chose (a line transport's), for calls that may become tasks. */
  readonly era?: ServerOptions["era"]
}

/**
 * The MCP server over the live services for `facts`, built in the current scope after the services:
 * closing the scope interrupts its calls and awaits them before the services close.
 */
export const makeServing = (facts: StartupFacts, options: ServingOptions = {}) =>
  Effect.gen(function*() {
    const { replacements, afterCall, era } = options
    let built: Server | undefined
    // A server a hub started: its link's watch and its collection gate (wire/Hosted.ts).
    const hosted = hostedSide(facts, () => built)
    const gates = hosted === undefined ? Layer.empty : Layer.succeed(LinkGate, hosted.gate)
    const context = yield* Layer.build(Layer.provide(Services.layer(facts, replacements), gates))
    const log = Context.get(context, ServerLog)
    const { server, local } = yield* makeServer(context, {
      version,
      instructions: instructions(facts),
      capabilities: () =>
        JSON.stringify(
          capabilitiesDocument(
            facts,
            Effect.runSync(Context.get(context, Audit).status),
            Effect.runSync(Context.get(context, Recorder).status)
          ),
          null,
          2
        ),
      ...(afterCall === undefined ? {} : { afterCall }),
      advertised: advertisedSchemas,
      waitCeiling: facts.config.waitMaxSeconds,
      log,
      hosts: facts.config.hosts,
      era,
      attach: attachCommandFor(facts.pin.resolvedPath)
    })
    built = server
    return { server, local, log, hosted }
  })

/** The lines a server logs once it answers: the ready line, then each warning (`env` is what startup read). */
export const logReady = (
  facts: StartupFacts,
  log: ServerLog["Service"],
  env: Readonly<Record<string, string | undefined>>
): void => {
  log.line("info", readyLine(facts))
  for (const warning of [...warningLines(facts), ...unknownSettingWarnings(env)]) log.line("warning", warning)
}
