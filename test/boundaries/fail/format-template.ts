// expect-violation: caller-built-format
// A display-message format with a caller's text interpolated.
export const argv = (input: { readonly name: string }) =>
  ["display-message", "-p", "-t", "%0", `#{${input.name}}`] as const
