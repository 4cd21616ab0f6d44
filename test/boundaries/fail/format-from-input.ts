// expect-violation: caller-built-format
// A caller's text as a -F format: tmux would expand #{...} and run #(...) in it.
export const argv = (input: { readonly format: string }) => ["list-sessions", "-F", input.format] as const
