import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import type { JobDefinition } from '../../lib/job-definition.js';
import type { ScheduleDeclaration } from '../../lib/messaging/schedule.js';
import type { PrepareTenant } from './bench.js';

/**
 * A jobs module as `leasefence check --jobs` reads it: what `start --jobs` reads (`jobs`, `tables`) plus
 * `conformance`: sample payloads per job type and, optionally, per-tenant preparation of the job's records; and
 * its `schedules`, as `leasefence schedules --jobs` reads them (each gets the duplicate-tick scenario).
 */
interface JobConformanceModule {
  readonly jobs: ReadonlyArray<JobDefinition<unknown>>;
  readonly tables?: readonly CreateTableCommandInput[];
  readonly schedules?: readonly ScheduleDeclaration[];
  /** Each declared table's name where the jobs run (declared name ▶ actual); absent: the declared names. */
  readonly tableNames?: Readonly<Record<string, string>>;
  readonly conformance?: {
    readonly samplePayloads: Readonly<Record<string, readonly unknown[]>>;
    readonly prepare?: Readonly<Record<string, PrepareTenant>>;
  };
}

export type { JobConformanceModule };
