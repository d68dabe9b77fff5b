/** The test vectors of compat-package-sdk-install §7 that belong to plans: canonical JSON, digests, hashes. */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJson } from '../../src/load/json.js';
import { lockHash } from '../../src/sources/lock-file.js';
import { canonicalJson, prettyJson, pythonStr } from '../../src/json/canonical.js';
import { digest } from '../../src/json/digest.js';
import { packageFiles } from '../../src/plan/core-section.js';
import { loadPackage } from '../../src/load/package.js';
import { planHashOf, readPlanFile, seal, writePlanFile, type PlanDocument } from '../../src/plan/document.js';

const EMPTY_LOCK_HASH = 'sha256:4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945';
const EMPTY_VARIABLES_HASH = 'sha256:f8172d94072561b185ff9517720beba6857162af369803308a6a8f7f05608a11';

describe('canonical JSON and digest (§3, §7)', () => {
  it('writes the reference vector byte for byte, floats as Python prints them', () => {
    const text = '{"b": 1.0, "a": "é\\n/\\"\\\\\\t\\u0001", "c": [1, 2.5, true, null, 1e16, 1e-7, 100000000000000000000], "Z": {}, "é": 1, "ä": 2}';
    const { document } = parseJson(text, 'vector.json');
    const canonical = canonicalJson(document!.value, document!.floats);
    expect(canonical).toBe('{"Z": {}, "a": "é\\n/\\"\\\\\\t\\u0001", "b": 1.0, "c": [1, 2.5, true, null, 1e+16, 1e-07, 100000000000000000000], "ä": 2, "é": 1}');
    expect(digest(document!.value, document!.floats)).toBe('sha256:8463328c9d90d13c891b5350fab474786fdcb7dd0db6f9239066e09124464168');
  });

  it('variablesHash of an installation without packages, and of the claims values', () => {
    expect(digest({ packages: {}, installation: {} })).toBe(EMPTY_VARIABLES_HASH);
    const id = '11111111-2222-4333-8444-555555555555';
    expect(digest({ packages: { 'acme-claims': { CLAIMS_WORKSPACE_ID: id, HELPDESK_URL: 'https://helpdesk.example.com/api' } }, installation: { CLAIMS_WORKSPACE_ID: id } }))
      .toBe('sha256:f1884b330b709d6b11f3c7ed1251f313eb094f9a33b5f7d9bd12c6650b845350');
  });

  it('lockHash of no packages, whose entries are the empty list', () => {
    expect(lockHash([])).toBe(EMPTY_LOCK_HASH);
    expect(digest([])).toBe(EMPTY_LOCK_HASH);
  });

  it('planHash of the minimal document', () => {
    const document = {
      format: 'package-sdk.plan/v1', server: 'https://platform.example.com', engines: { 'control-plane': '0.9.0' },
      createdAt: '2026-09-30T10:00:00+00:00', installation: 'acme-prod', install: 'packages.yaml',
      lockHash: EMPTY_LOCK_HASH, variablesHash: EMPTY_VARIABLES_HASH, overwriteConsole: false,
      sections: [{ kind: 'catalog', changes: [] }, { kind: 'knowledge', register: [], enable: [] }, { kind: 'notification-rules', changes: [] }, { kind: 'retire', items: [] }],
    };
    expect(planHashOf(document, new Set())).toBe('sha256:f8a061fee61b62f7b0fdf7853cea2733245c2619355529c6d9c91345beac15e2');
  });

  it('turns scalars into text as Python str() does (variable defaults, versions)', () => {
    expect([pythonStr(true), pythonStr(false), pythonStr(null), pythonStr(2500), pythonStr(2, true), pythonStr(0.5), pythonStr('1.2.0')])
      .toEqual(['True', 'False', 'None', '2500', '2.0', '0.5', '1.2.0']);
  });

  it('orders core request files by path parts in code-point order, not as plain strings', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'core-files-')), 'order');
    // U+FF02 sorts before U+1F600 by code points, after it by UTF-16 units; `.hidden` and `notes.txt` are not sent.
    const names = ['a-c.yaml', 'a/b.yaml', 'a.yaml', 'B.yaml', 'a/_x.yaml', 'a/b/c.json', '\u{1F600}.yaml', '\uFF02.yaml', '.hidden/x.yaml', 'notes.txt'];
    try {
      for (const name of names) {
        mkdirSync(dirname(join(dir, name)), { recursive: true });
        writeFileSync(join(dir, name), 'x: 1\n');
      }
      writeFileSync(join(dir, 'package.yaml'), 'apiVersion: taimen.ai/v1\nkind: Package\nkey: order\nspec: {version: 1.0.0}\n');
      const { package: pkg } = await loadPackage(dir);
      expect((await packageFiles(pkg!, {})).map((file) => file.path)).toEqual(
        ['B.yaml', 'a/_x.yaml', 'a/b/c.json', 'a/b.yaml', 'a-c.yaml', 'a.yaml', 'package.yaml', '\uFF02.yaml', '\u{1F600}.yaml'],
      );
    } finally {
      rmSync(dirname(dir), { recursive: true, force: true });
    }
  });
});

describe('the plan file', () => {
  const minimal = (): Omit<PlanDocument, 'planHash'> => ({
    format: 'package-sdk.plan/v1', server: 'https://platform.example.com', engines: { 'control-plane': '0.9.0' }, createdAt: '2026-09-30T10:00:00+00:00',
    installation: 'acme-prod', install: 'packages.yaml', lockHash: EMPTY_LOCK_HASH, variablesHash: EMPTY_VARIABLES_HASH, overwriteConsole: false,
    sections: [
      { kind: 'catalog', changes: [] },
      { kind: 'core', package: 'p', planHash: `sha256:${'a'.repeat(64)}`, plan: { planHash: `sha256:${'a'.repeat(64)}`, ratio: 1 }, replayLimit: 50 },
      { kind: 'knowledge', register: [], enable: [] }, { kind: 'notification-rules', changes: [] }, { kind: 'retire', items: [] },
    ],
  });

  it('is written as Python json.dumps(indent=2) and read back with the same hash, floats kept', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'plan-file-'));
    try {
      const floats = new Set(['/sections/1/plan/ratio']);
      const sealed = seal(minimal(), floats);
      const file = join(dir, 'plan.json');
      await writePlanFile(file, sealed);
      const text = readFileSync(file, 'utf8');
      expect(text).toContain('\n      "plan": {\n        "planHash": "sha256:');
      expect(text).toContain('"ratio": 1.0\n');
      expect(text.endsWith('}\n')).toBe(true);
      expect(text).toBe(prettyJson(sealed.document, floats));
      const read = await readPlanFile(file);
      expect(read.document.planHash).toBe(sealed.document.planHash);
      expect(sealed.document.planHash).not.toBe(seal(minimal(), new Set()).document.planHash);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses sections out of order and an edited document', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'plan-file-'));
    try {
      const file = join(dir, 'plan.json');
      const reordered = minimal();
      reordered.sections = [reordered.sections[2]!, reordered.sections[0]!, ...reordered.sections.slice(3)];
      await writePlanFile(file, seal(reordered, new Set()));
      await expect(readPlanFile(file)).rejects.toMatchObject({ code: 'plan_invalid', message: expect.stringContaining('expected catalog, core, knowledge') });
      const sealed = seal(minimal(), new Set());
      await writePlanFile(file, { ...sealed, document: { ...sealed.document, install: 'other.yaml' } });
      await expect(readPlanFile(file)).rejects.toMatchObject({ code: 'plan_modified' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
