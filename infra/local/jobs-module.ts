import { existsSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { isLeasefenceError, leasefenceError } from '../../lib/errors.js';
import type { AnyJobDefinition } from '../../lib/job-definition.js';
import type { RunDemo } from './demo-types.js';

/** What a jobs module's factory is given: the names of the tables the local stack created. */
interface LocalJobsEnvironment {
  /** TableName of every table the module declared (and of the stack's own tables), by TableName. */
  tables: Readonly<Record<string, string>>;
}

/**
 * The shape of a module passed to `leasefence start --jobs FILE` (also `check` and `enqueue`): `jobs` (or the
 * default export) is an array of job definitions or a function returning one; `tables` lists the tables the
 * jobs write to, created on the local engine when missing.
 * @example
 * export const tables = [{ TableName: 'orders', KeySchema: [...], AttributeDefinitions: [...], BillingMode: 'PAY_PER_REQUEST' }];
 * export const jobs = [sendInvoiceJob];
 */
interface LocalJobsModule {
  jobs?: readonly AnyJobDefinition[] | ((environment: LocalJobsEnvironment) => readonly AnyJobDefinition[]);
  default?: LocalJobsModule['jobs'];
  tables?: readonly CreateTableCommandInput[];
}

/** A loaded jobs module: where it came from, its tables, and how to build its definitions. */
interface LoadedJobs {
  /** `examples`, or the absolute path of the module. */
  source: string;
  tables: readonly CreateTableCommandInput[];
  build(environment: LocalJobsEnvironment): readonly AnyJobDefinition[];
  /** Everything else the module exports (e.g. `conformance`, read by `check`). */
  exports: Readonly<Record<string, unknown>>;
}

/** A jobs module cannot be loaded or has the wrong shape; the message says what to change. */
class JobsModuleError extends leasefenceError('local.jobs_module') {
  constructor(message: string) {
    super(message);
  }
}

/** Source name of the project's example jobs (the default when no module is given). */
const EXAMPLE_JOBS_SOURCE = 'examples';

/**
 * A file of the project's examples (`examples/` beside this package's `infra/`): the TypeScript source in a
 * checkout, the compiled JavaScript in an installed package. Shipped code loads examples by path, never by import.
 */
function examplePath(name: string): string {
  const source = fileURLToPath(new URL(`../../examples/${name}.ts`, import.meta.url));
  return existsSync(source) ? source : fileURLToPath(new URL(`../../examples/${name}.js`, import.meta.url));
}

/** The project's example jobs (`examples/jobs/module.ts`), loaded by path like any jobs module. */
async function exampleJobs(): Promise<LoadedJobs> {
  return { ...(await loadJobsModule(examplePath('jobs/module'))), source: EXAMPLE_JOBS_SOURCE };
}

/** The stalled-worker demo (`examples/demo/run-demo.ts`), loaded by path: `leasefence demo` and `start --demo` run it. */
async function loadDemo(): Promise<RunDemo> {
  const loaded = await importModule(examplePath('demo/run-demo'));
  if (typeof loaded.runDemo !== 'function') throw new JobsModuleError('the example demo does not export runDemo');
  return loaded.runDemo as RunDemo;
}

/** True when this file itself runs from TypeScript source: a TypeScript loader is active for plain imports. */
const RUNNING_FROM_SOURCE = import.meta.url.endsWith('.ts');

/** Set once tsx's loader is registered in this process (it stays: a jobs module may import more TypeScript later). */
let typeScriptLoader: Promise<void> | undefined;

/** Registers tsx's ESM loader for the whole process (once); without tsx ▶ JobsModuleError saying how to proceed. */
function registerTypeScriptLoader(path: string): Promise<void> {
  typeScriptLoader ??= (async () => {
    let register: () => unknown;
    try {
      ({ register } = (await import('tsx/esm/api')) as { register: typeof register });
    } catch {
      typeScriptLoader = undefined;
      throw new JobsModuleError(
        `${path} is TypeScript: install tsx next to leasefence (npm install --save-dev tsx), or pass the compiled .js file`,
      );
    }
    register();
  })();
  return typeScriptLoader;
}

/**
 * Imports a module; TypeScript goes through tsx when it is installed, else the error says how to proceed. Every
 * import is a plain one in this process's module graph (tsx registered globally, not tsx's isolated tsImport), so
 * the jobs module's `import … from 'leasefence'` is the very copy the stack runs: `instanceof` holds across them
 * (a TerminalJobError thrown by a job is seen as one, not as an ambiguous failure to retry).
 */
async function importModule(path: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(path).href;
  if (!RUNNING_FROM_SOURCE && ['.ts', '.mts', '.cts'].includes(extname(path))) await registerTypeScriptLoader(path);
  return (await import(url)) as Record<string, unknown>;
}

function isDefinitionList(value: unknown): value is readonly AnyJobDefinition[] {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every(
      (job) => typeof job === 'object' && job !== null && typeof (job as { type?: unknown }).type === 'string',
    )
  );
}

/**
 * Loads `path` as a jobs module (see LocalJobsModule). A missing file, a module that throws, or one without
 * job definitions ▶ JobsModuleError naming the file and the export it expected.
 */
async function loadJobsModule(path: string): Promise<LoadedJobs> {
  const absolute = resolve(path);
  let loaded: Record<string, unknown>;
  try {
    loaded = await importModule(absolute);
  } catch (error) {
    if (isLeasefenceError(error, JobsModuleError)) throw error;
    throw new JobsModuleError(`cannot load ${path}: ${(error as Error).message.split('\n')[0]}`);
  }
  const exported = loaded.jobs ?? loaded.default;
  const tables = loaded.tables ?? [];
  if (
    !Array.isArray(tables) ||
    tables.some((table) => typeof (table as { TableName?: unknown }).TableName !== 'string')
  ) {
    throw new JobsModuleError(`${path}: \`tables\` must be an array of CreateTable inputs, each with a TableName`);
  }
  const shapeError = () =>
    new JobsModuleError(
      `${path} must export \`jobs\` (or a default export): a non-empty array of job definitions made with defineJob, or a function returning one`,
    );
  if (typeof exported !== 'function' && !isDefinitionList(exported)) throw shapeError();
  return {
    source: absolute,
    tables: tables as CreateTableCommandInput[],
    exports: loaded,
    build(environment) {
      const jobs =
        typeof exported === 'function' ? (exported as (env: LocalJobsEnvironment) => unknown)(environment) : exported;
      if (!isDefinitionList(jobs)) throw shapeError();
      return jobs;
    },
  };
}

export {
  EXAMPLE_JOBS_SOURCE,
  exampleJobs,
  examplePath,
  importModule,
  JobsModuleError,
  type LoadedJobs,
  type LocalJobsEnvironment,
  type LocalJobsModule,
  loadDemo,
  loadJobsModule,
};
