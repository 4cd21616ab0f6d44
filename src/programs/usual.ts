/**
 * Result fields that say nothing at their usual value (false, 0, an empty list, output from the
 * start) are left out of the result: the registry strips them after the program ran (`withoutUsual`),
 * and the output schema marks them optional, saying what their absence means. A model then reads
 * only what is worth reading; `exit_status`, `output` and the like stay, whatever they hold.
 */
import * as Schema from "effect/Schema"

/** The usual value of each field made by `usually`, by the field's schema. */
const usualValues = new WeakMap<object, unknown>()

/**
 * `field` as an optional result field, left out when it holds `usual`; its description gains what
 * the absence means.
 */
export const usually = <S extends Schema.Top>(field: S, usual: S["Type"], absent: string) => {
  const described = Schema.resolveAnnotations(field)?.description
  const optional = Schema.optionalKey(
    field.annotate({ description: described === undefined ? `absent: ${absent}` : `${described}; absent: ${absent}` })
  )
  usualValues.set(optional, usual)
  return optional
}

const same = (a: unknown, b: unknown): boolean =>
  a === b ||
  (Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => same(item, b[i])))

/** A struct's fields, or an array's element, to look into for fields at their usual value. */
const structure = (schema: unknown):
  | { readonly fields: Readonly<Record<string, unknown>> }
  | { readonly item: unknown }
  | undefined =>
{
  if (schema === null || typeof schema !== "object" && typeof schema !== "function") return undefined
  const candidate = schema as { readonly fields?: unknown; readonly value?: unknown; readonly ast?: { _tag?: string } }
  if (candidate.fields !== undefined && typeof candidate.fields === "object") {
    return { fields: candidate.fields as Readonly<Record<string, unknown>> }
  }
  if (candidate.ast?._tag === "Arrays" && candidate.value !== undefined) return { item: candidate.value }
  return undefined
}

/** `value` without the fields that `schema` (a struct, or lists of them, nested) marks usual and that hold it. */
export const withoutUsual = (schema: unknown, value: unknown): unknown => {
  const shape = structure(schema)
  if (shape === undefined || value === null || typeof value !== "object") return value
  if ("item" in shape) return Array.isArray(value) ? value.map((item) => withoutUsual(shape.item, item)) : value
  const out: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) {
    const field = shape.fields[key] as object | undefined
    if (field !== undefined && usualValues.has(field) && same(item, usualValues.get(field))) continue
    out[key] = field === undefined ? item : withoutUsual(field, item)
  }
  return out
}

/** Whether `field` (a struct's field schema) is left out at a usual value, and which. */
export const usualOf = (field: unknown): { readonly usual: unknown } | undefined =>
  field !== null && typeof field === "object" && usualValues.has(field) ? { usual: usualValues.get(field) } : undefined
