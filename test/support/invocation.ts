/**
 * Startup's parse of the command line and settings, from an environment record, as a Result (the
 * sources the tests use are read synchronously).
 */
import * as Effect from "effect/Effect"
import { environmentSource, parseInvocation } from "../../src/domain/config.ts"

export const invoke = (
  env: Readonly<Record<string, string | undefined>>,
  argv: ReadonlyArray<string>,
  cwd?: string
) => Effect.runSync(Effect.result(parseInvocation(environmentSource(env), argv, cwd)))
