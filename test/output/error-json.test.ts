/**
 * The error object of `--json` (src/report/json-error.ts) for each way a command fails — a refusal raised
 * with `this.error`, a bundle refusal with its details, a command line that does not parse, a bug — is valid
 * against schema/v1/cli/error.json and carries the exit status the text mode has. Also the second shape
 * of `check --json`, the list of codes.
 */
import { Errors } from '@oclif/core';
import { describe, expect, it } from 'vitest';
import { Refusal } from '../../src/fs/refusal.js';
import { runCheckRequest } from '../../src/cli/check.js';
import { errorJson, exitStatusOf } from '../../src/cli/json-command.js';
import { runCli } from '../support/cli.js';
import { schemaErrors, shapeText } from './support.js';

describe('the error object', () => {
  it('of a refusal raised with this.error: its code and exit status', () => {
    const refusal = new Errors.CLIError('no installation file packages.yaml', { exit: 2, code: 'file_not_found' });
    const json = errorJson(refusal, true);
    expect(json).toEqual({ error: { code: 'file_not_found', message: 'no installation file packages.yaml', exit: 2 } });
    expect(schemaErrors('error.json', json)).toBe('');
  });

  it('of a bundle refusal: the control plane details', () => {
    const json = errorJson(new Refusal('bundle_invalid', 'bundle is invalid at version', { exitCode: 1, details: { path: 'version' } }), true);
    expect(json).toEqual({ error: { code: 'bundle_invalid', message: 'bundle is invalid at version', exit: 1, details: { path: 'version' } } });
    expect(schemaErrors('error.json', json)).toBe('');
  });

  it('of a flag that fails to parse: usage, exit 2, even when the error says nothing of an exit', () => {
    const json = errorJson(new Error('Parsing --install \n\tNo file found at packages.yaml'), false);
    expect(json.error).toMatchObject({ code: 'usage', exit: 2 });
    expect(schemaErrors('error.json', json)).toBe('');
  });

  it('of a bug once the command line parsed: internal_error, exit 1', () => {
    const json = errorJson(new TypeError("Cannot read properties of undefined (reading 'key')"), true);
    expect(json.error).toMatchObject({ code: 'internal_error', exit: 1 });
    expect(schemaErrors('error.json', json)).toBe('');
  });

  it('never carries what oclif attaches to an error (its parse input, its configuration)', () => {
    const parseError = Object.assign(new Errors.CLIError('Nonexistent flag: --bogus', { exit: 2 }), { parse: { input: { argv: ['--bogus'] } }, showHelp: true });
    expect(Object.keys(errorJson(parseError, false).error)).toEqual(['code', 'message', 'exit']);
    expect(exitStatusOf(parseError, false)).toBe(2);
  });

  it('a flag that fails to parse exits 2 without --json too', async () => {
    const { code, stderr } = await runCli(['plan', '--install', 'no/such/packages.yaml', '--server', 'local', '--out', 'plan.json']);
    expect(stderr).toContain('No file found at no/such/packages.yaml');
    expect(code).toBe(2);
  });
});

describe('check --list-rules --json', () => {
  it('is the catalogue of codes, valid against check.json', async () => {
    const { result, exitCode } = await runCheckRequest({ paths: [], format: 'text', json: true, listRules: true, cache: false }, '0.0.0');
    expect(exitCode).toBe(0);
    expect(schemaErrors('check.json', result)).toBe('');
    await expect(shapeText(result)).toMatchFileSnapshot('snapshots/json/check-list-rules.shape.json');
  });
});
