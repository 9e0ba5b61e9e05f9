import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// Issue 29 (cold start): lib/ builds no zod schema at import that the first event may not need. A schema is built
// on first use (z.lazy, or builtOnce for the few a hot path parses on every job); these tests fail when someone
// builds one at module scope again.

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const LIB = join(ROOT, 'lib');

/**
 * The few schemas lib/ builds at import on purpose, by `file:const`, each with its reason. They are tiny leaves the
 * worker parses on every message or job; a z.lazy wrapper would cost each of those parses a call (test/bench/README.md,
 * "Cold start": about 25 ns a parse), and composed schemas read them as schemas, so builtOnce does not fit them.
 */
const EAGER: Readonly<Record<string, string>> = {
  'lib/identity.ts:tenantIdSchema': 'parsed per message by envelope-check.ts',
  'lib/identity.ts:operationIdSchema': 'parsed per message by envelope-check.ts',
  'lib/identity.ts:identitySchema': 'parsed per job by the payload store (parseIdentity) for inline payloads',
  'lib/rules.ts:payloadHashSchema': 'parsed per message by envelope-check.ts',
  'lib/rules.ts:payloadRefSchema': 'parsed per message by envelope-check.ts',
  'lib/rules.ts:maxAttemptsSchema':
    "part of the attempt budget parsed per new job (store/work-items/schemas.ts's newWorkItem)",
  'lib/rules.ts:jobVersionSchema': 'parsed per message by envelope-check.ts and part of the per-claim lease schema',
};

