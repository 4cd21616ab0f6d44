// expect-violation: caller-built-format
// A format joined from a caller's text and our own fields.
import { FS } from "../../../src/services/TmuxReads.ts"

export const argv = (input: { readonly field: string }) =>
  ["list-panes", "-F", ["#{pane_id}", input.field].join(FS)] as const
