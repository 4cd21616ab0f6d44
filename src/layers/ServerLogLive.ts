/** The live log: stderr, and the MCP client once it asks for log messages. */
import * as Layer from "effect/Layer"
import { makeServerLog } from "../platform/ServerLog.ts"
import { ServerLog } from "../services/ServerLog.ts"

/** The live service. @category layers */
export const layer: Layer.Layer<ServerLog> = Layer.sync(ServerLog, makeServerLog)