/** A module-scope expression that builds a schema, by the file and the top-level const it belongs to. */
interface ModuleScopeBuild {
  where: string;
  text: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The identifier a call chain starts from (`z` in `z.string().check(…)`), if any. */
function chainRoot(expression: ts.Expression): ts.Expression {
  let current = expression;
  for (;;) {
    if (ts.isPropertyAccessExpression(current) || ts.isElementAccessExpression(current)) current = current.expression;
    else if (ts.isCallExpression(current)) current = current.expression;
    else if (ts.isParenthesizedExpression(current) || ts.isNonNullExpression(current)) current = current.expression;
    else if (ts.isAsExpression(current) || ts.isSatisfiesExpression(current)) current = current.expression;
    else return current;
  }
}

/** Local names bound to a zod module's value exports (`import * as z from 'zod/mini'`, named imports). */
function zodNames(file: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  for (const statement of file.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    if (!/^zod(\/|$)/.test(statement.moduleSpecifier.text) || statement.importClause?.isTypeOnly) continue;
    const bindings = statement.importClause?.namedBindings;
    if (bindings && ts.isNamespaceImport(bindings)) names.add(bindings.name.text);
    if (bindings && ts.isNamedImports(bindings)) {
      for (const element of bindings.elements) if (!element.isTypeOnly) names.add(element.name.text);
    }
  }
  return names;
}

/**
 * Why a call evaluated at import builds a schema, or undefined: a call of the zod namespace other than `z.lazy`, a
 * call of a function named `…Schema` (the project's schema builders, freeTextSchema and the like), or `.check(…)`
 * on anything (it copies a schema).
 */
function schemaBuild(call: ts.CallExpression, zod: Set<string>): string | undefined {
  const callee = call.expression;
  const root = chainRoot(callee);
  if (ts.isIdentifier(root) && zod.has(root.text)) {
    const isLazy = ts.isPropertyAccessExpression(callee) && callee.expression === root && callee.name.text === 'lazy';
    if (!isLazy) return 'zod';
  }
  if (ts.isIdentifier(callee) && /Schema$/.test(callee.text)) return 'schema builder';
  if (ts.isPropertyAccessExpression(callee) && callee.name.text === 'check') return 'check';
  return undefined;
}

/** The top-level const (or statement kind) a node sits in, for the report and the allowlist. */
function ownerName(node: ts.Node): string {
  let current: ts.Node = node;
  while (current.parent && !ts.isSourceFile(current.parent)) current = current.parent;
  if (ts.isVariableStatement(current)) {
    const [declaration] = current.declarationList.declarations;
    if (declaration && ts.isIdentifier(declaration.name)) return declaration.name.text;
  }
  return ts.SyntaxKind[current.kind];
}

/** Code that runs later, not at import: function bodies and the initialisers of instance fields. */
function deferred(node: ts.Node): boolean {
  if (ts.isFunctionLike(node)) return true;
  const isStatic =
    ts.canHaveModifiers(node) && ts.getModifiers(node)?.some((m) => m.kind === ts.SyntaxKind.StaticKeyword);
  return ts.isPropertyDeclaration(node) && !isStatic;
}

/** Every schema a source file builds while it is imported, outermost call only. */
function moduleScopeBuilds(path: string, root: string): ModuleScopeBuild[] {
  const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const zod = zodNames(file);
  const found: ModuleScopeBuild[] = [];
  const visit = (node: ts.Node): void => {
    if (deferred(node)) return;
    if (ts.isCallExpression(node) && schemaBuild(node, zod)) {
      const where = `${relative(root, path).split('\\').join('/')}:${ownerName(node)}`;
      found.push({ where, text: node.getText(file).replace(/\s+/g, ' ').slice(0, 80) });
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

describe('lib/ builds no zod schema at import (issue 29, cold start)', () => {
  const builds = sourceFiles(LIB).flatMap((path) => moduleScopeBuilds(path, ROOT));

  it('every module-scope schema is built on first use (z.lazy or builtOnce), except the listed hot-path leaves', () => {
    const unexpected = builds.filter((build) => !Object.hasOwn(EAGER, build.where));
    expect(unexpected.map((build) => `${build.where}: ${build.text}`)).toEqual([]);
  });

  it('each listed eager schema is still built at import (a stale entry would let a new one in unnoticed)', () => {
    const eager = new Set(builds.map((build) => build.where));
    expect(Object.keys(EAGER).filter((where) => !eager.has(where))).toEqual([]);
  });

  it('the scan sees what it must: a zod call, a schema builder and a check at module scope, none inside a thunk', () => {
    const source = [
      "import * as z from 'zod/mini';",
      'const eager = z.string();',
      "const builder = freeTextSchema('reason', 10);",
      'const copied = eager.check(z.minLength(1));',
      'const lazy = z.lazy(() => z.object({ a: z.string() }));',
      'function later() { return z.number(); }',
      'class Holder { field = z.boolean(); static shared = z.null(); }',
    ].join('\n');
    const file = ts.createSourceFile('probe.ts', source, ts.ScriptTarget.Latest, true);
    const zod = zodNames(file);
    const owners: string[] = [];
    const visit = (node: ts.Node): void => {
      if (deferred(node)) return;
      if (ts.isCallExpression(node) && schemaBuild(node, zod)) owners.push(ownerName(node));
      else ts.forEachChild(node, visit);
    };
    visit(file);
    expect(owners).toEqual(['eager', 'builder', 'copied', 'ClassDeclaration']);
  });
});

/**
 * zod instances (schemas and checks) built while the handler modules are imported one after the other in one fresh
 * process (worker, then sweeper, then admin: each figure counts what its import adds), through the `postProcessor`
 * key of zod's `config()`, which zod marks internal: a test-only diagnostic, nothing patched, and should zod drop the
 * key the count reads 0 and the test fails (it expects the worker to build some). Upper bounds measured after the lazy-schema round
 * (test/bench/README.md, "Cold start"); the worker's includes its job's payload schema (17 instances) and what
 * readConfig and defineJob parse at import; 178 since the config's optional fault-plan secret (issue #41: one
 * `z.optional` around the secret-ARN schema the identifier key's variable already builds), 184 since the admin's
 * worker run bound (LEASEFENCE_WORKER_MAX_RUN_MS, issue #44's finding: one optional integer, 6 instances); 147 since
 * readConfig builds the schemas of the optional variables that are set only (issue #46: the bench worker sets 2 of
 * the 12, and the other 10 were 36 instances); the admin's 26 since the console's limits route (issue #42: its query
 * schema is one `z.lazy`, built on the route's first request like every other route's).
 */
const IMPORT_BOUNDS = [
  { entry: 'test/bench/bundle/leasefence-handler-mini.ts', atMost: 147 },
  { entry: 'functions/sweeper.ts', atMost: 1 },
  { entry: 'functions/admin.ts', atMost: 26 },
] as const;

const COUNT_PROBE = `
let built = 0;
const { config } = await import('zod/v4/core');
config({ postProcessor: () => { built += 1; } });
const counts = [];
for (const entry of process.argv.slice(1)) {
  const before = built;
  await import(entry);
  counts.push(built - before);
}
process.stdout.write('\\nzod-instances ' + JSON.stringify(counts) + '\\n');
process.exit(0);
`;

/** What the handlers read from their environment at import (no request leaves the process). */
const HANDLER_ENV = {
  LEASEFENCE_JOBS_TABLE: 'bench-jobs',
  LEASEFENCE_PAYLOADS_TABLE: 'bench-payloads',
  LEASEFENCE_EXAMPLES_TABLE: 'bench-examples',
  LEASEFENCE_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/bench-jobs',
  LEASEFENCE_IDENTIFIER_KEY_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:bench-identifier-key',
  AWS_LAMBDA_FUNCTION_NAME: 'bench',
  AWS_REGION: 'us-east-1',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};

/** What each entry's import adds, in order, in one fresh process (TypeScript through tsx, as the tests run it). */
function zodInstancesAtImport(entries: readonly string[]): number[] {
  const urls = entries.map((entry) => pathToFileURL(join(ROOT, entry)).href);
  const result = spawnSync(
    process.execPath,
    ['--no-warnings', '--import', 'tsx', '--input-type=module', '-e', COUNT_PROBE, ...urls],
    { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...HANDLER_ENV }, encoding: 'utf8', timeout: 120_000 },
  );
  const line = result.stdout.split('\n').find((candidate) => candidate.startsWith('zod-instances '));
  if (result.status !== 0 || !line) throw new Error(`importing the handlers failed: ${result.stderr.slice(-800)}`);
  return JSON.parse(line.slice('zod-instances '.length)) as number[];
}

describe('zod instances built while the handlers are imported (issue 29, cold start)', () => {
  it('the worker, sweeper and admin handler modules build no more than measured', () => {
    const counts = zodInstancesAtImport(IMPORT_BOUNDS.map((bound) => bound.entry));
    expect(counts[0]).toBeGreaterThan(0);
    const over = IMPORT_BOUNDS.filter((bound, index) => (counts[index] ?? Number.POSITIVE_INFINITY) > bound.atMost);
    expect(over.map((bound) => `${bound.entry}: ${counts[IMPORT_BOUNDS.indexOf(bound)]} > ${bound.atMost}`)).toEqual(
      [],
    );
  });
});
