/**
 * Help that reads evenly at any width. oclif wraps most of help to the terminal, but prints a command's and a
 * topic's summary and the root description as they are, measures the usage line before it puts the command
 * in, and wraps a list item back to the margin; and in a pipe it takes 80 columns whatever COLUMNS says.
 * Descriptions are prose (`help-text.ts`), one line per paragraph, so the wrapping here is the only one.
 */
import { CommandHelp, Help, type Command, type Interfaces } from '@oclif/core';

const PIPE_WIDTH = 80;
const NARROWEST = 40;
/** A list item of a description: its lines after the first are indented under its text. */
const ITEM = /^- /;

/**
 * The width help is wrapped to: OCLIF_COLUMNS (oclif's own), else COLUMNS (as most command-line tools read it,
 * in a pipe too), else the terminal's, else 80; never under 40, as oclif.
 */
export function helpWidth(env: NodeJS.ProcessEnv = process.env, stdout: { isTTY?: boolean; columns?: number } = process.stdout): number {
  const width = columnsOf(env.OCLIF_COLUMNS) ?? columnsOf(env.COLUMNS) ?? (stdout.isTTY === true ? stdout.columns : undefined);
  return Math.max(width !== undefined && width > 0 ? width : PIPE_WIDTH, NARROWEST);
}

function columnsOf(value: string | undefined): number | undefined {
  return value !== undefined && /^\d+$/.test(value.trim()) && Number(value) > 0 ? Number(value) : undefined;
}

/** A marker a user copies into a file as it is written (`<!-- package-sdk:docs -->`): never broken. */
const MARKER = /<!--.*?-->/g;
/** Holds a marker's spaces through oclif's wrap, which breaks at spaces only; as wide as the space it holds. */
const HELD_SPACE = '\u00a0';

/** `wrap` of oclif line by line, with the lines of a list item indented under its text, and markers whole. */
function wrapKeepingItems(body: string, spacing: number, wrap: (text: string, spacing: number) => string): string {
  return body
    .split('\n')
    .map((line) => {
      const hang = ITEM.test(line) ? 2 : 0;
      const held = line.slice(hang).replace(MARKER, (marker) => marker.replaceAll(' ', HELD_SPACE));
      const [first = '', ...rest] = wrap(held, spacing + hang).replaceAll(HELD_SPACE, ' ').split('\n');
      return [line.slice(0, hang) + first, ...rest.map((next) => ' '.repeat(hang) + next)].join('\n');
    })
    .join('\n');
}

/**
 * The words of a usage or a command line: split at spaces, but not inside quotes or brackets, so that
 * `[--env FILE --server URL]` or `--row '{when: …}'` stays whole.
 */
function wordsOf(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let depth = 0;
  let quote: string | undefined;
  for (const char of line) {
    if (char === ' ' && depth === 0 && quote === undefined) {
      if (word !== '') words.push(word);
      word = '';
      continue;
    }
    if (quote === undefined && `'"`.includes(char)) quote = char;
    else if (char === quote) quote = undefined;
    else if (quote === undefined && '[(<{'.includes(char)) depth++;
    else if (quote === undefined && '])>}'.includes(char)) depth = Math.max(0, depth - 1);
    word += char;
  }
  if (word !== '') words.push(word);
  return words;
}

/** The parts no line break should split: each word, a flag with its value. */
function partsOf(line: string): string[] {
  const parts: string[] = [];
  for (const word of wordsOf(line)) {
    const last = parts.length - 1;
    if (last >= 0 && /^--?[\w-]+$/.test(parts[last]!) && !word.startsWith('-')) parts[last] += ` ${word}`;
    else parts.push(word);
  }
  return parts;
}

/** The parts as lines of at most `first` characters, then `rest`, in order. */
function packParts(parts: string[], first: number, rest: number): string[] {
  const lines: string[] = [];
  for (const part of parts) {
    const last = lines.length - 1;
    const room = last === 0 ? first : rest;
    if (last >= 0 && lines[last]!.length + 1 + part.length <= room) lines[last] += ` ${part}`;
    else lines.push(part);
  }
  return lines;
}

export class PackageSdkCommandHelp extends CommandHelp {
  override wrap(body: string, spacing = this.indentSpacing): string {
    return wrapKeepingItems(body, spacing, (text, width) => super.wrap(text, width));
  }

