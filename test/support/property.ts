/**
 * Mutation checks for properties: run a property body against a deliberately broken variant of
 * the logic and learn whether the property notices. Each run gets its own TestClock, as
 * `it.effect.prop` gives each run.
 */
import * as Arbitrary from "effect/Arbitrary"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { TestClock } from "effect/testing"

/** Whether `property` holds for `runs` values drawn from `input`: "Passed" or "Falsified". */
export const checkProperty = <A>(
  input: Schema.Schema<A> | Arbitrary.Arbitrary<A>,
  property: (value: A) => Effect.Effect<unknown, unknown, Scope.Scope>,
  runs = 100
) =>
  Effect.map(
    Arbitrary.checkEffect(
      Arbitrary.isArbitrary(input) ? input as Arbitrary.Arbitrary<A> : Arbitrary.schema(input as Schema.Schema<A>),
      (value) =>
        Effect.map(Effect.exit(property(value).pipe(Effect.scoped, Effect.provide(TestClock.layer()))), Exit.isSuccess),
      { runs, maxShrinks: 0 }
    ),
    (result) => result._tag
  )
