/**
 * Where the conformance suite finds the corpus written by the formats' authors: PACKAGE_SDK_CORPUS, set by
 * scripts/conformance.mjs (default ../shared/corpus). The reference and its conformance tool stand beside
 * the corpus (PACKAGE_SDK_REFERENCE and PACKAGE_SDK_TOOLS override them).
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

export const CORPUS = resolve(ROOT, process.env.PACKAGE_SDK_CORPUS ?? '../shared/corpus');
export const REFERENCE = resolve(process.env.PACKAGE_SDK_REFERENCE ?? join(dirname(CORPUS), 'reference'));
export const TOOLS = resolve(process.env.PACKAGE_SDK_TOOLS ?? join(dirname(CORPUS), 'tools'));

if (!existsSync(CORPUS)) throw new Error(`no corpus at ${CORPUS} — set PACKAGE_SDK_CORPUS to the corpus folder`);

/** A path inside the corpus. */
export const corpus = (...parts: string[]): string => join(CORPUS, ...parts);
