/** Writing authored files: never half a file, and (for new files) never over an existing one. */
import { link, mkdir, rename, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, basename } from 'node:path';
import { randomBytes } from 'node:crypto';

/** A refusal of an authoring command: exit 1, a message naming the file and the fix. */
export class Refusal extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function tempPath(path: string): string {
  return join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.tmp`);
}

/** Creates `path` with `text`; refuses (`file_exists`) when something is already there. */
export async function createFile(path: string, text: string, shown = path): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temp = tempPath(path);
  await writeFile(temp, text);
  try {
    await link(temp, path); // atomic, and fails when the target exists: a race cannot overwrite a file
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new Refusal('file_exists', `${shown} already exists; package-sdk never overwrites a file`);
    throw error;
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

/** Replaces `path` with `text` in one step (temp file, then rename). */
export async function replaceFile(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temp = tempPath(path);
  await writeFile(temp, text);
  await rename(temp, path);
}
