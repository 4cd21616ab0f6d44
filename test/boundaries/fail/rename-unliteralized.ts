// expect-violation: caller-built-format
// A new name that reaches rename-window's format-expanding argument as given.
export const argv = (input: { readonly new_name: string }) =>
  ["rename-window", "-t", "@0", "--", input.new_name] as const
