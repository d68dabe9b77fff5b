/**
 * `package-sdk mcp` as an AI assistant uses it: the SDK's own client talks to the built CLI over stdio. It lists
 * the tools and resources, checks a broken package, fixes it with `edit`, checks it clean, plans its installation
 * against the embedded core, and applies the plan — only once it confirms with the plan's hash.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI } from '../support/cli.js';
import { FIXTURES, overlay } from '../support/overlay.js';

const root = overlay(join(FIXTURES, 'edit/packages'), { 'packages.yaml': 'apiVersion: taimen.ai/v1\nkind: Installation\nkey: dev\nspec:\n  packages: [intake]\n' });
const PROCESS = 'intake/processes/intake.yaml';
writeFileSync(join(root, PROCESS), readFileSync(join(root, PROCESS), 'utf8').replace('taskType: intake-review', 'taskType: intake-reveiw'));

const client = new Client({ name: 'package-sdk-test', version: '1.0.0' });
const transport = new StdioClientTransport({
  command: process.execPath,
  args: [CLI, 'mcp', '--root', root],
  env: { ...(process.env as Record<string, string>), PACKAGE_SDK_CACHE: join(root, '.cache'), PACKAGE_SDK_SERVERS: 'local' },
  stderr: 'pipe',
});

beforeAll(async () => client.connect(transport), 60_000);
afterAll(async () => {
  await client.close();
  rmSync(root, { recursive: true, force: true });
});

type Structured = Record<string, unknown>;
async function call(name: string, args: Record<string, unknown>): Promise<{ isError: boolean; result: Structured }> {
  const answer = await client.callTool({ name, arguments: args });
  const text = (answer.content as { type: string; text: string }[])[0]!.text;
  return { isError: answer.isError === true, result: (answer.structuredContent as Structured | undefined) ?? (JSON.parse(text) as Structured) };
}

describe('package-sdk mcp', () => {
  it('lists its tools, each with a schema for its arguments and its result', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['check', 'test', 'describe', 'edit', 'plan', 'apply']);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
    }
    expect((tools.find((tool) => tool.name === 'apply')!.inputSchema.required as string[]).sort()).toEqual(['confirm', 'plan', 'planHash']);
  });

  it('offers the schema reference, the JSON Schemas and the findings catalogue as resources', async () => {
    const { resources } = await client.listResources();
    expect(resources.map((resource) => resource.uri)).toEqual(expect.arrayContaining([
      'package-sdk://docs/schema-reference.md', 'package-sdk://docs/findings.md', 'package-sdk://findings.json', 'package-sdk://schema/v1/object.schema.json',
    ]));
    const catalog = await client.readResource({ uri: 'package-sdk://findings.json' });
    const codes = JSON.parse((catalog.contents[0] as { text: string }).text) as { code: string }[];
    expect(codes.map((info) => info.code)).toContain('unknown_task_type');
    const reference = await client.readResource({ uri: 'package-sdk://docs/schema-reference.md' });
    expect((reference.contents[0] as { text: string }).text).toContain('processSpec');
  });

  it('checks a broken package, edits it, checks it clean, plans it and applies the plan once confirmed', async () => {
    const broken = await call('check', { package: 'intake' });
    expect(broken.isError).toBe(false);
    expect(broken.result.ok).toBe(false);
    const [finding] = broken.result.errors as { code: string; file: string; path: string; hint?: string }[];
    expect(finding).toMatchObject({ code: 'unknown_task_type', file: PROCESS, path: '/spec/stages/1/steps/0/human/taskType' });

    const refused = await call('edit', { operation: 'set', file: PROCESS, path: finding!.path, value: 'still-unknown' });
    expect(refused.isError).toBe(true);
    expect((refused.result.error as { code: string }).code).toBe('edit_invalid');

    const edited = await call('edit', { operation: 'set', file: PROCESS, path: finding!.path, value: 'intake-review' });
    expect(edited.isError).toBe(false);
    expect(edited.result).toMatchObject({ operation: 'set', written: true, files: [{ file: PROCESS }] });

    const clean = await call('check', { package: 'intake' });
    expect(clean.result).toMatchObject({ ok: true, errors: [] });

    const planned = await call('plan', { install: 'packages.yaml', server: 'local' });
    expect(planned.isError, JSON.stringify(planned.result)).toBe(false);
    expect(planned.result).toMatchObject({ out: 'plan.json', server: 'http://localhost/local' });
    expect(planned.result.planHash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(planned.result.changes).toBeGreaterThan(0);

    const unconfirmed = await call('apply', { plan: 'plan.json', planHash: planned.result.planHash, confirm: false });
    expect(unconfirmed.isError).toBe(true);
    expect((unconfirmed.result.error as { code: string }).code).toBe('apply_not_confirmed');
    const otherHash = await call('apply', { plan: 'plan.json', planHash: `sha256:${'0'.repeat(64)}`, confirm: true });
    expect((otherHash.result.error as { code: string }).code).toBe('apply_not_confirmed');

    const applied = await call('apply', { plan: 'plan.json', planHash: planned.result.planHash, confirm: true });
    expect(applied.isError, JSON.stringify(applied.result)).toBe(false);
    expect(applied.result.planHash).toBe(planned.result.planHash);
    expect((applied.result.applied as unknown[]).length).toBeGreaterThan(0);
  }, 120_000);

  it('refuses paths outside its root and cores it was not given', async () => {
    const outside = await call('check', { package: '../elsewhere' });
    expect((outside.result.error as { code: string }).code).toBe('path_outside_root');
    const server = await call('plan', { install: 'packages.yaml', server: 'https://cp.example.com' });
    expect((server.result.error as { code: string }).code).toBe('server_not_allowed');
  });
});
