import { defineConfig } from 'vitest/config';

// The deployment lane's own config (.ci/deploy-lane): `npm test` never runs these files (the root config does not
// include test/deploy), they need moto's server, the built emulator and runtime client.
export default defineConfig({
  test: {
    include: ['test/deploy/**/*.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 600_000,
    pool: 'forks',
    fileParallelism: false,
    reporters: [
      'default',
      ...(process.env.LEASEFENCE_TEST_REPORT
        ? [['json', { outputFile: process.env.LEASEFENCE_TEST_REPORT }] as ['json', { outputFile: string }]]
        : []),
    ],
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
});
