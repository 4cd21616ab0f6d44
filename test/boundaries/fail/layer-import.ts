// expect-violation: layer-import
// A tool that builds its own tmux runner instead of using the services its row is given.
import * as TmuxLive from "../../../src/layers/TmuxLive.ts"

export const own = TmuxLive.layer("tmux")
