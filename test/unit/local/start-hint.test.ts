import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalStackNotRunningError } from '../../../infra/local/errors.js';
import { localStartCommand } from '../../../infra/local/start-hint.js';
import { ROOT } from '../../support/cli-runner.js';

describe('how the CLI tells a user to start the local stack', () => {
  const folders: string[] = [];
  afterAll(async () => {
    await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
  });

  it('says `npx leasefence start` in a user project, `npm start` only in this repository', async () => {
    // prepare: a project of a user's own, and one with no package.json at all
    const project = await mkdtemp(join(tmpdir(), 'leasefence-hint-'));
    const bare = await mkdtemp(join(tmpdir(), 'leasefence-hint-'));
    folders.push(project, bare);
    await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'my-app', scripts: { start: 'node .' } }));

    // act + assert
    expect(localStartCommand(project)).toBe('npx leasefence start');
    expect(localStartCommand(bare)).toBe('npx leasefence start');
    expect(localStartCommand(ROOT)).toBe('npm start');
  });

  it('the not-running error names the command for the folder it runs in', () => {
    const message = new LocalStackNotRunningError('.local/stack.json').message;
    expect(message).toContain(`start one with \`${localStartCommand()}\``);
    expect(message).not.toMatch(/\(or `npm start`\)/);
  });
});
