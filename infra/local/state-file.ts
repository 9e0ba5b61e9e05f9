import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { deadlineShardsSchema } from '../../lib/rules.js';

/** Default folder of the local stack: data (unless --memory) and the state file. Gitignored. */
const DEFAULT_LOCAL_DIR = '.local';

/** File name of the state file inside the local folder. */
const STATE_FILE_NAME = 'stack.json';

/** Shape of `stack.json` (version 1); a file that does not match is ignored, never trusted. */
const stackStateSchema = z.strictObject({
  version: z.literal(1),
  pid: z.number().int().positive(),
  startedAt: z.string(),
  memory: z.boolean(),
  region: z.string(),
  endpoints: z.strictObject({
    dynamodb: z.string(),
    sqs: z.string(),
    admin: z.string(),
    console: z.string().optional(),
  }),
  tables: z.strictObject({ jobs: z.string(), payloads: z.string(), examples: z.string().optional() }),
  queues: z.strictObject({ jobs: z.string(), deadLetter: z.string() }),
  /** Settings the stack chose, which every tool must use rather than assume (the CLI's store, the console). */
  settings: z.strictObject({ deadlineShards: deadlineShardsSchema }),
  /** Which jobs module the worker runs (`examples` or a path) and its job types. */
  jobs: z.strictObject({ source: z.string(), types: z.array(z.string()) }),
  /** With `--fault-injection`: the file a stack check writes its fault plan to (the worker reads it). */
  faultPlan: z.string().optional(),
});

/** What a running local stack tells the CLI: where everything is, and which process owns it. */
type StackState = z.infer<typeof stackStateSchema>;

/** Path of the state file in `dir`. */
function stateFilePath(dir: string): string {
  return join(dir, STATE_FILE_NAME);
}

/** Writes the state file atomically (temp file + rename), so a reader never sees half a file. */
async function writeStackState(dir: string, state: StackState): Promise<string> {
  await mkdir(dir, { recursive: true });
  const path = stateFilePath(dir);
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(stackStateSchema.parse(state), null, 2)}\n`, 'utf8');
  await rename(temporary, path);
  return path;
}

/** Reads the state file; undefined when absent or not a state file of this version. */
async function readStackState(dir: string): Promise<StackState | undefined> {
  let text: string;
  try {
    text = await readFile(stateFilePath(dir), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed = stackStateSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** True while a process with this id exists (signal 0 only checks; EPERM means it exists under another user). */
function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
}

/** The state of a stack that is running now; undefined when there is no state file or its process is gone. */
async function readLiveStackState(dir: string): Promise<StackState | undefined> {
  const state = await readStackState(dir);
  return state && isProcessAlive(state.pid) ? state : undefined;
}

/** Removes the state file if it still belongs to `pid` (never another stack's). */
async function removeStackState(dir: string, pid: number): Promise<void> {
  const state = await readStackState(dir);
  if (state && state.pid !== pid) return;
  await rm(stateFilePath(dir), { force: true });
}

export {
  DEFAULT_LOCAL_DIR,
  isProcessAlive,
  readLiveStackState,
  readStackState,
  removeStackState,
  type StackState,
  stackStateSchema,
  stateFilePath,
  writeStackState,
};
