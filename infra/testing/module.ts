import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import type { JobDefinition } from '../../lib/job-definition.js';
import type { PrepareTenant } from './bench.js';

/**
 * What `leasefence check --jobs <module>` reads from a module: `jobs` (or a default export), and how to
 * exercise them: sample payloads per job type, the jobs' own tables, and per-tenant preparation.
 */
interface JobConformanceModule {
  readonly jobs: ReadonlyArray<JobDefinition<unknown>>;
  readonly conformance?: {
    readonly samplePayloads: Readonly<Record<string, readonly unknown[]>>;
    readonly tables?: readonly CreateTableCommandInput[];
    readonly prepare?: Readonly<Record<string, PrepareTenant>>;
  };
}

export type { JobConformanceModule };
