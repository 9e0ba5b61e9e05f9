import { ConfigurationError, InvalidInputError, isLeasefenceError } from '../errors.js';
import { defineSchedules, type ScheduleDeclaration } from './schedule.js';

/** Lambda's limit on a function's whole environment is 4 KB; the schedules leave room for the other variables. */
const MAX_SCHEDULES_VARIABLE_CHARS = 3072;

/**
 * The schedules as the tick function's environment carries them (LEASEFENCE_SCHEDULES): compact JSON of the
 * checked declarations. More than 3 KB ▶ InvalidInputError at synth, saying so (Lambda would refuse the deployment).
 */
function schedulesVariable(schedules: readonly ScheduleDeclaration[]): string {
  const text = JSON.stringify(schedules);
  if (text.length > MAX_SCHEDULES_VARIABLE_CHARS) {
    throw new InvalidInputError(
      `schedules: ${text.length} characters of JSON, over the ${MAX_SCHEDULES_VARIABLE_CHARS} the tick function's environment can hold (smaller payloads: keep data in a table and name it in the payload)`,
    );
  }
  return text;
}

/** The schedules from LEASEFENCE_SCHEDULES, each checked again; missing or invalid ▶ ConfigurationError. */
function parseSchedulesVariable(text: string | undefined): readonly ScheduleDeclaration[] {
  if (!text) throw new ConfigurationError('LEASEFENCE_SCHEDULES is required by the schedule tick');
  try {
    return defineSchedules(JSON.parse(text) as never);
  } catch (error) {
    const detail = isLeasefenceError(error) || error instanceof SyntaxError ? error.message : String(error);
    throw new ConfigurationError(`LEASEFENCE_SCHEDULES is not a list of schedules: ${detail}`);
  }
}

export { MAX_SCHEDULES_VARIABLE_CHARS, parseSchedulesVariable, schedulesVariable };
