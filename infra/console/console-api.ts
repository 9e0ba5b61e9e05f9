import type { ValidIdentity } from '../../lib/identity.js';
import { scheduleReports } from '../../lib/messaging/schedule-report.js';
import { jobTypeSchema } from '../../lib/rules.js';
import { buildShadowReport } from '../../lib/shadow/report.js';
import type { ConsoleContext } from './context.js';

/** Pages of shadow rows one console read takes at most (the report says NOT EVALUATED past them). */
const SHADOW_PAGES = 200;

/**
 * The console's own read-only answers beside the admin API: a job type's runbook section (when the console was
 * started with the jobs module), the schedules' reports and the shadow report. Undefined for every other path (the admin router's).
 */
async function serveConsoleApi(
  context: ConsoleContext,
  method: string,
  path: string,
): Promise<{ status: number; body: unknown } | undefined> {
  if (method !== 'GET') return undefined;
  const runbook = /^\/runbooks\/([^/]+)$/.exec(path);
  if (runbook) {
    const jobType = decodeURIComponent(runbook[1] ?? '');
    if (!jobTypeSchema.safeParse(jobType).success) return { status: 400, body: { error: 'invalid_job_type' } };
    const text = context.runbooks?.[jobType];
    if (text !== undefined) return { status: 200, body: { jobType, text } };
    const why = context.runbooks
      ? `the jobs module has no job type ${jobType}`
      : 'this console was started without the jobs module: run `leasefence runbook --jobs <module>`';
    return { status: 404, body: { error: 'no_runbook', message: why } };
  }
  if (path === '/schedules') return scheduleAnswer(context);
  if (path === '/shadow/report') {
    return { status: 200, body: buildShadowReport(await context.admin.store.shadow.readAll(SHADOW_PAGES)) };
  }
  return undefined;
}

/**
 * The Schedules page's rows: the same reports `leasefence schedules` prints (scheduleReports), judged at the
 * server's now. Without the jobs module there is nothing to judge: 404 saying how to start the console with it.
 */
async function scheduleAnswer(context: ConsoleContext): Promise<{ status: number; body: unknown }> {
  if (!context.schedules) {
    const message =
      'this console was started without the jobs module, so it does not know the schedules: run `leasefence console --jobs <module>`';
    return { status: 404, body: { error: 'no_schedules', message } };
  }
  const now = Date.now();
  const lookup = (identity: ValidIdentity) => context.admin.store.get(identity);
  return { status: 200, body: { now, schedules: await scheduleReports(context.schedules, now, lookup) } };
}

export { serveConsoleApi };
