/** `describe` and the generated README sections, on our packages and on a fresh copy. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describePackage, envExample } from '../../src/docs/describe.js';
import { BEGIN_MARKER, DIAGRAMS_BEGIN_MARKER, DIAGRAMS_END_MARKER, END_MARKER, packageDocs, withDiagrams, withSections } from '../../src/docs/package-readme.js';
import { expectWriteRestores } from './readme-docs.js';

const FIXTURES = resolve(import.meta.dirname, '../../fixtures');
const VENUE_BOOKING = join(FIXTURES, 'packages/venue-booking');
const FIELD_MAINTENANCE = join(FIXTURES, 'example/packages/field-maintenance');

describe('describe', () => {
  it('lists what an installation of venue-booking needs', async () => {
    const booking = await describePackage(VENUE_BOOKING);
    expect(booking.variables).toEqual([
      { name: 'BOOKING_WORKSPACE_ID', kind: 'workspace', required: true, description: 'Workspace of the venue office — its bookings, tasks and payment observations' },
      { name: 'DEPOSIT_PERCENT', kind: 'integer', required: false, default: '30', description: 'Share of the hall price the organizer pays in advance' },
      { name: 'PAYMENTS_URL', kind: 'url', required: true, example: 'https://pay.example.org/v1', description: 'API of the payment provider that collects the deposits' },
    ]);
    expect(booking.engines).toEqual({ 'control-plane': '>=0.10,<0.11' });
    expect(booking.ontologies).toEqual(['default@1', 'venues@1']);
    expect(booking.requires).toEqual([]);
    expect(booking.agents).toEqual([
      { key: 'booking-process', runs: false, nodeLabels: [], secrets: [] },
      { key: 'booking-skills', executor: 'skills', runs: true, nodeLabels: ['payments-egress'], secrets: ['payments-client-key'] },
    ]);
  });

  it('lists settings fields by path with their types, required flags and defaults', async () => {
    const maintenance = await describePackage(FIELD_MAINTENANCE);
    expect(maintenance.settings).toEqual([
      { path: 'repairDueWorkdays', type: 'integer', required: true, default: 2 },
      { path: 'serviceIntervalHours', type: 'integer', required: false, default: 1000 },
      { path: 'lockOutUnsafeAssets', type: 'boolean', required: false, default: true },
      { path: 'escalationRole', type: 'string', required: false, default: 'maintenance-planner' },
    ]);
  });

  it('names a field of a nested settings object by its dotted path', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'package-sdk-describe-'));
    const manifest = [
      'apiVersion: taimen.ai/v1',
      'kind: Package',
      `key: ${dir.split('/').at(-1)}`,
      'spec:',
      '  version: 0.1.0',
      '  settings:',
      '    schema:',
      '      type: object',
      '      properties:',
      '        reception: {type: object, required: [desk], properties: {desk: {type: string}, hours: {type: object, properties: {opens: {type: string, default: "08:00"}}}}}',
      '',
    ].join('\n');
    writeFileSync(join(dir, 'package.yaml'), manifest);
    const { settings } = await describePackage(dir);
    rmSync(dir, { recursive: true, force: true });
    expect(settings).toEqual([
      { path: 'reception.desk', type: 'string', required: true },
      { path: 'reception.hours.opens', type: 'string', required: false, default: '08:00' },
    ]);
  });

  it('prints a .env template: required variables to fill in, optional ones commented with their default', async () => {
    const text = envExample(await describePackage(VENUE_BOOKING));
    expect(text).toContain('\nBOOKING_WORKSPACE_ID=\n');
    expect(text).toContain('\n# DEPOSIT_PERCENT=30\n');
    expect(text).toContain('# example: https://pay.example.org/v1\nPAYMENTS_URL=\n');
  });
});

describe('docs package', () => {
  it('regenerates exactly the sections of the venue-booking README', async () => {
    const result = await packageDocs(VENUE_BOOKING);
    expect(result.fresh).toBe(true);
    expect(readFileSync(join(VENUE_BOOKING, 'README.md'), 'utf8')).toContain(result.sections);
  });

  it('--write replaces only the block between the markers; --check then passes', async () => {
    await expectWriteRestores(VENUE_BOOKING, '| Role | `venue-manager` | `roles/venue-manager.yaml` |\n');
  });

  it('puts a Mermaid diagram of each process in a block of its own after the sections', async () => {
    const result = await packageDocs(VENUE_BOOKING);
    const readme = readFileSync(join(VENUE_BOOKING, 'README.md'), 'utf8');
    expect(result.diagrams.startsWith(`${DIAGRAMS_BEGIN_MARKER}\n`)).toBe(true);
    expect(result.diagrams).toContain('#### Hall booking (`booking`, `processes/booking.yaml`)\n\n```mermaid\nflowchart TB\n');
    expect(readme.indexOf(result.diagrams)).toBeGreaterThan(readme.indexOf(END_MARKER));
  });

  it('--write brings back a diagram removed by hand', async () => {
    await expectWriteRestores(VENUE_BOOKING, '```mermaid\n');
  });

  it('puts the diagrams right after the sections of a README that has none, and removes them from a package without processes', () => {
    const readme = `# Title\n\n${BEGIN_MARKER}\nx\n${END_MARKER}\n\nMine.\n`;
    const block = `${DIAGRAMS_BEGIN_MARKER}\nd\n${DIAGRAMS_END_MARKER}`;
    const next = withDiagrams(readme, block);
    expect(next).toBe(`# Title\n\n${BEGIN_MARKER}\nx\n${END_MARKER}\n\n${block}\n\nMine.\n`);
    expect(withDiagrams(next, block)).toBe(next);
    expect(withDiagrams(next, '')).toBe(readme);
  });

  it('appends the block to a README without markers', () => {
    const text = withSections('# Title\n\nMine.\n', `${BEGIN_MARKER}\nx\n${END_MARKER}`);
    expect(text).toBe(`# Title\n\nMine.\n\n${BEGIN_MARKER}\nx\n${END_MARKER}\n`);
  });
});
