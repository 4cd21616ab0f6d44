/**
 * Formats built from values, for the places a fixed literal cannot serve. Each fixes its own shape,
 * so no caller text becomes format syntax: the boundary check (scripts/boundaries.ts) accepts them,
 * with `formatOf`, `spawnedFormat` and `literalizeFormat`, in tmux's format positions.
 */
import { randomBytes } from "node:crypto"
import { marks } from "../domain/protocolNames.ts"

/** A format variable name: a closed grammar, so no caller text is ever a format. */
export const variableNamePattern = /^[A-Za-z][A-Za-z0-9_]*$/u

/** The format that expands one variable; a name outside the grammar is a defect, never a format. */
export const variableFormat = (name: string): string => {
  if (!variableNamePattern.test(name)) throw new Error(`not a tmux variable name: ${JSON.stringify(name)}`)
  return `#{${name}}`
}

/** A line no pane is likely to hold, for splitting one invocation's output: letters, digits and `-` only. */
export const uniqueMarker = (kind: "search" | "part"): string => marks.unique(kind, randomBytes(8).toString("hex"))
