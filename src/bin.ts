#!/usr/bin/env node
/** The `libtmux-mcp` command. */
import { main } from "./main.ts"

main()
