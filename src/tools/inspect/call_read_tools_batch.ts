/** call_read_tools_batch: several read tools, in order, in one call. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { Selection } from "../../domain/selection.ts"
import { manifest } from "../../manifest/index.ts"
import { usually } from "../../programs/usual.ts"
import { ReadTools } from "../../services/ReadTools.ts"
import { defineTool } from "../define.ts"

/** The most operations in one batch. */
export const maxBatchOperations = 16
/** The largest aggregate result, in bytes; nested payloads are omitted, first row first, to fit. */
export const maxBatchBytes = 1_000_000

const operationsOf = (tool: Schema.Top) =>
  Schema.Struct({
    operations: Schema.Array(Schema.Struct({
      tool: (tool as typeof Schema.String).annotate({ description: "a read tool" }),
      arguments: Schema.optionalKey(
        Schema.Record(Schema.String, Schema.Unknown).annotate({ description: "the tool's own arguments" })
      )
    })).check(Schema.isMinLength(1), Schema.isMaxLength(maxBatchOperations)).annotate({ description: "run in order" }),
    onError: Schema.optionalKey(
      Schema.Literals(["stop", "continue"]).annotate({ description: "stop (default) or continue after a failure" })
    )
  })

const Row = Schema.Struct({
  index: Schema.Int.annotate({ description: "the operation's position, from 0" }),
  tool: Schema.String.annotate({ description: "the tool called" }),
  status: Schema.Literals(["ok", "error", "skipped"]).annotate({
    description: "skipped: not run after a failure with onError stop"
  }),
  result: Schema.NullOr(Schema.Struct({
    content: Schema.Array(Schema.Struct({
      type: Schema.Literal("text").annotate({ description: "always text" }),
      text: Schema.String.annotate({ description: "the text" })
    })).annotate({ description: "the result's content blocks" }),
    structuredContent: Schema.optionalKey(
      Schema.Record(Schema.String, Schema.Unknown).annotate({ description: "the tool's structured result" })
    ),
    isError: Schema.Boolean.annotate({ description: "whether the tool failed" })
  })).annotate({ description: "the nested MCP result; null when skipped or omitted to fit the size bound" }),
  payload_omitted: usually(
    Schema.Boolean.annotate({ description: "true: result omitted to keep the batch under its size bound" }),
    false,
    "the result is there (or the operation was skipped)"
  )
})

/** @category tools */
export const call_read_tools_batch = defineTool(manifest.call_read_tools_batch, {
  description:
    `Run up to ${maxBatchOperations} reads (this server's inspect tools) in order; returns each status and ` +
    "result. It aggregates authority under its own name: a client that allows this tool allows every tool " +
    "in its operations list (see nestedAuthority in its capability record), whatever its rules for those " +
    `tools by name. Check each status. Results past ${maxBatchBytes} bytes in all are omitted and marked.`,
  input: operationsOf(Schema.String),
  specialize: (selection: Selection) =>
    operationsOf(Schema.Literals(selection.batchOperations as ReadonlyArray<string>)),
  output: Schema.Struct({
    results: Schema.Array(Row).annotate({ description: "one per operation, in order" }),
    succeeded: Schema.Int.annotate({ description: "operations that succeeded" }),
    failed: Schema.Int.annotate({ description: "operations that failed" }),
    stopped_at: usually(
      Schema.NullOr(Schema.Int).annotate({ description: "index of the failure that stopped the batch" }),
      null,
      "the batch did not stop"
    ),
    payloads_omitted: usually(Schema.Int.annotate({ description: "results omitted for size" }), 0, "none")
  }),
  run: (input) =>
    Effect.gen(function*() {
      const reads = yield* ReadTools
      const results: Array<typeof Row.Type> = []
      let stopped: number | null = null
      for (const [index, operation] of input.operations.entries()) {
        if (stopped !== null) {
          results.push({ index, tool: operation.tool, status: "skipped", result: null, payload_omitted: false })
          continue
        }
        const outcome = yield* reads.call(operation.tool, operation.arguments ?? {})
        results.push(
          outcome.ok
            ? {
              index,
              tool: operation.tool,
              status: "ok",
              payload_omitted: false,
              result: {
                content: [{ type: "text", text: JSON.stringify(outcome.structured) }],
                structuredContent: outcome.structured,
                isError: false
              }
            }
            : {
              index,
              tool: operation.tool,
              status: "error",
              payload_omitted: false,
              result: { content: [{ type: "text", text: outcome.message }], isError: true }
            }
        )
        if (!outcome.ok && input.onError !== "continue") stopped = index
      }
      let omitted = 0
      for (let i = 0; i < results.length && Buffer.byteLength(JSON.stringify(results)) * 2 > maxBatchBytes; i++) {
        if (results[i]!.result === null) continue
        results[i] = { ...results[i]!, result: null, payload_omitted: true }
        omitted++
      }
      return {
        results,
        succeeded: results.filter((row) => row.status === "ok").length,
        failed: results.filter((row) => row.status === "error").length,
        stopped_at: stopped,
        payloads_omitted: omitted
      }
    })
})
