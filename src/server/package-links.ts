/**
 * The link of a catalog key to the package that installed it (the core's `package_objects`): which package
 * and version, the installation (`installHash`), and — for the kinds `/packages:apply` plans — the form that
 * apply wanted. A field whose latest value differs from what the last apply wanted was changed by someone
 * since: its owner is the console (compat-core-packages §4.4). Object cards show the link as `package`.
 */
import type { Form } from './catalog-forms.js';
import { sameJson } from '../json/canonical.js';
import { coreDigest } from '../json/digest.js';
import type { CatalogRow, PackageLink } from './routes/catalog.js';
import type { Row, Store } from './store.js';

export interface LinkRecord extends Row {
  kind: string;
  key: string;
  package: PackageLink;
  /** What the last `/packages:apply` wanted; null after `/packages:record` (every field is the package's again). */
  wanted: Form | null;
  wantedHash: string | null;
}

const LINKS = 'package-links';

export function linkOf(store: Store, kind: string, key: string): LinkRecord | undefined {
  return store.get<LinkRecord>(LINKS, `${kind}/${key}`);
}

/** Links the key (every version of it, on its cards) to the package, remembering what the package wanted. */
export function writeLink(store: Store, kind: string, key: string, link: PackageLink, wanted: Form | null, collection: string): void {
  store.replaceOrInsert<LinkRecord>(LINKS, kind, { id: `${kind}/${key}`, kind, key, package: link, wanted, wantedHash: wanted === null ? null : coreDigest(wanted) });
  for (const row of store.byKey<CatalogRow>(collection, key)) if (!sameJson(row.package, link)) store.replace(collection, { ...row, package: link });
}

/** The link `/packages:record` writes: the package named, nothing wanted (every field is the package's again). */
export function recordLink(store: Store, kind: string, key: string, link: PackageLink): void {
  store.replaceOrInsert<LinkRecord>(LINKS, kind, { id: `${kind}/${key}`, kind, key, package: link, wanted: null, wantedHash: null });
}

export function dropLink(store: Store, kind: string, key: string): void {
  store.remove(LINKS, `${kind}/${key}`);
}

/** The keys of `kind` linked to the package. */
export function linkedKeys(store: Store, kind: string, packageKey: string): string[] {
  return store.byKey<LinkRecord>(LINKS, kind).filter((link) => link.package.key === packageKey).map((link) => link.key);
}
