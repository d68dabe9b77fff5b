/**
 * The package model: what discovery produces and every later stage reads. Each object keeps its
 * `SourceDocument`, so a finding about it can point at the exact node.
 */
import type { SourceDocument } from '../json/document.js';
import type { ObjectKind } from './kinds.js';

/** Where a package comes from, as the installation (and packages.lock) writes it. */
export type PackageSource = { path: string } | { git: string; ref: string; path?: string };

/** One entry of a manifest's `requires`: a key (any version) or `{package, version}`. */
export interface Requirement {
  package: string;
  /** SemVer range, when the entry gives one. */
  version?: string;
  /** JSON Pointer of the entry in package.yaml. */
  pointer: string;
}

/** A catalog or screen object of a package. */
export interface PackageObject {
  kind: ObjectKind;
  key: string;
  /** `spec.version` as text, for the versioned kinds (Skill, ConnectionType). */
  version?: string;
  /** Identity within the kind: `key`, or `key@version` for Skill and ConnectionType. */
  id: string;
  /** `Kind/id`. */
  ref: string;
  /** Key of the package that holds it. */
  package: string;
  /** Path as shown to the user. */
  file: string;
  document: SourceDocument;
  /** `document.value.spec` (always a mapping: the loader refuses anything else). */
  spec: Record<string, unknown>;
  /** For a Process whose `spec.data` is `{$ref: file}`: the referenced schema. */
  data?: DataSchema;
}

/** A process data schema kept in its own file and referenced by `spec.data: {$ref}`. */
export interface DataSchema {
  /** The `$ref` as written. */
  ref: string;
  file: string;
  document: SourceDocument;
}

/** A `tests/**\/*.test.yaml` scenario (validated later against the test schema). */
export interface PackageTest {
  /** File name without `.test.yaml`. */
  name: string;
  file: string;
  document: SourceDocument;
  package: string;
}

/** An `i18n/<locale>.yaml` dictionary (flat key → ICU text; its shape is checked later). */
export interface Dictionary {
  /** Path under `i18n/` without `.yaml` (or `.yml`) — a locale when the file is well placed (`en`, `ru`). */
  locale: string;
  file: string;
  document: SourceDocument;
}

/**
 * An upload template refinement `templates/<kind>.yaml` (knowledge-template.schema.json): how the sheet of a
 * knowledge kind is presented for upload. Package data for the knowledge side, not an object of the core.
 */
export interface UploadTemplate {
  file: string;
  document: SourceDocument;
}

export interface Package {
  key: string;
  /** Real absolute directory. */
  dir: string;
  /** package.yaml. */
  manifest: SourceDocument;
  /** `spec.version` when it is text. */
  version?: string;
  requires: Requirement[];
  /** Objects in file order (sorted paths). */
  objects: PackageObject[];
  tests: PackageTest[];
  dictionaries: Dictionary[];
  /** Data schemas referenced by processes, each loaded once. */
  dataSchemas: DataSchema[];
  /** `templates/<kind>.yaml`: upload template refinements of knowledge kinds. */
  templates: UploadTemplate[];
  /** How the installation names it; undefined for a package loaded by directory or from the cwd. */
  source?: PackageSource;
}
