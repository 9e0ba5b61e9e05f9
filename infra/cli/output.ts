/** Where a command writes, and what it knows about its terminal and clock. */
interface Io {
  out(text: string): void;
  err(text: string): void;
  /** True when stdout is a terminal (progress bars, colours are only for people). */
  isTTY: boolean;
  now(): number;
  env: NodeJS.ProcessEnv;
}

/** The process's own streams. */
function processIo(): Io {
  return {
    out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
    err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
    isTTY: process.stdout.isTTY === true,
    now: () => Date.now(),
    env: process.env,
  };
}

/** Columns padded to their widest cell, two spaces apart; the last column is not padded. */
function formatTable(headers: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}

/** Label/value lines with the labels aligned. */
function formatPairs(pairs: ReadonlyArray<readonly [string, string]>, indent = '  '): string {
  const width = Math.max(0, ...pairs.map(([label]) => label.length));
  return pairs.map(([label, value]) => `${indent}${label.padEnd(width)}  ${value}`).join('\n');
}

/** A duration in the largest whole unit: 45s, 3m, 5h, 2d. */
function shortDuration(ms: number): string {
  const seconds = Math.floor(Math.abs(ms) / 1000);
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 48 * 3600) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}

/** "3m ago", "in 20s", "just now"; "-" for a missing time. */
function relativeTime(at: unknown, now: number): string {
  if (typeof at !== 'number' || !Number.isFinite(at)) return '-';
  const delta = now - at;
  if (Math.abs(delta) < 1000) return 'just now';
  return delta > 0 ? `${shortDuration(delta)} ago` : `in ${shortDuration(delta)}`;
}

/** Prints a value as one JSON document (the `--json` output of every command). */
function printJson(io: Io, value: unknown): void {
  io.out(JSON.stringify(value, null, 2));
}

/** A cell: strings as they are, numbers in decimal, anything missing as "-". */
function cell(value: unknown): string {
  if (value === undefined || value === null || value === '') return '-';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

export { cell, formatPairs, formatTable, type Io, printJson, processIo, relativeTime, shortDuration };
