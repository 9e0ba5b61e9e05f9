import { readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { ROOT } from './cli-runner.js';

/** The documents whose TypeScript snippets are compiled (README.md, infra/README.md). */
const SNIPPET_DOCUMENTS = ['README.md', 'infra/README.md'] as const;

/** The package's public entry points: the only way a snippet may reach leasefence. */
const PUBLIC_ENTRY_POINTS = ['leasefence', 'leasefence/cdk', 'leasefence/testing'] as const;

/** One ```ts block of a document, and the file it stands for in the user's project. */
interface DocSnippet {
  document: string;
  /** 1-based line of the opening fence, for messages. */
  line: number;
  /**
   * The file in the user's project: the path its first line names (`// src/worker.ts — …`), else
   * `snippets/<document>-<line>.ts`. Relative imports between snippets resolve by these paths.
   */
  path: string;
  code: string;
}

/** The path a snippet's first line names, e.g. `// src/jobs.ts — your job types` ▶ `src/jobs.ts`. */
function namedPath(code: string): string | undefined {
  return /^\/\/ ([\w./-]+\.ts)\b/.exec(code)?.[1];
}

/**
 * Every ```ts block of the documents, as one user project: both documents describe the same project (its
 * src/jobs.ts, src/worker.ts, lib/my-stack.ts, …), so a snippet may import another one by its named path.
 */
function docSnippets(): DocSnippet[] {
  const snippets: DocSnippet[] = [];
  for (const document of SNIPPET_DOCUMENTS) {
    const lines = readFileSync(join(ROOT, document), 'utf8').split('\n');
    for (let index = 0; index < lines.length; index += 1) {
      if (lines[index]?.trim() !== '```ts') continue;
      const end = lines.findIndex((line, at) => at > index && line.trim() === '```');
      if (end < 0) throw new Error(`${document}:${index + 1}: a \`\`\`ts block is never closed`);
      const code = `${lines.slice(index + 1, end).join('\n')}\n`;
      const name = document.replace(/\W+/g, '-').toLowerCase();
      snippets.push({ document, line: index + 1, path: namedPath(code) ?? `snippets/${name}-${index + 1}.ts`, code });
      index = end;
    }
  }
  return snippets;
}

/** Every module specifier a snippet imports (static imports and `export … from`). */
function importSpecifiers(code: string): string[] {
  return [...code.matchAll(/^\s*(?:import|export)\b[^'"]*?\bfrom\s+'([^']+)'|^\s*import\s+'([^']+)'/gm)].map(
    (match) => (match[1] ?? match[2]) as string,
  );
}

/** The package a bare specifier names (`aws-cdk-lib/aws-iam` ▶ `aws-cdk-lib`, `@aws-sdk/client-sqs` stays). */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return (specifier.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/');
}

/** The snippet file a relative specifier of `from` points at (`./jobs.js` from src/worker.ts ▶ src/jobs.ts). */
function relativeTarget(from: string, specifier: string): string {
  return posix.normalize(posix.join(posix.dirname(from), specifier)).replace(/\.js$/, '.ts');
}

/** The packages the README's install block names (`npm install …` lines), leasefence included. */
function readmeInstallPackages(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  return readmeInstallLines(readme).flatMap((line) => line.packages);
}

/** One `npm install` line of the README's "Use it in your project" block: dev or not, and the packages it names. */
interface InstallLine {
  dev: boolean;
  packages: string[];
}

/** The `npm install` lines of the first ```sh block after "## Use it in your project" (comments dropped). */
function readmeInstallLines(readme: string): InstallLine[] {
  const section = readme.slice(readme.indexOf('## Use it in your project'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('README: no ```sh install block under "## Use it in your project"');
  return block
    .split('\n')
    .map((line) => line.replace(/#.*$/, '').trim())
    .filter((line) => line.startsWith('npm install'))
    .map((line) => {
      const words = line.split(/\s+/).slice(2);
      return { dev: words.includes('--save-dev'), packages: words.filter((word) => !word.startsWith('-')) };
    });
}

export {
  type DocSnippet,
  docSnippets,
  type InstallLine,
  importSpecifiers,
  PUBLIC_ENTRY_POINTS,
  packageOf,
  readmeInstallLines,
  readmeInstallPackages,
  relativeTarget,
  SNIPPET_DOCUMENTS,
};
