/**
 * Help reads evenly at any width: for the root, every topic and every command of the manifest, at 60, 80 and
 * 120 columns, no line is longer than the width, no line of a paragraph stops short of half its room unless
 * the paragraph ends there, and every text the commands declare is in their help, whole and in order.
 * In process with the help class the package configures (oclif renders help without running a command);
 * a few child processes show that the width follows OCLIF_COLUMNS and COLUMNS, in a pipe too.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Config, loadHelpClass, settings, type Help, type Interfaces } from '@oclif/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { helpWidth } from '../../src/cli/help.js';
import { prose, reflow } from '../../src/cli/help-text.js';
import { ROOT, runCli } from '../support/cli.js';

interface ManifestFlag {
  summary?: string;
  description?: string;
  hidden?: boolean;
}
interface ManifestCommand {
  id: string;
  summary?: string;
  description?: string;
  args: Record<string, { description?: string }>;
  flags: Record<string, ManifestFlag>;
  examples?: (string | { description: string; command: string })[];
}

const MANIFEST = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as { commands: Record<string, ManifestCommand> };
const PJSON = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { description: string; oclif: { topics: Record<string, { description: string }> } };
const COMMANDS = Object.values(MANIFEST.commands);
const TOPICS = Object.entries(PJSON.oclif.topics);
const WIDTHS = [60, 80, 120];
const ANSI = /\u001b\[[0-9;]*m/g;
/** A row of a two-column list: its label, two spaces or more, its text. */
const ROW = /^( *\S+(?: \S+)*? {2,})\S/;

let config: Interfaces.Config;
let HelpClass: typeof Help;
beforeAll(async () => {
  settings.enableAutoTranspile = false; // the built help class, as the package runs it, not its TypeScript source
  config = await Config.load(ROOT);
  HelpClass = (await loadHelpClass(config)) as typeof Help;
});

/** What `package-sdk <argv> --help` prints at `width` columns. */
async function helpOf(argv: string[], width: number): Promise<string> {
  const printed: string[] = [];
  const Capturing = class extends HelpClass {
    protected override log(...args: string[]): void {
      printed.push(...args);
    }
  };
  await new Capturing(config, { maxWidth: width, stripAnsi: true }).showHelp(argv);
  return printed.join('\n').replace(ANSI, '');
}

/** The column where a line's text starts: after a row's label, under a list item's text, or its indentation. */
function textColumn(line: string): number {
  const row = ROW.exec(line);
  if (row) return row[1]!.length;
  const indentation = line.length - line.trimStart().length;
  return line.trimStart().startsWith('- ') ? indentation + 2 : indentation;
}

/** Whether `next` goes on with the paragraph (or list cell) of `line` rather than starting something. */
function continues(line: string, next: string | undefined): boolean {
  if (next === undefined || next.trim() === '') return false;
  const indentation = next.length - next.trimStart().length;
  return indentation === textColumn(line) && !/^(- |\$ |<options: )/.test(next.trimStart());
}

/**
 * Lines that stop short of half the room their paragraph has, though the paragraph goes on. The usage and a
 * command of an example are not prose: they break between their arguments and never inside a group such as
 * `[--after STAGE | --before STAGE]` (a command's lines end with the shell's ` \`).
 */
function unevenLines(text: string, width: number): string[] {
  const lines = text.split('\n');
  let section = '';
  return lines.filter((line, index) => {
    if (/^[A-Z][A-Z ]+$/.test(line)) section = line;
    const column = textColumn(line);
    const prose = line.trim() !== '' && section !== 'USAGE' && !line.endsWith(' \\');
    return prose && continues(line, lines[index + 1]) && line.length - column < (width - column) / 2;
  });
}

/** The texts a command declares, as its help shows them (templates rendered). */
function declaredTexts(command: ManifestCommand): string[] {
  const render = (text: string) => text.replaceAll('<%= config.bin %>', config.bin).replaceAll('<%= command.id %>', command.id.replaceAll(':', ' '));
  const flags = Object.values(command.flags).filter((flag) => flag.hidden !== true);
  const examples = (command.examples ?? []).flatMap((example) => (typeof example === 'string' ? [example] : [example.description, example.command]));
  return [
    command.summary,
    command.description,
    ...Object.values(command.args).map((arg) => arg.description),
    ...flags.flatMap((flag) => [flag.summary, flag.description]),
    ...examples,
  ].filter((text): text is string => text !== undefined && text !== '').map(render);
}

/** Text without its line breaks, indentation and an example's continuation marks: what wrapping may change. */
function unwrapped(text: string): string {
  return text.replace(/ \\\n/g, ' ').replace(/\s+/g, '');
}

const SUBJECTS: [string, string[]][] = [
  ['the root', []],
  ...TOPICS.map(([topic]): [string, string[]] => [`topic ${topic}`, [topic]]),
  ...COMMANDS.map((command): [string, string[]] => [command.id.replaceAll(':', ' '), command.id.split(':')]),
];

