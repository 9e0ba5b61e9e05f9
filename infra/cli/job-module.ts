import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { JobConformanceModule } from '../testing/module.js';
import { UsageError } from './errors.js';

const TYPESCRIPT = new Set(['.ts', '.mts', '.cts']);

/** Imports a module; a TypeScript one through tsx's API (clear usage error when tsx is not installed). */
async function importModule(path: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(resolve(path)).href;
  if (!TYPESCRIPT.has(extname(path))) return (await import(url)) as Record<string, unknown>;
  let tsImport: (specifier: string, parent: string) => Promise<unknown>;
  try {
    ({ tsImport } = (await import('tsx/esm/api')) as { tsImport: typeof tsImport });
  } catch {
    throw new UsageError(`--jobs: ${path} is TypeScript, which needs tsx (npm install tsx) or a compiled .js module`);
  }
  return (await tsImport(url, import.meta.url)) as Record<string, unknown>;
}

/**
 * Loads the job module `check` evaluates: the example jobs by default, else `path`, which must export `jobs`
 * (or a default export): an array of job definitions, and may export `conformance` (sample payloads, tables).
 */
async function loadJobModule(path: string | undefined): Promise<JobConformanceModule> {
  let loaded: Record<string, unknown>;
  try {
    loaded =
      path === undefined
        ? ((await import('../../functions/jobs/conformance.js')) as Record<string, unknown>)
        : await importModule(path);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`--jobs: cannot load ${path}: ${(error as Error).message.split('\n')[0]}`);
  }
  const jobs = loaded.jobs ?? loaded.default;
  if (!Array.isArray(jobs) || jobs.some((job) => typeof job !== 'object' || job === null)) {
    throw new UsageError(`--jobs: ${path} must export \`jobs\` (or a default export): an array of job definitions`);
  }
  if (jobs.length === 0) throw new UsageError('--jobs: the module defines no job types');
  const conformance = loaded.conformance as JobConformanceModule['conformance'];
  if (
    conformance !== undefined &&
    (typeof conformance !== 'object' || typeof conformance.samplePayloads !== 'object')
  ) {
    throw new UsageError('--jobs: `conformance` must be an object with `samplePayloads` by job type');
  }
  return { jobs, ...(conformance ? { conformance } : {}) } as JobConformanceModule;
}

export { loadJobModule };
