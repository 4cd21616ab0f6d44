/**
 * What a client needs of a generated JSON Schema, and nothing more: Effect writes JavaScript's
 * safe-integer range on every integer without bounds of its own (hundreds of them in output
 * schemas), which says nothing a JSON integer does not, and `additionalProperties: false` on every
 * object, which only restates what the server enforces itself (an unknown property is an error
 * naming the valid ones).
 */

const safeRange = (node: Record<string, unknown>) =>
  node.minimum === Number.MIN_SAFE_INTEGER && node.maximum === Number.MAX_SAFE_INTEGER

// Values of these keys are data, not schemas.
const dataKeys = new Set(["enum", "const", "default", "examples", "required"])

/** A copy of a JSON Schema without the structure that restates what a client already knows. */
export const leanSchema = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(leanSchema)
  if (node === null || typeof node !== "object") return node
  const record = node as Record<string, unknown>
  const dropBounds = record.type === "integer" && safeRange(record)
  return Object.fromEntries(
    Object.entries(record)
      .filter(([key, value]) =>
        !(dropBounds && (key === "minimum" || key === "maximum")) &&
        !(key === "additionalProperties" && value === false)
      )
      .map(([key, value]) => [key, dataKeys.has(key) ? value : leanSchema(value)])
  )
}
