/**
 * A minimal Effect agent loop over libtmux-mcp's tools: the model gets the selected tools as an
 * effect/ai Toolkit and calls them until it answers in text. Provide any `LanguageModel` layer
 * (for example one of the @effect/ai provider packages); `scripted-agent.ts` runs it with a scripted
 * model, and CI runs that.
 */
import { LanguageModel, Prompt } from "effect/ai"
import * as Effect from "effect/Effect"
import { toolkit } from "../src/index.ts"

/** Runs the task: up to `turns` model turns, each able to call tools; the last text is the answer. */
export const agent = (task: string, turns = 8) =>
  Effect.gen(function*() {
    // Configured like the server: here, read-only inspection plus running commands.
    const tools = yield* toolkit({ env: { ...process.env, LIBTMUX_TOOLSETS: "inspect,execute" } })
    let prompt = Prompt.make(task)
    for (let turn = 0; turn < turns; turn++) {
      const response = yield* LanguageModel.generateText({ prompt, toolkit: tools.toolkit }).pipe(
        Effect.provide(tools.handlers)
      )
      if (response.toolCalls.length === 0) return response.text
      // The conversation so far, with the tool results, is the next turn's prompt.
      prompt = Prompt.concat(prompt, Prompt.fromResponseParts(response.content))
    }
    return "stopped after the turn limit"
  }).pipe(Effect.scoped)
