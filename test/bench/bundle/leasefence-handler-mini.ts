import { benchPayloadMiniSchema } from '../support/bench-payload-mini.js';
import { benchWorkerHandler } from './bench-worker-handler.js';

// leasefence-handler.ts with the payload schema written with zod/mini: a job module that imports no classic zod,
// so the bundle holds none. Bundled with the construct's esbuild settings; never deployed.

/** The Lambda entry point: partial batch responses, one fenced claim and completion per record. */
export const handler = benchWorkerHandler(benchPayloadMiniSchema);
