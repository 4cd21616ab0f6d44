/**
 * The rules of a hub's links to its hosts, kept pure: which calls only read, how long a host that
 * failed to connect is left alone, how often a link is pinged.
 */
import type { ManifestRow } from "../manifest/index.ts"

/** How long a link may stay silent before it is taken as dead, by default, in seconds. */
export const defaultLinkTimeoutSeconds = 45

/** The pings and ssh keep-alives run at a third of the link timeout: three missed, the link is dead. */
export const keepAliveSeconds = (linkTimeoutSeconds: number): number => Math.max(1, Math.round(linkTimeoutSeconds / 3))

/** Whether a call only reads (the inspect toolset): lost, it changed nothing; any other may have acted. */
export const onlyReads = (row: Pick<ManifestRow, "toolset">): boolean => row.toolset === "inspect"

/** The first pause after a failed connect, and the longest, in milliseconds. */
export const backOffFirstMs = 1000
export const backOffLastMs = 30_000

/** The pause after `failures` connects failed in a row (1 s, 2 s, 4 s, ... up to 30 s); a success resets it. */
export const backOffMs = (failures: number): number =>
  Math.min(backOffLastMs, backOffFirstMs * 2 ** Math.max(0, Math.min(failures, 16) - 1))
