// expect-violation: domain-io
// A domain module that reaches the system through a platform module.
import { liveProc } from "../../../../src/platform/Proc.ts"

export const tag = () => liveProc().tag
