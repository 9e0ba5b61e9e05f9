import { CONTROL_CHARACTER } from '../../lib/internal/free-text.js';

const CONTROL_CHARACTERS = new RegExp(CONTROL_CHARACTER.source, 'gu');

/**
 * Text made safe to print on a terminal: every control character (escape sequences, carriage return,
 * bidirectional overrides, …) is shown as its `\uXXXX` escape (valid inside JSON strings too) instead of
 * acting on the screen. `keepLayout` keeps newlines and tabs (whole output blocks; cells escape them too).
 */
function escapeForTerminal(text: string, keepLayout = false): string {
  return text.replace(CONTROL_CHARACTERS, (character) =>
    keepLayout && (character === '\n' || character === '\t')
      ? character
      : `\\u${(character.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`,
  );
}

/** Where a command writes, and what it knows about its terminal and clock. */
interface Io {
  out(text: string): void;
  err(text: string): void;
  /** True when stdout is a terminal (progress bars, colours are only for people). */
  isTTY: boolean;
  now(): number;
  env: NodeJS.ProcessEnv;
}

/** Ends a block with one newline and escapes every control character in it but newlines and tabs. */
function printable(text: string): string {
  const safe = escapeForTerminal(text, true);
  return safe.endsWith('\n') ? safe : `${safe}\n`;
}

/** The process's own streams; nothing written through them can move the cursor or recolour the screen. */
function processIo(): Io {
  return {
    out: (text) => process.stdout.write(printable(text)),
    err: (text) => process.stderr.write(printable(text)),
    isTTY: process.stdout.isTTY === true,
    now: () => Date.now(),
    env: process.env,
  };
}

/** Columns padded to their widest cell, two spaces apart; the last column is not padded. Cells are escaped. */
function formatTable(headers: readonly string[], unsafeRows: ReadonlyArray<readonly string[]>): string {
  const rows = unsafeRows.map((row) => row.map((value) => escapeForTerminal(value)));
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

/** Label/value lines with the labels aligned; values are escaped. */
function formatPairs(pairs: ReadonlyArray<readonly [string, string]>, indent = '  '): string {
  const width = Math.max(0, ...pairs.map(([label]) => label.length));
  return pairs.map(([label, value]) => `${indent}${label.padEnd(width)}  ${escapeForTerminal(value)}`).join('\n');
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

/** A cell: strings escaped for the terminal, numbers in decimal, anything missing as "-". */
function cell(value: unknown): string {
  if (value === undefined || value === null || value === '') return '-';
  return escapeForTerminal(typeof value === 'object' ? JSON.stringify(value) : String(value));
}

export {
  cell,
  escapeForTerminal,
  formatPairs,
  formatTable,
  type Io,
  printJson,
  processIo,
  relativeTime,
  shortDuration,
};
