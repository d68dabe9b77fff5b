/**
 * What `bundle sign|verify|validate|run` do between parsing their flags and printing, in process through the
 * library functions the commands call (the built CLI itself is exercised by cli.test.ts).
 */
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Refusal } from '../../src/fs/refusal.js';
import { trustKey } from '../../src/bundle/index.js';
import { writeKeyPair } from '../../src/bundle/keys.js';
import { renderStoredBundle, renderTrace, renderValidation } from '../../src/report/bundle.js';
import { parseJson } from '../../src/json/parse.js';
import { runBundleFile } from '../../src/bundle/run.js';
import { signatureFileText, signBundleFile, verifyBundleFile } from '../../src/bundle/signature.js';
import { validateBundleFiles } from '../../src/bundle/validate.js';
import { paintFor } from '../../src/report/paint.js';
import {
  KEYS, REPAIR_BUNDLE, REPAIR_FACTS, REPAIR_INPUT, REPAIR_TOOLS, RFC_KEY_ID, specText, tamperedRepairText, tempDir,
} from './helpers.js';

const plain = paintFor({ isTTY: false });

/** The failure `attempt` throws, for its code, message and exit status. */
function failureOf(attempt: () => unknown): Refusal {
  try {
    attempt();
  } catch (error) {
    expect(error).toBeInstanceOf(Refusal);
    return error as Refusal;
  }
  return expect.unreachable('no failure');
}

/** A temporary file holding `text`. */
function jsonFile(text: string): string {
  const file = join(tempDir(), 'input.json');
  writeFileSync(file, text);
  return file;
}

/** A copy of the repair-orders bundle signed with the RFC 8032 key, in a fresh directory. */
function signedCopy(): { dir: string; file: string } {
  const dir = tempDir();
  const file = join(dir, 'bundle.json');
  copyFileSync(REPAIR_BUNDLE, file);
  signBundleFile({ file, key: join(KEYS, 'rfc8032.key') });
  return { dir, file };
}

