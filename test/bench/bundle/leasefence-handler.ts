import { benchPayloadSchema } from '../support/jobs.js';
import { benchWorkerHandler } from './bench-worker-handler.js';

// The leasefence side of figure 5's cold invocation, the bench job's payload schema written with zod classic (as
// the README's examples are). Bundled with the construct's esbuild settings; never deployed.

/** The Lambda entry point: partial batch responses, one fenced claim and completion per record. */
export const handler = benchWorkerHandler(benchPayloadSchema);
