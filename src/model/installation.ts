/**
 * An `Installation` (compat-package-sdk-install.md §1): which packages an environment gets and from
 * where. Its packages, once resolved, are the `Workspace`'s packages.
 */
import type { SourceDocument, Span } from '../json/document.js';
import type { PackageSource } from './package.js';

export interface InstallationEntry {
  key: string;
  /** Undefined for a bare key, looked up in the installation's search directories. */
  source?: PackageSource;
  /** JSON Pointer of the entry (`/spec/packages/N`). */
  pointer: string;
  /** Where a source entry (`{key, path}` or git) is written, with its fields: findings about the source point there. */
  place?: SourcePlace;
}

/** Where an installation's source entry is written: findings about the source point there. */
export interface SourcePlace extends Span {
  file: string;
  /** JSON Pointer of the source entry in the installation document. */
  path: string;
  /** Where each field of the entry is written, when known. */
  fields?: Partial<Record<'git' | 'ref' | 'path', Span>>;
}

export interface Installation {
  key: string;
  /** The file as shown to the user. */
  file: string;
  /** Absolute directory of the file: paths of the installation are relative to it. */
  dir: string;
  document: SourceDocument;
  entries: InstallationEntry[];
  /** Where bare keys and requires are looked for, in order (§1.4). */
  searchDirs: string[];
  /** `spec.packagesDir`, absolute, when given. */
  packagesDir?: string;
}

/** Whether any entry of `installation` is a git source: what it resolves to then also depends on its remote. */
export function hasGitSources(installation: Installation): boolean {
  return installation.entries.some((entry) => entry.source !== undefined && 'git' in entry.source);
}