describe('bundle sign / verify', () => {
  it('signs with the RFC 8032 key exactly as kernos, next to the bundle, and verifies against a data directory', () => {
    const dir = tempDir();
    const file = join(dir, 'bundle.json');
    copyFileSync(REPAIR_BUNDLE, file);
    const signed = signBundleFile({ file, key: join(KEYS, 'rfc8032.key') });
    expect(signed).toEqual({ file: join(dir, 'bundle.sig.json'), algorithm: 'ed25519', key_id: RFC_KEY_ID, sha256: REPAIR_FACTS.sha256, signature: REPAIR_FACTS.rfc8032Signature });
    expect(readFileSync(signed.file, 'utf8')).toBe(signatureFileText(signed));
    trustKey(join(KEYS, 'rfc8032.pub'), join(dir, 'data'));
    expect(verifyBundleFile({ file, trust: join(dir, 'data') })).toEqual({
      ok: true, key_id: RFC_KEY_ID, sha256: REPAIR_FACTS.sha256, signature_file: signed.file, trust: join(dir, 'data'),
    });
  });

  it('trusts a directory of .pub files or one public key file as well, and no trust store at all as nothing trusted', () => {
    const { dir, file } = signedCopy();
    mkdirSync(join(dir, 'pubs'));
    copyFileSync(join(KEYS, 'rfc8032.pub'), join(dir, 'pubs/publisher.pub'));
    expect(verifyBundleFile({ file, trust: join(dir, 'pubs') }).key_id).toBe(RFC_KEY_ID);
    expect(verifyBundleFile({ file, trust: join(KEYS, 'rfc8032.pub') }).key_id).toBe(RFC_KEY_ID);
    expect(failureOf(() => verifyBundleFile({ file, trust: join(dir, 'nowhere') }))).toMatchObject({ code: 'bundle_signature_invalid', message: `key ${RFC_KEY_ID} is not trusted` });
  });

  it.each([
    ['a tampered bundle', 'tamper', 'signature does not verify over the canonical bundle'],
    ['an untrusted key', 'untrusted', `key ${RFC_KEY_ID} is not trusted`],
    ['a padded signature', 'pad', 'signature does not verify over the canonical bundle'],
    ['a key trusted under the same id but another key', 'wrong-key', 'signature does not verify over the canonical bundle'],
  ])('refuses %s with bundle_signature_invalid, exit 1', (_, how, message) => {
    const { dir, file } = signedCopy();
    const data = join(dir, 'data');
    if (how !== 'untrusted' && how !== 'wrong-key') trustKey(join(KEYS, 'rfc8032.pub'), data);
    if (how === 'tamper') writeFileSync(file, tamperedRepairText());
    if (how === 'pad') {
      const sig = JSON.parse(readFileSync(join(dir, 'bundle.sig.json'), 'utf8'));
      writeFileSync(join(dir, 'bundle.sig.json'), JSON.stringify({ ...sig, signature: `${sig.signature}==` }));
    }
    if (how === 'wrong-key') {
      const other = writeKeyPair(join(dir, 'other'));
      writeFileSync(join(dir, 'impostor.pub'), JSON.stringify({ key_id: RFC_KEY_ID, public_key: other.public_key }));
      trustKey(join(dir, 'impostor.pub'), data);
    }
    expect(failureOf(() => verifyBundleFile({ file, trust: data }))).toMatchObject({ code: 'bundle_signature_invalid', message, exitCode: 1 });
  });

  it('validates before signing unless --no-validate', () => {
    const dir = tempDir();
    const file = join(dir, 'b.json');
    writeFileSync(file, specText().replace('"version": "2.1.0"', '"version": "2.1"'));
    const refused = failureOf(() => signBundleFile({ file, key: join(KEYS, 'rfc8032-seed.hex') }));
    expect(refused).toMatchObject({ code: 'bundle_invalid', exitCode: 1, details: { path: 'version', line: 4 } });
    expect(existsSync(join(dir, 'b.sig.json'))).toBe(false);
    const signed = signBundleFile({ file, key: join(KEYS, 'rfc8032-seed.hex'), validate: false, out: join(dir, 'sig.json') });
    expect(JSON.parse(readFileSync(join(dir, 'sig.json'), 'utf8')).key_id).toBe('rfc8032-seed');
    expect(signed.file).toBe(join(dir, 'sig.json'));
  });

  it('says what is missing: a signature file, a key file (exit 2)', () => {
    const dir = tempDir();
    const file = join(dir, 'bundle.json');
    copyFileSync(REPAIR_BUNDLE, file);
    expect(failureOf(() => verifyBundleFile({ file, trust: KEYS }))).toMatchObject({ code: 'usage', exitCode: 2, message: `signature file ${join(dir, 'bundle.sig.json')} does not exist` });
    expect(failureOf(() => signBundleFile({ file, key: join(dir, 'none.key') })).exitCode).toBe(2);
  });
});

