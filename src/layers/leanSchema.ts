/**
 * What a client needs of a generated JSON Schema, and nothing more: Effect writes JavaScript's
 * safe-integer range on every integer without bounds of its own (hundreds of them in output
 * schemas), which says nothing a JSON integer does not.
 */

const safeRange = (node: Record<string, unknown>) =>
  node.minimum === Number.MIN_SAFE_INTEGER && node.maximum === Number.MAX_SAFE_INTEGER

/** A copy of a JSON Schema without the bounds that only restate the safe-integer range. */
export const leanSchema = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(leanSchema)
  if (node === null || typeof node !== "object") return node
  const record = node as Record<string, unknown>
  const dropBounds = record.type === "integer" && safeRange(record)
  return Object.fromEntries(
    Object.entries(record)
      .filter(([key]) => !(dropBounds && (key === "minimum" || key === "maximum")))
      .map(([key, value]) => [key, key === "enum" || key === "const" || key === "default" || key === "examples" ? value : leanSchema(value)])
  )
}
