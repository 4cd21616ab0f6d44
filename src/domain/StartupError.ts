/**
 * The one failure of startup configuration: a message that names what was wrong and the valid
 * set. Startup stops with it before any tmux server is touched.
 */
import * as Schema from "effect/Schema"

/** A startup configuration error. @category errors */
export class StartupError extends Schema.TaggedError<StartupError>()("StartupError", {
  reason: Schema.String
}) {
  override get message() {
    return this.reason
  }
}

/** Shorthand for a failed startup result's error. */
export const startupError = (reason: string): StartupError => new StartupError({ reason })
