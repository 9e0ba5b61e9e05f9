import { parseArgs } from 'node:util';
import type * as z from 'zod';
import { UsageError } from './errors.js';

/** One `--flag` of a command. */
interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  /** Shown in help after the flag, e.g. `<state>`. */
  placeholder?: string;
  description: string;
}

/** One positional argument of a command. */
interface PositionalSpec {
  name: string;
  description: string;
  optional?: boolean;
}

/** What a command accepts; the help text is generated from it. */
interface CommandSpec {
  name: string;
  summary: string;
  positionals: readonly PositionalSpec[];
  options: Readonly<Record<string, OptionSpec>>;
  examples: readonly string[];
  /** When true, one `<tenant>/<operation>` argument may stand for the first two positionals. */
  identityArgument?: boolean;
}

/** Flags every command accepts. */
const COMMON_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  json: { type: 'boolean', description: 'print one JSON document (for scripts) instead of text' },
  help: { type: 'boolean', short: 'h', description: 'show this help' },
};

/** True when the user asked for help (answered before anything is validated). */
function wantsHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  const head = end === -1 ? argv : argv.slice(0, end);
  return head.includes('--help') || head.includes('-h');
}

/** How an argument is named in messages: `<tenant>` or `--state`. */
function argumentName(spec: CommandSpec, key: string): string {
  return spec.positionals.some((positional) => positional.name === key) ? `<${key}>` : `--${key}`;
}

/**
 * `--limit -5` as `--limit=-5`: parseArgs refuses a value that starts with a dash as ambiguous, but a negative
 * number can only be a value (no flag starts with a digit), so it reaches the schema, which names the range.
 */
function joinNegativeNumbers(argv: readonly string[], options: Readonly<Record<string, OptionSpec>>): string[] {
  const joined: string[] = [];
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index] as string;
    const next = argv[index + 1];
    if (argument === '--') return [...joined, ...argv.slice(index)];
    const option = argument.startsWith('--') ? options[argument.slice(2)] : undefined;
    if (option?.type === 'string' && next !== undefined && /^-\d/.test(next)) {
      joined.push(`${argument}=${next}`);
      index += 1;
    } else joined.push(argument);
  }
  return joined;
}

/**
 * parseArgs' refusal as our own sentence naming the flag (its messages are Node's, and vary by version): an
 * unknown flag, a flag missing its value, or a switch given one. Anything else keeps parseArgs' first sentence.
 */
function parseArgsMessage(error: unknown, options: Readonly<Record<string, OptionSpec>>, argv: readonly string[]) {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown }).code;
  const flag = /'(-{1,2}[^' <=]+)/.exec(message)?.[1];
  if (flag && code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `${flag}: unknown flag (see --help for the flags)`;
  if (flag && code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const name = flag.replace(/^-+/, '');
    const option = options[name] ?? Object.values(options).find((candidate) => candidate.short === name);
    if (option?.type === 'boolean') return `${flag}: is a switch and takes no value`;
    const next = argv[argv.indexOf(flag) + 1];
    return next?.startsWith('-')
      ? `${flag}: needs a value (one that starts with a dash is written ${flag}=${next})`
      : `${flag}: needs a value`;
  }
  return message.split('. ')[0] ?? message;
}

/** Splits `tenant/operation` (tenant ids cannot contain `/`, operation ids may). */
function splitIdentityArgument(positionals: string[]): string[] {
  const [only] = positionals;
  if (positionals.length !== 1 || only === undefined || !only.includes('/')) return positionals;
  const slash = only.indexOf('/');
  return [only.slice(0, slash), only.slice(slash + 1)];
}

/**
 * Parses argv with node:util parseArgs (strict: unknown flags and extra arguments are errors), maps positionals to
 * their names and validates everything with `schema`. Any problem ▶ UsageError naming the argument.
 */
function parseCommandLine<S extends z.ZodType>(spec: CommandSpec, schema: S, argv: readonly string[]): z.output<S> {
  const options = { ...spec.options, ...COMMON_OPTIONS };
  let parsed: ReturnType<typeof parseArgs>;
  const args = joinNegativeNumbers(argv, options);
  try {
    parsed = parseArgs({
      args,
      options: Object.fromEntries(
        Object.entries(options).map(([name, option]) => [
          name,
          { type: option.type, ...(option.short ? { short: option.short } : {}) },
        ]),
      ),
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(parseArgsMessage(error, options, args));
  }
  const positionals = spec.identityArgument ? splitIdentityArgument(parsed.positionals) : parsed.positionals;
  if (positionals.length > spec.positionals.length) {
    throw new UsageError(`unexpected argument '${positionals[spec.positionals.length]}'`);
  }
  const raw: Record<string, unknown> = { ...parsed.values };
  spec.positionals.forEach((positional, index) => {
    if (positionals[index] !== undefined) raw[positional.name] = positionals[index];
  });
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const key = String(issue.path[0] ?? '');
    const name = key ? argumentName(spec, key) : 'arguments';
    const message = key && raw[key] === undefined && issue.code === 'invalid_type' ? 'is required' : issue.message;
    return `${name}: ${message}`;
  });
  throw new UsageError(problems.join('; '));
}

/** The help text of a command: usage line, arguments, flags, examples. */
function helpText(spec: CommandSpec): string {
  const positionals = spec.positionals.map((positional) =>
    positional.optional ? `[${positional.name}]` : `<${positional.name}>`,
  );
  const options = { ...spec.options, ...COMMON_OPTIONS };
  const flag = (name: string, option: OptionSpec) =>
    `${option.short ? `-${option.short}, ` : ''}--${name}${option.placeholder ? ` ${option.placeholder}` : ''}`;
  const width = Math.max(
    ...spec.positionals.map((positional) => positional.name.length + 2),
    ...Object.entries(options).map(([name, option]) => flag(name, option).length),
  );
  const lines = [
    `leasefence ${spec.name} — ${spec.summary}`,
    '',
    `usage: leasefence ${spec.name} ${[...positionals, '[flags]'].join(' ')}`,
  ];
  if (spec.positionals.length > 0) {
    lines.push('', 'arguments:');
    for (const positional of spec.positionals)
      lines.push(`  ${`<${positional.name}>`.padEnd(width)}  ${positional.description}`);
  }
  lines.push('', 'flags:');
  for (const [name, option] of Object.entries(options))
    lines.push(`  ${flag(name, option).padEnd(width)}  ${option.description}`);
  if (spec.examples.length > 0) lines.push('', 'examples:', ...spec.examples.map((example) => `  ${example}`));
  return lines.join('\n');
}

export { type CommandSpec, helpText, type OptionSpec, type PositionalSpec, parseCommandLine, wantsHelp };
