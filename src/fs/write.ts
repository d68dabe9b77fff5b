/**
 * Writing files: whole or not at all. A new file never lands over an existing one; a replaced file is the old one
 * or the new one to any reader, never half of either; a failed write leaves nothing behind. Every file the
 * project writes for its users (package files, plans, locks, keys, signatures, reports) goes through here.
 */
import { link, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, basename } from 'node:path';
import { nodeCrypto } from './node-crypto.js';
import { Refusal } from './refusal.js';

export interface WriteOptions {
  /** Permissions of a file that is created (0o600 for a private key). */
  mode?: number;
  /** Create the missing directories above the file (default: true). */
  makeDirs?: boolean;
}

function tempPath(path: string): string {
  return join(dirname(path), `.${basename(path)}.${nodeCrypto().randomBytes(4).toString('hex')}.tmp`);
}

/** Creates `path` with `text`; refuses (`file_exists`) when something is already there. */
export async function createFile(path: string, text: string, shown = path): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temp = tempPath(path);
  try {
    await writeFile(temp, text, { flag: 'wx' });
    await link(temp, path); // atomic, and fails when the target exists: a race cannot overwrite a file
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new Refusal('file_exists', `${shown} already exists; package-sdk never overwrites a file`);
    throw error;
  } finally {
    await rm(temp, { force: true });
  }
}

/** Replaces `path` with `text` in one step (a temporary file beside it, then a rename). */
export async function replaceFile(path: string, text: string | Uint8Array, options: WriteOptions = {}): Promise<void> {
  if (options.makeDirs !== false) await mkdir(dirname(path), { recursive: true });
  const temp = tempPath(path);
  try {
    await writeFile(temp, text, { flag: 'wx', mode: options.mode });
    await rename(temp, path);
  } finally {
    await rm(temp, { force: true });
  }
}

/** `replaceFile` for synchronous callers (keys and signatures, read and written in one synchronous step). */
export function replaceFileSync(path: string, text: string | Uint8Array, options: WriteOptions = {}): void {
  if (options.makeDirs !== false) mkdirSync(dirname(path), { recursive: true });
  const temp = tempPath(path);
  try {
    writeFileSync(temp, text, { flag: 'wx', mode: options.mode });
    renameSync(temp, path);
  } finally {
    rmSync(temp, { force: true });
  }
}
