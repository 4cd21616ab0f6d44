// expect-violation: domain-io
// A domain module that imports a live layer.
import { layer } from "../../../../src/layers/PaneProcessLive.ts"

export const live = layer
