import { formatIdentity } from '../../lib/identity.js';
import type { DemoReport } from '../local/demo-types.js';
import { formatTable } from './output.js';

/** `t+31s`: time on the scenario's own clock (the stalled-worker scenarios move it by hand). */
function offset(ms: number): string {
  return `t+${Math.round(ms / 1000)}s`;
}

/**
 * The demo's story in plain words: each timeline, what was skipped and why, the final state of every operation
 * and the side effects counted at their targets. The last line is `side effects per operation: N`.
 */
function formatDemoReport(report: DemoReport): string {
  const lines: string[] = [
    `leasefence demo (run ${report.runTag}) on ${report.engine.name}${report.engine.transactions ? '' : ' (no TransactWriteItems)'}`,
  ];
  for (const timeline of report.timelines) {
    lines.push('', timeline.title);
    for (const event of timeline.events) lines.push(`  ${offset(event.atMs).padEnd(7)} ${event.text}`);
  }
  if (report.timelines.length > 1) {
    lines.push(
      '',
      'The stalled-worker scenarios run on a simulated clock (the lease passes in an instant), so their rows carry',
      'timestamps up to a lease ahead of the wall clock.',
    );
  }
  for (const skipped of report.skipped) lines.push('', `skipped ${skipped.jobType}: ${skipped.reason}`);
  lines.push(
    '',
    'Final state',
    formatTable(
      ['OPERATION', 'TYPE', 'CLASS', 'PATH', 'STATE', 'FENCE', 'SIDE EFFECTS', 'AT THE TARGET'],
      report.operations.map((operation) => [
        formatIdentity(operation),
        operation.jobType,
        operation.targetClass,
        operation.path,
        operation.state,
        String(operation.fence),
        `${operation.sideEffects} ${operation.sideEffectKind}`,
        operation.detail,
      ]),
    )
      .split('\n')
      .map((line) => `  ${line}`)
      .join('\n'),
    '',
    `stale writes rejected: ${report.staleWritesRejected}`,
    `side effects per operation: ${report.sideEffectsPerOperation}`,
  );
  return lines.join('\n');
}

export { formatDemoReport };
