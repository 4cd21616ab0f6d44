// The positive twin: a domain module over pure Node modules and other domain modules.
import { createHash } from "node:crypto"
import { join } from "node:path"
import { parseProcStat } from "../../../../src/domain/procStat.ts"

export const digest = (text: string) => createHash("sha256").update(join("a", text)).digest("hex")
export const started = (text: string) => parseProcStat(text)?.started
