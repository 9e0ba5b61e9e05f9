import type { SQSRecord } from 'aws-lambda';
import * as z from 'zod/mini';
import type { Clock } from '../clock.js';
import { payloadHash } from '../hashing.js';
import { identitySchema, type ValidIdentity } from '../identity.js';
import { MetricName } from '../metric-names.js';
import { jobTypeSchema } from '../rules.js';
import type { ShadowClaims, ShadowOutcome } from '../store/index.js';
import type { Telemetry } from '../telemetry.js';

/** What the team's function derives from a message: the identity leasefence would key it by, and what it runs. */
interface ShadowIdentity {
  tenantId: string;
  operationId: string;
  jobType: string;
  payload: unknown;
}

/** The team's function: message ▶ identity. It may throw; that message is then not recorded (counted). */
type IdentifyMessage = (record: SQSRecord) => ShadowIdentity;

// The schemas here are built on first use (z.lazy: the same checks and issues), not at import: a cold start
// that never reaches them does not build them (test/unit/internal/module-scope-schemas.test.ts).
const derivedSchema = z.lazy(() =>
  z.object({
    tenantId: z.string(),
    operationId: z.string(),
    jobType: jobTypeSchema,
  }),
);

/** An execution whose start was recorded: what its end needs. */
interface OpenExecution {
  identity: ValidIdentity;
  fence: number;
}

/** How the recorder reaches the table and reports: the store's shadow claims, a clock, telemetry, bounds. */
interface ShadowRecorderDeps {
  claims: ShadowClaims;
  clock: Clock;
  telemetry: Telemetry;
  identify: IdentifyMessage;
  leaseMs: number;
  retentionMs: number;
  writeTimeoutMs: number;
}

/**
 * Records executions as shadow claims. Never throws and never rejects: a failed identify or write is counted
 * (ShadowIdentityFailed, ShadowWriteFailed), logged without identifiers, and the execution goes unrecorded.
 */
class ShadowRecorder {
  constructor(private readonly deps: ShadowRecorderDeps) {}

  /** Records the start of `record`'s execution (one write); undefined when it could not be recorded. */
  async start(record: SQSRecord): Promise<OpenExecution | undefined> {
    const derived = this.derive(record);
    if (!derived) return undefined;
    const { claims, clock, leaseMs, retentionMs } = this.deps;
    try {
      const fence = await claims.start(
        { ...derived, startedAt: clock.now(), leaseMs, retentionMs },
        { signal: AbortSignal.timeout(this.deps.writeTimeoutMs) },
      );
      return { identity: derived.identity, fence };
    } catch (error) {
      this.writeFailed('start', derived.jobType, error);
      return undefined;
    }
  }

  /** Records how an execution ended (one write); nothing for an execution whose start was not recorded. */
  async end(open: OpenExecution | undefined, outcome: ShadowOutcome): Promise<void> {
    if (!open) return;
    try {
      await this.deps.claims.end(
        open.identity,
        open.fence,
        { endedAt: this.deps.clock.now(), outcome },
        { signal: AbortSignal.timeout(this.deps.writeTimeoutMs) },
      );
    } catch (error) {
      this.writeFailed('end', undefined, error);
    }
  }

  /** The identity, job type and payload hash of a message, or undefined (counted) when the team's function fails. */
  private derive(record: SQSRecord): { identity: ValidIdentity; jobType: string; payloadHash: string } | undefined {
    try {
      const derived = this.deps.identify(record);
      const fields = derivedSchema.parse(derived);
      const identity = Object.freeze(
        identitySchema.parse({ tenantId: fields.tenantId, operationId: fields.operationId }),
      );
      return { identity, jobType: fields.jobType, payloadHash: payloadHash(derived.payload) };
    } catch (error) {
      this.deps.telemetry.count(MetricName.ShadowIdentityFailed);
      this.deps.telemetry.warn('shadow: no identity for a message; not recorded', { error });
      return undefined;
    }
  }

  private writeFailed(write: 'start' | 'end', jobType: string | undefined, error: unknown): void {
    this.deps.telemetry.count(MetricName.ShadowWriteFailed);
    this.deps.telemetry.warn(`shadow: ${write} write failed; the handler ran unchanged`, {
      ...(jobType ? { jobType } : {}),
      error,
    });
  }
}

export { type IdentifyMessage, type OpenExecution, type ShadowIdentity, ShadowRecorder, type ShadowRecorderDeps };
