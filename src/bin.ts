#!/usr/bin/env node
/** The `libtmux-mcp` command. */
import "./heap.ts"
import { main } from "./main.ts"

main()
