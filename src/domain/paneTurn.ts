/**
 * Who may type into a pane next, decided from one look at its claim (domain/runRecord.ts): the
 * step a caller waiting for the pane takes. Pure, so the hold/claim/collect/abandon protocol can be
 * checked under a test clock against any interleaving (test/unit/paneTurn.property.test.ts).
 */

/** What one look at a pane's claim saw. @category models */
export interface ClaimSeen {
  /** The run ID in the pane's claim option; "" when no run holds the pane. */
  readonly claim: string
  /** Whether the claim's run is recorded on the pane and its status report has not come. */
  readonly pending: boolean
  /** The pane's process the claim's run was typed into (as recorded), and the pane's process now. */
  readonly recordedPid: number | undefined
  readonly panePid: number
  /** Whether an `exec` replaced the shell an in-shell run was typed into (another program or image). */
  readonly replaced?: boolean
  /** Whether the pane's shell is idle at its prompt, reading its terminal, now. */
  readonly idle: boolean
}

/** What a waiting caller remembers between looks. @category models */
export interface ClaimMemory {
  /** Since when the shell has been seen idle at its prompt under this claim. */
  readonly idleSince: number | undefined
  /** A claim already seen once without a pending run (its report may have come since the look). */
  readonly unrecorded: string | undefined
}

export const freshMemory: ClaimMemory = { idleSince: undefined, unrecorded: undefined }

/**
 * The next step:
 * - `Free`: no run holds the pane;
 * - `LookAgain`: the claim's run reported (or was collected) since the look: look once more;
 * - `Release`: the claim's run can no longer report (seen twice without a pending record, its pane's
 *   process changed or an `exec` replaced its in-shell run's shell, or its shell idle at its prompt
 *   for `idleAfter` without its report): release the claim once (the one caller that takes its
 *   successor option does) and report the run;
 * - `Wait`: the run still runs: look again after a poll;
 * - `Refuse`: the deadline passed while it runs: refuse naming it.
 */
export const claimStep = (
  seen: ClaimSeen,
  memory: ClaimMemory,
  now: number,
  deadline: number,
  idleAfter: number
): { readonly step: "Free" | "LookAgain" | "Release" | "Wait" | "Refuse"; readonly memory: ClaimMemory } => {
  if (seen.claim === "") return { step: "Free", memory }
  const gone = !seen.pending
  if (gone && memory.unrecorded !== seen.claim) {
    return { step: "LookAgain", memory: { ...memory, unrecorded: seen.claim } }
  }
  const idleSince = seen.idle ? memory.idleSince ?? now : undefined
  const stale = gone || seen.recordedPid !== seen.panePid || seen.replaced === true ||
    (idleSince !== undefined && now - idleSince >= idleAfter)
  if (stale) return { step: "Release", memory: { ...memory, idleSince: undefined } }
  return { step: now >= deadline ? "Refuse" : "Wait", memory: { ...memory, idleSince } }
}
