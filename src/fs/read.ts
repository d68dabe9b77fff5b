/**
 * Reading input files: only regular files. A named pipe given as a file would block the reader until someone
 * writes to it, and a device may never end; both are refused before they are opened. And the paths of what a
 * directory lists.
 */
import { readFileSync, type Stats, statSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';

/** Whether `path` lies inside the folder `dir` (and is not `dir` itself). */
export function isInside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

/** What a path that is not a regular file is, in words ('it' for anything without a better name). */
export function describeFileType(info: Stats): string {
  if (info.isDirectory()) return 'a directory';
  if (info.isFIFO()) return 'a named pipe';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  return 'it';
}

/** Why `info` cannot be read as an input file, or undefined for a regular file. */
export function notRegularReason(info: Stats): string | undefined {
  return info.isFile() ? undefined : `${describeFileType(info)} is not a regular file: only regular files are read`;
}

/** `readFileSync(path, 'utf8')` of a regular file; anything else throws an Error with that reason. */
export function readRegularFileSync(path: string): string {
  const reason = notRegularReason(statSync(path));
  if (reason !== undefined) throw new Error(reason);
  return readFileSync(path, 'utf8');
}

/**
 * The path of `name` (an entry of a directory listing, or such names joined by `/`) under `dir`, a normalised
 * absolute directory (a `realpath`, a `resolve`): joined as it stands, since `join` would normalise again what
 * is normal already — a check of 10,000 files joins each two or three times.
 */
export function entryPath(dir: string, name: string): string {
  return sep === '/' && dir !== '/' ? `${dir}/${name}` : join(dir, name);
}
