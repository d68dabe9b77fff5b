/**
 * Platform ontologies: the knowledge packs every core has registered, so a package may declare them in
 * `spec.knowledge` or `extends` without defining them. Shipped as data and read on first use.
 */
import { readFileSync } from 'node:fs';

// The type import also makes the build copy default.json next to this module.
type PlatformOntology = typeof import('./default.json');

const FILES: Readonly<Record<string, string>> = { 'default@1': 'default.json' };
const loaded = new Map<string, PlatformOntology>();

/** The platform ontology `name@version` as a KnowledgePack spec, or undefined when the platform has none. */
export function platformOntology(ref: string): PlatformOntology | undefined {
  const file = FILES[ref];
  if (file === undefined) return undefined;
  let ontology = loaded.get(ref);
  if (ontology === undefined) {
    ontology = JSON.parse(readFileSync(new URL(`./${file}`, import.meta.url), 'utf8')) as PlatformOntology;
    loaded.set(ref, ontology);
  }
  return ontology;
}

/** `name@version` of every platform ontology, for did-you-mean. */
export const PLATFORM_ONTOLOGIES: readonly string[] = Object.keys(FILES);
