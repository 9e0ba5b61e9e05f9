import { isLeasefenceError } from '../../lib/errors.js';
import { defineSchedules, type ScheduleDeclaration } from '../../lib/messaging/schedule.js';
import { JobsModuleError, type LoadedJobs } from './jobs-module.js';

/**
 * The `schedules` export of a jobs module (defineSchedule's fields, as the construct's `schedules` prop takes
 * them), each checked, names unique; none when the module exports none. A bad one ▶ JobsModuleError naming it.
 */
function schedulesOf(loaded: Pick<LoadedJobs, 'source' | 'exports'>): readonly ScheduleDeclaration[] {
  const exported = loaded.exports.schedules;
  if (exported === undefined) return [];
  if (!Array.isArray(exported)) throw new JobsModuleError(`${loaded.source}: \`schedules\` must be an array`);
  try {
    return defineSchedules(exported);
  } catch (error) {
    if (isLeasefenceError(error)) throw new JobsModuleError(`${loaded.source}: schedules: ${error.message}`);
    throw error;
  }
}

export { schedulesOf };
