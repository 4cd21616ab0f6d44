// expect-violation: caller-built-format
// A caller-built format passed through a local constant.
export const argv = (input: { readonly field: string }) => {
  const format = `#{pane_id} ${input.field}`
  return ["list-panes", "-F", format] as const
}
