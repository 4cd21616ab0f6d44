// expect-violation: helper-shadowed
// A local function named like a literalizing helper, so that a format would pass as one.
const formatOf = (text: string) => text

export const argv = (input: { readonly format: string }) => ["list-sessions", "-F", formatOf(input.format)] as const
