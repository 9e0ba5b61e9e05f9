import { spawnSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// `npm run bench -- --baseline=<commit>`: the worker of an earlier commit, built from that commit's own files (its
// lib/, its example jobs, its bench entries) with today's esbuild settings and node_modules, and timed beside today's
// worker and the peer in the same run (figures 5 and 9), so a regression is told from the machine's noise by a
// paired ratio rather than by comparing two runs.

const REPOSITORY = fileURLToPath(new URL('../../../', import.meta.url));

/** A baseline commit that cannot be used: unknown to git, or not checked out from it. */
class BaselineError extends Error {
  override name = 'BaselineError';
}

/** The commit to compare against: its full and short ids. */
interface BaselineCommit {
  commit: string;
  short: string;
}

/** A baseline checked out: its files, the entries figures 5 and 9 bundle from it, and its removal. */
interface Baseline extends BaselineCommit {
  /** What its rows are called: `worker @ <short sha>`. */
  label: string;
  /** The project's worker of that commit (examples/worker.ts, as its CDK synth bundled it). */
  workerEntry: string;
  /** Figure 9's entry of that commit: its bench handler and the message builder its handler accepts. */
  handlerEntry: string;
  remove(): void;
}

/** The value of `--baseline=<commit>`, undefined without the option; an empty value is refused. */
function baselineOption(argv: readonly string[]): string | undefined {
  const arg = argv.find((value) => value.startsWith('--baseline='));
  if (arg === undefined) return undefined;
  const ref = arg.slice('--baseline='.length).trim();
  if (ref === '') throw new BaselineError('--baseline= needs a commit (a sha, tag or branch of this repository)');
  return ref;
}

function git(args: readonly string[], cwd: string): { ok: boolean; stdout: string; stderr: string } {
  const result = spawnSync('git', args, { cwd, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  return { ok: result.status === 0, stdout: result.stdout ?? '', stderr: result.stderr ?? '' };
}

/** Resolves `ref` to a commit of the repository at `cwd`; throws BaselineError naming it when git does not know it. */
function resolveBaselineCommit(ref: string, cwd: string = REPOSITORY): BaselineCommit {
  // `--end-of-options` keeps a ref that starts with '-' from being read as an option.
  const full = git(['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`], cwd);
  const commit = full.stdout.trim();
  if (!full.ok || !/^[0-9a-f]{40}$/.test(commit)) {
    throw new BaselineError(`--baseline=${ref}: not a commit of this repository (git rev-parse found none)`);
  }
  return { commit, short: commit.slice(0, 7) };
}

/** The entry that re-exports the baseline's bench handler with its own message builder (test/bench/handler/child.ts). */
const HANDLER_ENTRY_SOURCE = [
  "export { handler } from './test/bench/handler/leasefence-entry.ts';",
  "export { benchIdentity, leasefenceMessage } from './test/bench/support/jobs.ts';",
  '',
].join('\n');

/**
 * Checks `ref` out (`git archive` into a temporary directory, node_modules linked to this repository's, so both
 * workers bundle the same dependencies); throws BaselineError when the commit is unknown or lacks the entries.
 */
function prepareBaseline(ref: string, cwd: string = REPOSITORY): Baseline {
  const { commit, short } = resolveBaselineCommit(ref, cwd);
  const dir = mkdtempSync(join(tmpdir(), `leasefence-baseline-${short}-`));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    const archive = spawnSync('sh', ['-c', `git archive --format=tar ${commit} | tar -x -C "${dir}"`], {
      cwd,
      encoding: 'utf8',
    });
    if (archive.status !== 0) throw new BaselineError(`--baseline=${ref}: git archive failed: ${archive.stderr}`);
    for (const file of ['examples/worker.ts', 'test/bench/handler/leasefence-entry.ts', 'test/bench/support/jobs.ts']) {
      if (!git(['cat-file', '-e', `${commit}:${file}`], cwd).ok) {
        throw new BaselineError(`--baseline=${ref}: commit ${short} has no ${file}, which the comparison bundles`);
      }
    }
    symlinkSync(realpathSync(join(cwd, 'node_modules')), join(dir, 'node_modules'), 'dir');
    const handlerEntry = join(dir, 'baseline-handler-entry.ts');
    writeFileSync(handlerEntry, HANDLER_ENTRY_SOURCE);
    return {
      commit,
      short,
      label: `worker @ ${short}`,
      workerEntry: join(dir, 'examples/worker.ts'),
      handlerEntry,
      remove,
    };
  } catch (error) {
    remove();
    throw error;
  }
}

export { type Baseline, type BaselineCommit, BaselineError, baselineOption, prepareBaseline, resolveBaselineCommit };