describe('bundle validate', () => {
  it('reports every error with file:line:col beside the summary of a valid bundle', () => {
    const dir = tempDir();
    const file = join(dir, 'b.json');
    const bundle = JSON.parse(specText());
    bundle.name = 'Bad.Name';
    delete bundle.workflows.intake.steps[3].idempotency_key;
    writeFileSync(file, JSON.stringify(bundle, null, 2));
    const result = validateBundleFiles([file, REPAIR_BUNDLE]);
    expect(result).toMatchObject({ ok: false, unreadable: false, warnings: [] });
    expect(result.errors.map((e) => [e.details.path, e.file, e.line])).toEqual([['name', file, 3], ['workflows.intake.steps.3.idempotency_key', file, 142]]);
    expect(result.bundles[1]).toMatchObject({ ok: true, name: REPAIR_FACTS.name, version: REPAIR_FACTS.version, workflows: 5, steps: 20 });
    const text = renderValidation({ ...result }, plain, false);
    expect(text).toContain(`${file}:3:11: error name_invalid: name: name must be at most 120 characters`);
    expect(text.split('\n').slice(-3)).toEqual([`${file}: invalid`, `${REPAIR_BUNDLE}: ok — brightwater.workshop.repair_orders@1.4.0 (workshop): 5 workflows, 20 steps`, '2 errors, 0 warnings']);
  });

  it('--first prints the control plane single error in its words', () => {
    const dir = tempDir();
    const file = join(dir, 'b.json');
    writeFileSync(file, specText().replace('"tier": "cheap"', '"tier": "huge"').replace('"version": "2.1.0"', '"version": "1.0"'));
    const result = validateBundleFiles([file], { first: true });
    expect(result.errors).toHaveLength(1);
    expect(renderValidation(result, plain, true)).toBe(`${file}: error: bundle is invalid at version: version "1.0" is not a semantic version MAJOR.MINOR.PATCH`);
  });

  it('tells a file that is not JSON or is missing (exit 2) from an invalid bundle (exit 1)', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'x.json'), '{"format": ');
    const notJson = validateBundleFiles([join(dir, 'x.json')]);
    expect(notJson).toMatchObject({ ok: false, unreadable: true, errors: [{ code: 'invalid_json', file: join(dir, 'x.json'), line: 1, column: 12 }] });
    expect(validateBundleFiles([join(dir, 'missing.json')])).toMatchObject({ ok: false, unreadable: true, errors: [{ code: 'usage', rule: 'file_unreadable' }] });
    writeFileSync(join(dir, 'bad.json'), specText().replace('"format": "kernos.bundle/1"', '"format": "kernos.bundle/2"'));
    expect(validateBundleFiles([REPAIR_BUNDLE, join(dir, 'bad.json')])).toMatchObject({ ok: false, unreadable: false });
  });
});

describe('bundle run', () => {
  it('prints a trace that ends with the failure, after the compensations newest first', () => {
    const trace = runBundleFile({ file: REPAIR_BUNDLE, workflow: 'reserve_twice_then_break', input: REPAIR_INPUT, tools: REPAIR_TOOLS });
    const lines = renderTrace(trace, plain).split('\n');
    expect(lines[0]).toBe(`run ${trace.run_id}  brightwater.workshop.repair_orders@1.4.0  workflow reserve_twice_then_break`);
    expect(lines).toContain('  ✓ reserve_second  tool stores.reserve_part');
    expect(lines).toContain('      idempotency key RO-4471-2');
    expect(lines.slice(lines.indexOf('compensations (newest first):') + 1).filter((l) => l.startsWith('  ✓'))).toEqual([
      '  ✓ reserve_second  compensation stores.release_part', '  ✓ reserve_first  compensation stores.release_part',
    ]);
    expect(lines.at(-1)).toBe('run failed at step crash: tool_failed: the test tool breaks on purpose');
  });

  it('takes the input inline, and the refusals and confidences as kernos spells them', () => {
    const inline = '{"order_id": "RO-7", "machine_id": "TH-1", "report": "Tyre flat", "quote": 80.5, "stock": ["TY-20"]}';
    const refused = runBundleFile({ file: REPAIR_BUNDLE, workflow: 'repair', input: inline, tools: REPAIR_TOOLS, refuse: 'parts, triage' });
    expect(refused.steps.map((s) => [s.id, s.status])).toEqual([['triage', 'parked']]);
    const unsure = runBundleFile({ file: REPAIR_BUNDLE, workflow: 'repair', input: inline, tools: REPAIR_TOOLS, confidence: 'parts=0.4,triage=0.9' });
    expect(unsure.steps.at(-1)).toMatchObject({ id: 'pick_part', status: 'parked' });
    expect(renderTrace(unsure, plain).split('\n').at(-1)).toBe('run parked');
  });

  it.each([
    ['a confidence without a value', { confidence: 'parts' }, '--confidence expects prompt=number pairs separated by commas, got "parts"'],
    ['an input that is not JSON', { input: '{"order_id": ' }, '--input is not valid JSON'],
    ['an input file that is missing', { input: 'no-such-input.json' }, 'input file no-such-input.json does not exist'],
    ['an input that is an array', { input: '[]' }, '--input must be a JSON object (the workflow\'s input by field), got an array'],
  ])('refuses %s as a usage error (exit 2)', (_, flags, message) => {
    const failure = failureOf(() => runBundleFile({ file: REPAIR_BUNDLE, workflow: 'repair', input: REPAIR_INPUT, tools: REPAIR_TOOLS, ...flags }));
    expect(failure).toMatchObject({ code: 'usage', exitCode: 2 });
    expect(failure.message).toContain(message);
  });

  it.each([['null', 'got null'], ['"s"', 'got a string'], ['7', 'got a number']])('refuses an input file of %s as a usage error: the input is an object', (text, message) => {
    const failure = failureOf(() => runBundleFile({ file: REPAIR_BUNDLE, workflow: 'repair', input: jsonFile(text), tools: REPAIR_TOOLS }));
    expect(failure).toMatchObject({ code: 'usage', exitCode: 2 });
    expect(failure.message).toContain(message);
  });

  it.each([['a directory', (dir: string) => dir], ['a name ending in a separator', (dir: string) => `${dir}/keys/`]])('refuses to make keys under %s, which would write hidden .key and .pub files', (_, out) => {
    const dir = tempDir();
    const failure = failureOf(() => writeKeyPair(out(dir)));
    expect(failure).toMatchObject({ code: 'usage', exitCode: 2 });
    expect(failure.message).toMatch(/--out .* names a directory: give a base name such as .*publisher/);
    expect(existsSync(join(dir, '.key'))).toBe(false);
  });

  it('refuses a tools file that is not a JSON object of results (exit 2)', () => {
    const tools = join(tempDir(), 'tools.json');
    writeFileSync(tools, '["stores.reserve_part"]');
    expect(failureOf(() => runBundleFile({ file: REPAIR_BUNDLE, workflow: 'repair', input: REPAIR_INPUT, tools })))
      .toMatchObject({ code: 'usage', exitCode: 2, message: `--tools ${tools} must be a JSON object of results by tool id` });
  });
});

