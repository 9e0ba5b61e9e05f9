import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CLI_STACK_OUTPUTS } from '../../../infra/cli/cloudformation.js';
import { ROOT } from '../../support/cli-runner.js';
import {
  docSnippets,
  importSpecifiers,
  PUBLIC_ENTRY_POINTS,
  packageOf,
  readmeInstallPackages,
  relativeTarget,
} from '../../support/doc-snippets.js';

const run = promisify(execFile);

/** Where each public entry point's source lives (package.json `exports`, as the repository's tsconfig maps them). */
const ENTRY_SOURCES: Record<(typeof PUBLIC_ENTRY_POINTS)[number], string> = {
  leasefence: 'lib/index.ts',
  'leasefence/cdk': 'infra/construct/index.ts',
  'leasefence/testing': 'infra/testing/index.ts',
};

describe('TypeScript snippets of README.md and infra/README.md', () => {
  const snippets = docSnippets();

  it('import only the public entry points, packages the README installs, Node builtins, or each other', () => {
    // prepare
    const installed = new Set(readmeInstallPackages());
    const paths = new Set(snippets.map((snippet) => snippet.path));

    // act: every import that a user copying the snippet could not satisfy
    const unreachable = snippets.flatMap((snippet) =>
      importSpecifiers(snippet.code)
        .filter((specifier) => {
          if (specifier.startsWith('.')) return !paths.has(relativeTarget(snippet.path, specifier));
          if (specifier.startsWith('node:')) return false;
          if (packageOf(specifier) === 'leasefence')
            return !(PUBLIC_ENTRY_POINTS as readonly string[]).includes(specifier);
          return !installed.has(packageOf(specifier));
        })
        .map((specifier) => `${snippet.document}:${snippet.line} imports '${specifier}'`),
    );

    // assert
    expect(snippets.length).toBeGreaterThanOrEqual(6);
    expect(unreachable).toEqual([]);
  });

  it('compile together as one strict project in which leasefence is only its three entry points', async () => {
    // prepare: the snippets at their paths in a folder outside the repository, so a relative import can only
    // reach another snippet; packages resolve from the repository's node_modules
    const project = await mkdtemp(join(tmpdir(), 'leasefence-doc-snippets-'));
    try {
      await symlink(join(ROOT, 'node_modules'), join(project, 'node_modules'), 'dir');
      for (const snippet of snippets) {
        await mkdir(dirname(join(project, snippet.path)), { recursive: true });
        await writeFile(join(project, snippet.path), snippet.code);
      }
      const tsconfig = {
        extends: join(ROOT, 'tsconfig.json'),
        compilerOptions: {
          noEmit: true,
          paths: Object.fromEntries(Object.entries(ENTRY_SOURCES).map(([name, file]) => [name, [join(ROOT, file)]])),
        },
        // The one ambient declaration the library's sources need (dynalite ships no types).
        files: [...snippets.map((snippet) => snippet.path), join(ROOT, 'infra/local/dynalite.d.ts')],
        include: [],
        exclude: [],
      };
      await writeFile(join(project, 'package.json'), JSON.stringify({ type: 'module', private: true }));
      await writeFile(join(project, 'tsconfig.json'), JSON.stringify(tsconfig));

      // act
      const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
      const compiled = await run(process.execPath, [tsc, '-p', join(project, 'tsconfig.json')], {
        maxBuffer: 16 * 1024 * 1024,
      }).then(
        () => ({ code: 0, output: '' }),
        (error: { code: number; stdout: string }) => ({ code: error.code, output: error.stdout }),
      );

      // assert
      expect(compiled.output).toBe('');
      expect(compiled.code).toBe(0);
    } finally {
      await rm(project, { recursive: true, force: true });
    }
  });

  it('the construct snippet outputs what `--stack` reads, and the install list has the cdk CLI it deploys with', () => {
    // prepare: the user's CDK stack of infra/README.md
    const stack = snippets.find((snippet) => snippet.path === 'lib/my-stack.ts');

    // act: the outputs the CLI reads that the snippet does not output (ExamplesTableName is this repository's own)
    const missing = CLI_STACK_OUTPUTS.filter((name) => name !== 'ExamplesTableName').filter(
      (name) => !stack?.code.includes(`new CfnOutput(this, '${name}'`),
    );

    // assert
    expect(stack).toBeDefined();
    expect(missing).toEqual([]);
    expect(readmeInstallPackages()).toContain('aws-cdk');
  });
});
