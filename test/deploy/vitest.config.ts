import { defineConfig } from 'vitest/config';

// The deployment lane's own config (.ci/deploy-lane): `npm test` never runs these files (the root config does not
// include test/deploy), they need moto's server, the built emulator and runtime client. The global setup deploys
// once per run and starts the emulated functions; the files run at once (each `check --stack` on its own stack).
export default defineConfig({
  test: {
    include: ['test/deploy/**/*.test.ts'],
    globalSetup: ['test/deploy/global-setup.ts'],
    testTimeout: 600_000,
    hookTimeout: 600_000,
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
    reporters: [
      'default',
      ...(process.env.LEASEFENCE_TEST_REPORT
        ? [['json', { outputFile: process.env.LEASEFENCE_TEST_REPORT }] as ['json', { outputFile: string }]]
        : []),
    ],
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
});