describe('bundle show', () => {
  const stored = () => ({
    bundle_id: 'bnd_01', name: 'x', version: '0.0.1', department: null,
    bundle: parseJson('{"format":"kernos.bundle/1","limits":{"total":7250.0}}').value, signature: { algorithm: 'ed25519', key_id: 'k' },
  });

  it('pretty-prints the bundle and its signature on a terminal, numbers as written', () => {
    expect(renderStoredBundle(stored(), true)).toBe([
      'bundle_id   bnd_01', 'name        x', 'version     0.0.1', 'department  null',
      'bundle', '  {', '    "format": "kernos.bundle/1",', '    "limits": {', '      "total": 7250.0', '    }', '  }',
      'signature', '  {', '    "algorithm": "ed25519",', '    "key_id": "k"', '  }',
    ].join('\n'));
  });

  it('keeps one compact line per field for scripts', () => {
    expect(renderStoredBundle(stored(), false).split('\n')).toContain('bundle      {"format":"kernos.bundle/1","limits":{"total":7250.0}}');
  });
});

describe('a named pipe given as a file', () => {
  it('is refused by every bundle and key reader without blocking', () => {
    const fifo = join(tempDir(), 'bundle.json');
    execFileSync('mkfifo', [fifo]);
    // A reader that blocks on the pipe would hold this worker forever: a writer comes by after 3 s, so it fails instead.
    spawn('timeout', ['6', 'sh', '-c', `sleep 3; : > '${fifo}'`], { stdio: 'ignore', detached: true }).unref();
    const readers: [string, () => unknown][] = [
      ['validate', () => validateBundleFiles([fifo]).errors[0]?.message],
      ['sign', () => signBundleFile({ file: fifo, key: join(KEYS, 'rfc8032.key') })],
      ['trust', () => trustKey(fifo, tempDir())],
      ['run input', () => runBundleFile({ file: REPAIR_BUNDLE, workflow: 'repair', input: fifo, tools: REPAIR_TOOLS })],
    ];
    for (const [name, read] of readers) {
      let said: string;
      try {
        said = String(read());
      } catch (error) {
        said = (error as Error).message;
      }
      expect(said, name).toContain('a named pipe is not a regular file');
    }
  }, 10_000);
});