describe.each(WIDTHS)('help at %i columns', (width) => {
  it.each(SUBJECTS)('%s: no line longer than the width, paragraphs even', async (_name, argv) => {
    const help = await helpOf(argv, width);
    expect(help).toContain('USAGE');
    expect(help.split('\n').filter((line) => line.length > width)).toEqual([]);
    expect(unevenLines(help, width)).toEqual([]);
    // A marker a user copies into a file (`<!-- package-sdk:docs -->`) is never broken across lines.
    expect(help.split('\n').filter((line) => /<!--(?!.*-->)/.test(line) || /^(?!.*<!--).*-->/.test(line))).toEqual([]);
  });

  it.each(COMMANDS.map((command): [string, ManifestCommand] => [command.id.replaceAll(':', ' '), command]))('%s: says everything it declares, in order', async (_name, command) => {
    const help = unwrapped(await helpOf(command.id.split(':'), width));
    for (const text of declaredTexts(command)) expect(help).toContain(unwrapped(text));
  });

  it('the root and the topics say their descriptions whole', async () => {
    expect(unwrapped(await helpOf([], width))).toContain(unwrapped(PJSON.description));
    for (const [topic, { description }] of TOPICS) expect(unwrapped(await helpOf([topic], width))).toContain(unwrapped(description));
  });
});

describe('the evenness check', () => {
  it('finds a hard break in a paragraph and a short line of a list cell', () => {
    const paragraph = `DESCRIPTION\n  ${'word '.repeat(15).trim()}\n  a short line\n  ${'word '.repeat(15).trim()}\n  the end`;
    expect(unevenLines(paragraph, 80)).toEqual(['  a short line']);
    const cell = `FLAGS\n  --flag  a\n          ${'word '.repeat(10).trim()}`;
    expect(unevenLines(cell, 80)).toEqual(['  --flag  a']);
  });

  it('lets a paragraph, a list item, a row, the usage and a command end short', () => {
    const text = `  ${'word '.repeat(15).trim()}\n  end\n\n  - item\n  - item\n  --flag  text\n  --other  text\n  $ package-sdk --mock \\\n    --input x \\\n    --tools y\nUSAGE\n  $ package-sdk edit add-stage --file FILE\n    --stage YAML\n    [--after STAGE | --before STAGE]`;
    expect(unevenLines(text, 80)).toEqual([]);
  });
});

describe('commands in examples', () => {
  it('break between arguments, never inside a quoted value that fits on a line', async () => {
    const help = await helpOf(['edit', 'add-step'], 60);
    expect(help).toContain("\n    --step '{id: notify, call: {skill: notify.send@1}}' \\\n");
    expect(help).toContain('\n    --in review \\\n');
  });

  it('stay on one line when they fit', async () => {
    expect(await helpOf(['keys', 'trust'], 60)).toContain('\n  $ package-sdk keys trust publisher.pub --data kernos-data\n');
  });
});

describe('descriptions as prose', () => {
  it('makes each paragraph one line and keeps paragraphs apart', () => {
    expect(reflow('One sentence broken\n  where the editor wanted.\n\nA second\nparagraph.\n')).toBe('One sentence broken where the editor wanted.\n\nA second paragraph.');
  });

  it('keeps a list item on a line of its own, with the lines that go on with it', () => {
    expect(reflow('Targets:\n- no argument → ./packages/*;\n- paths → files\n  or directories.\nAfter.')).toBe('Targets:\n- no argument → ./packages/*;\n- paths → files or directories. After.');
  });

  it('reflows a template with its values in', () => {
    const tail = 'Exit status: 0 edited,\n1 refused.';
    expect(prose`The edit keeps\nthe comments.\n\n${tail}`).toBe('The edit keeps the comments.\n\nExit status: 0 edited, 1 refused.');
  });
});

describe('the width of help', () => {
  it('is OCLIF_COLUMNS, else COLUMNS, else the terminal, else 80, and never under 40', () => {
    const terminal = { isTTY: true, columns: 132 };
    expect(helpWidth({ OCLIF_COLUMNS: '100', COLUMNS: '60' }, terminal)).toBe(100);
    expect(helpWidth({ COLUMNS: '60' }, terminal)).toBe(60);
    expect(helpWidth({}, terminal)).toBe(132);
    expect(helpWidth({ COLUMNS: 'wide' }, { isTTY: false })).toBe(80);
    expect(helpWidth({ COLUMNS: '20' }, terminal)).toBe(40);
  });
});

describe.concurrent('the width of help in a pipe', () => {
  const widest = (text: string) => Math.max(...text.split('\n').map((line) => line.length));
  it('is 80 columns by default', async () => {
    const out = await runCli(['check', '--help'], { env: { COLUMNS: undefined, OCLIF_COLUMNS: undefined } });
    expect(out.code, out.stderr).toBe(0);
    expect(widest(out.stdout)).toBeGreaterThan(70);
    expect(widest(out.stdout)).toBeLessThanOrEqual(80);
  });

  it('follows COLUMNS, as most command-line tools do', async () => {
    const out = await runCli(['check', '--help'], { env: { COLUMNS: '60', OCLIF_COLUMNS: undefined } });
    expect(widest(out.stdout)).toBeGreaterThan(50);
    expect(widest(out.stdout)).toBeLessThanOrEqual(60);
  });

  it('follows OCLIF_COLUMNS before COLUMNS', async () => {
    const out = await runCli(['plan', '-h'], { env: { COLUMNS: '60', OCLIF_COLUMNS: '120' } });
    expect(widest(out.stdout)).toBeGreaterThan(100);
    expect(widest(out.stdout)).toBeLessThanOrEqual(120);
  });
});
