// Writes the model's step relation as JSON (model/check extract): the LFSTEP lines the -DEXTRACT searches printed,
// deduplicated and sorted, one object per abstract step. Usage: node relation.mjs STEPS_FILE "CONFIG NAMES".
import { readFileSync } from 'node:fs';

const [file, configs] = process.argv.slice(2);
const fields = ['event', 'cls', 'from', 'to', 'fence', 'attempts', 'mark', 'left', 'mine'];
const classes = { 1: 'A', 2: 'B', 3: 'C', 4: 'D' };
const lines = [...new Set(readFileSync(file, 'utf8').split('\n').filter(Boolean))].sort();
const steps = lines.map((line) => {
  const step = Object.fromEntries(line.split(' ').map((value, i) => [fields[i], value]));
  return { ...step, cls: classes[step.cls] };
});
const about =
  "The protocol model's step relation over the work row, printed by Spin's exhaustive searches of model/leasefence.pml " +
  '(model/check extract; do not edit by hand). Each step: the event, the target class, the state before and after, ' +
  'the fence and attempts change (same, +1, up, reset), the effect mark before and after, whether attempts were left ' +
  "(only where the guard reads them) and whether a holder's fence was the row's. The reliability suite replays " +
  'every observed history against it (test/reliability/support/replay/).';
// One step a line, so a change of the relation reads as a line diff (generated: biome.json leaves the file alone).
const head = JSON.stringify({ about, configurations: (configs ?? '').split(' ').filter(Boolean) }, null, 2);
const body = steps.map((step) => `    ${JSON.stringify(step)}`).join(',\n');
console.log(`${head.slice(0, -2)},\n  "steps": [\n${body}\n  ]\n}`);
