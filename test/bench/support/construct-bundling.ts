import type { BuildOptions } from 'esbuild';
import { FAULT_LAYER_CONSTANT, FLOW_CONTROL_CONSTANT } from '../../../lib/config.js';
import { OPENTELEMETRY_API_PACKAGE } from '../../../lib/tracing/tracer.js';

/**
 * The esbuild settings the FencedJobQueue construct gives its functions (infra/construct/functions.ts), for
 * bundles the benchmark builds itself (the peer's handler, figure 2's workers): built the same way, compared
 * the same way. `external` is the AWS SDK when the runtime provides it, and always the OpenTelemetry API (the user's
 * copy is used); the fault layer is defined out as the construct does for a worker without `faultInjection` (its
 * default), unless `faultLayer` asks for the worker of a test stack with it; flow control likewise (`flowControl`).
 */
function constructBundling(
  bundleAwsSdk: boolean,
  options: { faultLayer?: boolean; flowControl?: boolean } = {},
): BuildOptions {
  return {
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'esm',
    mainFields: ['module', 'main'],
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
    minify: true,
    keepNames: true,
    sourcemap: true,
    sourcesContent: false,
    external: [...(bundleAwsSdk ? [] : ['@aws-sdk/*', '@smithy/*']), OPENTELEMETRY_API_PACKAGE],
    logLevel: 'warning',
    define: {
      [FAULT_LAYER_CONSTANT]: JSON.stringify(options.faultLayer === true ? 'bundled' : 'omitted'),
      [FLOW_CONTROL_CONSTANT]: JSON.stringify(options.flowControl === true ? 'bundled' : 'omitted'),
    },
  };
}

export { constructBundling };
