/** Every command's --help has a summary and at least one example a reader can paste. */
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const COMMANDS = join(import.meta.dirname, '../../src/commands');

function commandFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? commandFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

describe('command help', () => {
  it.each(commandFiles(COMMANDS).map((file) => [relative(COMMANDS, file), file]))('%s has a summary and examples', async (_name, file) => {
    const { default: command } = (await import(file)) as { default: { summary?: string; examples?: unknown[] } };
    expect(command.summary, 'summary').toBeTruthy();
    expect(command.examples?.length ?? 0, 'examples').toBeGreaterThan(0);
    for (const example of command.examples ?? []) {
      const text = typeof example === 'string' ? example : (example as { command: string }).command;
      expect(text).toContain('<%= config.bin %> <%= command.id %>');
    }
  });
});
