/**
 * Calls live in the server's scope: closing it (the process stopping) interrupts a call in flight
 * and waits for the call's own finalizers before the services built earlier in that scope close,
 * so a finalizer never races an interrupted call.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { assert, describe, it } from "vitest"
import { Registry } from "../../src/dispatch/Registry.ts"
import { makeServerLog } from "../../src/platform/ServerLog.ts"
import { connect, makeServer } from "../../src/wire/McpServer.ts"

describe("the server's scope", () => {
  it("interrupts a call in flight and waits for it before the services' finalizers run", async () => {
    const order: Array<string> = []
    const program = Effect.gen(function*() {
      const scope = yield* Scope.make()
      // Stands for the services, built first in the same scope.
      yield* Scope.addFinalizer(scope, Effect.sync(() => order.push("services closed")))
      const started = yield* Deferred.make<void>()
      const registry = Registry.of({
        selected: [],
        nestedAuthority: [],
        call: () =>
          // Yields first: the server registers a call's fiber once the fiber's first synchronous run returns.
          Effect.yieldNow.pipe(
            Effect.andThen(Deferred.succeed(started, undefined)),
            Effect.andThen(Effect.never),
            // A call's own cleanup that is asynchronous (deleting its buffer, holding its run): it
            // finishes a turn of the event loop later.
            Effect.onExit((exit) =>
              Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve))).pipe(
                Effect.andThen(Effect.sync(() => order.push(`call cleaned: ${exit._tag}`)))
              )
            )
          )
      })
      const { server } = yield* makeServer(Context.make(Registry, registry), {
        version: "0",
        instructions: "",
        capabilities: () => "{}",
        log: makeServerLog()
      }).pipe(Scope.provide(scope))
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
      yield* connect(server, serverSide)
      const client = new Client({ name: "test", version: "0" })
      yield* Effect.promise(() => client.connect(clientSide))
      const answer = client.callTool({ name: "anything", arguments: {} }).then(() => "answered", () => "failed")
      yield* Deferred.await(started)
      yield* Scope.close(scope, Exit.void)
      order.push("scope closed")
      yield* Effect.promise(() => client.close())
      return yield* Effect.promise(() => answer)
    })
    const answer = await Effect.runPromise(program)
    assert.deepStrictEqual(order, ["call cleaned: Failure", "services closed", "scope closed"])
    assert.strictEqual(answer, "failed", "the interrupted call is answered as cancelled")
  })
})
