import * as z from 'zod/mini';
import { builtOnce } from '../internal/memoize.js';
import { STACK_CHECK_TENANT_PREFIX } from '../store/index.js';

/**
 * The faults a stack check can arm inside a deployed worker (the seeds' set): each fires once, on the first
 * delivery of a message of the tenant it is armed for (a redelivery recovers), except as noted.
 * - `pause-after-claim`: after the claim that creates the work item, every request of the attempt waits `pauseMs`
 *   (past the lease) while a second delivery takes over; a takeover's claim never pauses;
 * - `crash-after-effect`: the completion write is never sent and nothing of the attempt lands after it; the record
 *   is left unacknowledged and comes back after its visibility timeout;
 * - `lost-completion`: the completion write lands and its response is lost (the SDK retries it);
 * - `crash-on-receipt`: the first work-item write is refused (a crash before the work item committed);
 * - `duplicate-delivery`: the record is handled `copies` times at once inside the invocation;
 * - `observe`: nothing injected; the attempt's writes and log fields are recorded.
 */
const FAULT_KINDS = [
  'pause-after-claim',
  'crash-after-effect',
  'lost-completion',
  'crash-on-receipt',
  'duplicate-delivery',
  'observe',
] as const;

type FaultKind = (typeof FAULT_KINDS)[number];

/** A run id: what follows the prefix in every tenant of the run (`lfcheck-<run>-<job>-<label>`). */
const runIdSchema = () => z.string().check(z.regex(/^[a-z0-9]{6,32}$/, 'must be 6–32 lower-case letters or digits'));

/**
 * A check run's fault plan, as the stack holds it (the construct's fault-plan secret; only the operator who runs the
 * check can write it): the run, when it stops being honoured, and the fault per tenant label. Every tenant of the run
 * not named is observed only. Nothing in a message can arm a fault: a message only names its tenant.
 */
const faultPlanSchema = builtOnce(() =>
  z.object({
    v: z.literal(1),
    runId: runIdSchema(),
    /** Epoch milliseconds; a plan past it is ignored (a check that died leaves nothing armed for long). */
    expiresAt: z.number().check(z.int(), z.positive()),
    pauseMs: z.number().check(z.int(), z.gte(0), z.lte(900_000)),
    copies: z.number().check(z.int(), z.gte(2), z.lte(10)),
    /** Tenant label (the part after `lfcheck-<run>-<job>-`) ▶ fault. */
    faults: z.record(z.string().check(z.regex(/^[A-Za-z0-9_-]{1,40}$/)), z.enum(FAULT_KINDS)),
  }),
);

type FaultPlan = z.infer<ReturnType<typeof faultPlanSchema>>;

/** Reads the current plan's raw value (undefined or empty: no run armed). */
type FaultPlanSource = () => Promise<string | undefined>;

/** The plan parsed, or undefined when there is none, it does not parse, or it expired. Never throws. */
function parsePlan(raw: string | undefined, now: number): FaultPlan | undefined {
  if (!raw) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return undefined;
  }
  const parsed = faultPlanSchema().safeParse(json);
  return parsed.success && parsed.data.expiresAt > now ? parsed.data : undefined;
}

/**
 * The fault the plan arms for a tenant: undefined for any tenant outside the plan's run (a real tenant, or another
 * run's), `observe` for one of the run's tenants the plan names no fault for.
 */
function faultFor(plan: FaultPlan, tenantId: string): FaultKind | undefined {
  const runPrefix = `${STACK_CHECK_TENANT_PREFIX}${plan.runId}-`;
  if (!tenantId.startsWith(runPrefix)) return undefined;
  const label = tenantId.slice(runPrefix.length).split('-').slice(1).join('-');
  return plan.faults[label] ?? 'observe';
}

export { FAULT_KINDS, type FaultKind, type FaultPlan, type FaultPlanSource, faultFor, faultPlanSchema, parsePlan };
