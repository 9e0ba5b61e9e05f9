/** Number formatting shared by the report sections. */

/** `value` with `digits` decimals, or an en dash when it is not a finite number. */
function num(value: number | undefined, digits = 0): string {
  if (value === undefined || !Number.isFinite(value)) return '–';
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** Bytes as kilobytes (1 kB = 1,000 bytes). */
function kb(bytes: number): string {
  return `${num(bytes / 1000, 1)} kB`;
}

/** Bytes as megabytes (1 MB = 1,000,000 bytes). */
function mb(bytes: number, digits = 1): string {
  return `${num(bytes / 1_000_000, digits)} MB`;
}

/** A markdown table from a header row and body rows. */
function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

export { kb, mb, num, table };
