#!/usr/bin/env node
import { runCli } from './main.js';

// The `leasefence` bin: compiled to dist/infra/cli/bin.js and run by node itself, so signals reach the CLI
// directly and `start` shuts down cleanly on Ctrl-C or `kill -INT <pid>`.
await runCli(process.argv.slice(2));