  /**
   * oclif's list of flags puts a long text under its flag when the text would take more than four lines, and
   * then fills two columns past the width; such a list is made again two columns narrower.
   */
  override renderList(input: (string | undefined)[][], opts: Parameters<CommandHelp['renderList']>[1]): string {
    const list = super.renderList(input, opts);
    const room = this.opts.maxWidth - opts.indentation;
    return list.split('\n').every((line) => line.length <= room) ? list : super.renderList(input, { ...opts, indentation: opts.indentation + 2 });
  }

  /**
   * Examples as oclif lays them out — a description, then its command indented under it, or a plain command
   * line — with long commands broken between their arguments, never inside a quoted one when it fits.
   */
  protected override examples(examples: Command.Example[] | string | undefined): string | undefined {
    if (examples === undefined) return undefined;
    return [examples]
      .flat()
      .map((example) => (typeof example === 'string' ? this.plainExample(example) : this.describedExample(example)))
      .join('\n\n');
  }

  private describedExample({ description, command }: { description: string; command: string }): string {
    return `${this.wrap(description, 2 * this.indentSpacing)}\n\n${this.indent(this.commandLines(this.render(command), this.indentSpacing))}`;
  }

  private plainExample(example: string): string {
    return example
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => this.render(line))
      .map((line) => (this.isCommandLine(line) ? this.commandLines(line) : this.wrap(line)))
      .join('\n');
  }

  /** A line that runs the command, maybe after `$ ` and variables of its environment (`NAME=value`). */
  private isCommandLine(line: string): boolean {
    return new RegExp(`^(\\$ )?(\\w+=\\S* )*${this.config.bin}( |$)`).test(line);
  }

  /**
   * `$ command`, broken between its arguments (a flag with its value), its lines ended by a backslash (the
   * shell's continuation) and indented under the first; `indentation` is what the caller adds to every line.
   */
  private commandLines(line: string, indentation = 0): string {
    const command = line.startsWith('$ ') ? line : `$ ${line}`;
    const room = this.opts.maxWidth - this.indentSpacing - indentation;
    if (command.length <= room) return command;
    const continued = 3 * this.indentSpacing + indentation;
    const [first = '', ...rest] = packParts(partsOf(command), room - this.indentSpacing, this.opts.maxWidth - continued);
    return [this.wrap(first, continued - this.indentSpacing), ...rest.map((next) => this.wrap(next, continued))].join('\n').split('\n').join(' \\\n  ');
  }

  /** `$ bin command [ARGS] [--flag VALUE] …`, broken between flags, never inside a group, under the width. */
  protected override usage(): string {
    const { id, usage } = this.command;
    const usages = usage === undefined ? [this.defaultUsage()] : [usage].flat();
    return usages.map((text) => this.usageLines(id, text)).join('\n');
  }

  private usageLines(id: string, text: string): string {
    const rest = this.render(text.replace('<%= command.id %>', '').trim())
      .replace(new RegExp(`^${id.replaceAll(':', '[: ]')}\\b`), '')
      .replace(/ +([\])])/g, '$1');
    const parts = partsOf(`$ ${this.config.bin} ${id} ${rest}`.trim());
    const [first = '', ...more] = packParts(parts, this.opts.maxWidth - this.indentSpacing, this.opts.maxWidth - 2 * this.indentSpacing);
    return [this.wrap(first), ...more.map((line) => this.indent(this.wrap(line, 2 * this.indentSpacing)))].join('\n');
  }
}

export default class PackageSdkHelp extends Help {
  protected override CommandHelpClass = PackageSdkCommandHelp;
  /** Whether a list of commands is being made, where a summary is a cell that the list wraps itself. */
  private listing = false;

  constructor(config: Interfaces.Config, opts: Partial<Interfaces.HelpOptions> = {}) {
    super(config, { ...opts, maxWidth: opts.maxWidth ?? helpWidth() });
  }

  override wrap(body: string, spacing = this.indentSpacing): string {
    return wrapKeepingItems(body, spacing, (text, width) => super.wrap(text, width));
  }

  protected override summary(command: Command.Loadable): string | undefined {
    const summary = super.summary(command);
    return summary === undefined || this.listing ? summary : this.wrap(summary, 0);
  }

  protected override formatCommands(commands: Command.Loadable[]): string {
    this.listing = true;
    try {
      return super.formatCommands(commands);
    } finally {
      this.listing = false;
    }
  }

  override formatRoot(): string {
    return this.wrapFirstLine(super.formatRoot());
  }

  protected override formatTopic(topic: Interfaces.Topic): string {
    return this.wrapFirstLine(super.formatTopic(topic));
  }

  private wrapFirstLine(text: string): string {
    const [first = '', ...rest] = text.split('\n');
    return [this.wrap(first, 0), ...rest].join('\n');
  }
}
