/**
 * An `Installation` (compat-package-sdk-install.md §1): which packages an environment gets and from
 * where. Its packages, once resolved, are the `Workspace`'s packages.
 */
import type { SourceDocument } from '../json/document.js';
import type { PackageSource } from './package.js';

export interface InstallationEntry {
  key: string;
  /** Undefined for a bare key, looked up in the installation's search directories. */
  source?: PackageSource;
  /** JSON Pointer of the entry (`/spec/packages/N`). */
  pointer: string;
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
