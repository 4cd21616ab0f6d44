/**
 * Channel names for wait_for_channel and signal_channel: a closed grammar, and the prefix of this
 * server's own per-call channels reserved, so neither tool can wait on or fire a run_shell_command.
 */
import * as Schema from "effect/Schema"
import { channelPrefix } from "../domain/protocolNames.ts"

/** A tmux wait-for channel name. @category schemas */
export const Channel = Schema.String.annotate({
  description: `letters, digits, _ . : - (not starting . : - or ${channelPrefix})`
})
  .check(
    Schema.isPattern(/^[A-Za-z0-9_][A-Za-z0-9_.:-]{0,127}$/u),
    Schema.makeFilter((name: string) =>
      name.startsWith(channelPrefix) ? `names starting with ${channelPrefix} are reserved for run_shell_command` : true
    )
  )
