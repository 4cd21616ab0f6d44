// expect-violation: caller-built-format
// A session name that reaches new-session's -s as given.
export const argv = (input: { readonly name: string }) => ["new-session", "-d", "-s", input.name] as const
