import { isLeasefenceError } from '../../lib/errors.js';
import { examplePath, JobsModuleError, loadJobsModule } from '../local/jobs-module.js';
import { schedulesOf } from '../local/schedules-module.js';
import type { JobConformanceModule } from '../testing/module.js';
import { UsageError } from './errors.js';

/** The `conformance` export of a jobs module, checked for shape (UsageError when it is not an object of lists). */
function conformanceOf(path: string, exported: unknown): JobConformanceModule['conformance'] {
  if (exported === undefined) return undefined;
  const samples = (exported as { samplePayloads?: unknown } | null)?.samplePayloads;
  const listsOnly =
    samples !== null && typeof samples === 'object' && Object.values(samples).every((list) => Array.isArray(list));
  if (!listsOnly) {
    throw new UsageError(`--jobs: ${path}: \`conformance.samplePayloads\` must map job types to lists of payloads`);
  }
  return exported as JobConformanceModule['conformance'];
}

/**
 * Loads the job module `check` evaluates: the example jobs by default, else `path`, a jobs module as
 * `start --jobs` takes it (`jobs`, `tables`) plus `conformance` (sample payloads per job type, `prepare`) and
 * `schedules` (read as `leasefence schedules --jobs` reads them: schedulesOf, one home).
 * `renamed` maps a declared table name to the name a deployed stack gave it (jobs and `prepare` use that one).
 * Anything wrong with it ▶ UsageError naming the file.
 */
async function loadJobModule(
  path: string | undefined,
  renamed: Readonly<Record<string, string>> = {},
): Promise<JobConformanceModule> {
  const modulePath = path ?? examplePath('jobs/module');
  try {
    const loaded = await loadJobsModule(modulePath);
    // The tables keep their declared names (conformance runs on fresh engines, or the endpoint given), except
    // where `renamed` gives a deployed stack's own name for one (check --stack).
    const names = Object.fromEntries(
      loaded.tables.map((table) => [
        String(table.TableName),
        renamed[String(table.TableName)] ?? String(table.TableName),
      ]),
    );
    const conformance = conformanceOf(modulePath, loaded.exports.conformance);
    return {
      jobs: loaded.build({ tables: names }),
      tables: loaded.tables,
      tableNames: names,
      schedules: schedulesOf(loaded),
      ...(conformance ? { conformance } : {}),
    };
  } catch (error) {
    if (isLeasefenceError(error, JobsModuleError)) throw new UsageError(`--jobs: ${error.message}`);
    throw error;
  }
}

export { loadJobModule };
