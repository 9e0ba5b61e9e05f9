import { cp, mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'esbuild';
import { ROOT } from './cli-runner.js';

/** An installed-like copy of leasefence: compiled JavaScript under `root/dist`, run by node without a TypeScript loader. */
interface CompiledPackage {
  /** The package folder (`package.json`, `dist/`, and `node_modules` linked to this repository's install). */
  root: string;
  /** `dist/infra/cli/bin.js`: the `leasefence` bin as npm installs it. */
  bin: string;
}

/** Every TypeScript source of the folders the package build compiles (tsconfig.build.json `include`). */
async function shippedSources(): Promise<string[]> {
  const config = JSON.parse(await readFile(join(ROOT, 'tsconfig.build.json'), 'utf8')) as { include: string[] };
  const lists = await Promise.all(
    config.include.map(async (folder) =>
      (await readdir(join(ROOT, folder), { recursive: true, encoding: 'utf8' }))
        .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
        .map((file) => join(ROOT, folder, file)),
    ),
  );
  return lists.flat();
}

/**
 * Compiles the package's sources file by file into `dir/leasefence` (esbuild, the same module graph and layout as
 * `npm run build`, without its type check and declarations, so it takes about a second). The compiled CLI takes
 * the installed package's paths: a `.ts` jobs module is loaded through tsx's `tsImport`.
 */
async function compilePackage(dir: string): Promise<CompiledPackage> {
  const root = join(dir, 'leasefence');
  await build({
    entryPoints: await shippedSources(),
    outbase: ROOT,
    outdir: join(root, 'dist'),
    format: 'esm',
    platform: 'node',
    target: 'node20',
    bundle: false,
    logLevel: 'warning',
  });
  await cp(join(ROOT, 'package.json'), join(root, 'package.json'));
  await cp(join(ROOT, 'infra/console/ui'), join(root, 'dist/infra/console/ui'), { recursive: true });
  await symlink(join(ROOT, 'node_modules'), join(root, 'node_modules'), 'dir');
  return { root, bin: join(root, 'dist/infra/cli/bin.js') };
}

/**
 * A user's project in `dir/consumer` with `leasefence` installed (a link to `pkg`) next to its own dependencies
 * (linked from this repository's install), and the given files.
 */
async function consumerProject(
  dir: string,
  pkg: CompiledPackage,
  files: Readonly<Record<string, string>>,
  dependencies: readonly string[] = [],
): Promise<string> {
  const project = join(dir, 'consumer');
  await mkdir(join(project, 'node_modules'), { recursive: true });
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  await symlink(pkg.root, join(project, 'node_modules', 'leasefence'), 'dir');
  for (const name of dependencies) {
    await symlink(join(ROOT, 'node_modules', name), join(project, 'node_modules', name), 'dir');
  }
  for (const [name, text] of Object.entries(files)) await writeFile(join(project, name), text);
  return project;
}

export { type CompiledPackage, compilePackage, consumerProject };
