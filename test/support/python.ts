import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './cli-runner.js';
import { engineEndpoints } from './engine.js';
import { type ProcessRun, runProcess } from './process.js';

/** boto3 the test venv gets when no Python at hand has it (pinned, like moto in .ci/moto-lane). */
const BOTO3_VERSION = '1.43.11';

/** Venv the producer tests create when no Python at hand has boto3 (git-ignored, reused by later runs). */
const PRODUCER_VENV = join(ROOT, '.producer-venv');

/** A Python that can run the reference producer, or why there is none (the tests skip with it). */
type PythonForProducer = { python: string } | { missing: string };

function hasBoto3(python: string): boolean {
  const probe = spawnSync(python, ['-c', 'import boto3'], { stdio: 'ignore', timeout: 30_000 });
  return probe.status === 0;
}

/**
 * The first Python with boto3 among the machine's python3, .moto-venv (CI's moto lane) and .producer-venv; else
 * .producer-venv is made with `pip install boto3==BOTO3_VERSION`. Never throws: no python3, or a failed install,
 * is a reason to skip, printed by the caller.
 */
function pythonForProducer(): PythonForProducer {
  const candidates = ['python3', join(ROOT, '.moto-venv/bin/python'), join(PRODUCER_VENV, 'bin/python')];
  for (const python of candidates) {
    if ((python === 'python3' || existsSync(python)) && hasBoto3(python)) return { python };
  }
  if (spawnSync('python3', ['--version'], { stdio: 'ignore' }).status !== 0) {
    return { missing: 'python3 is not installed' };
  }
  const venv = spawnSync('python3', ['-m', 'venv', PRODUCER_VENV], { encoding: 'utf8', timeout: 120_000 });
  if (venv.status !== 0) return { missing: `python3 -m venv failed: ${venv.stderr.trim().slice(-300)}` };
  const pip = spawnSync(
    join(PRODUCER_VENV, 'bin/pip'),
    ['install', '--quiet', '--disable-pip-version-check', `boto3==${BOTO3_VERSION}`],
    { encoding: 'utf8', timeout: 300_000 },
  );
  if (pip.status !== 0)
    return { missing: `pip could not install boto3==${BOTO3_VERSION}: ${pip.stderr.trim().slice(-300)}` };
  const python = join(PRODUCER_VENV, 'bin/python');
  return hasBoto3(python) ? { python } : { missing: 'boto3 installed but cannot be imported' };
}

/** What a Python run printed and how it exited. */
type PythonRun = ProcessRun;

/** Runs `python args…` with `stdin` (UTF-8) and the given environment added; resolves when it exits. */
function runPython(python: string, args: string[], options: { stdin?: string; env?: NodeJS.ProcessEnv } = {}) {
  // UTF-8 mode: argv, stdin and stdout are UTF-8 whatever the machine's locale.
  const env = { ...process.env, PYTHONUTF8: '1', ...options.env };
  return runProcess(python, args, { cwd: ROOT, env, stdin: options.stdin ?? '' });
}

/**
 * The environment that points boto3 and the AWS CLI at the test engines: service endpoints, a region, throwaway
 * credentials, and no config file or instance metadata of the machine's own.
 */
function localAwsEnvironment(): NodeJS.ProcessEnv {
  const { dynamo, sqs } = engineEndpoints();
  return {
    AWS_ENDPOINT_URL_DYNAMODB: dynamo,
    AWS_ENDPOINT_URL_SQS: sqs,
    AWS_DEFAULT_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_CONFIG_FILE: '/dev/null',
    AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
    AWS_EC2_METADATA_DISABLED: 'true',
  };
}

export {
  BOTO3_VERSION,
  localAwsEnvironment,
  PRODUCER_VENV,
  type PythonForProducer,
  type PythonRun,
  pythonForProducer,
  runPython,
};
