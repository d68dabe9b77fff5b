/**
 * Platform ontologies: the knowledge packs every core has registered, so a package may declare them in
 * `spec.knowledge` or `extends` without defining them. Shipped as data (1 KB, imported with the module so
 * that the bundled `check` needs no file beside it).
 */
import defaultOntology from './default.json' with { type: 'json' };

type PlatformOntology = typeof defaultOntology;

const ONTOLOGIES: Readonly<Record<string, PlatformOntology>> = { 'default@1': defaultOntology };

/** The platform ontology `name@version` as a KnowledgePack spec, or undefined when the platform has none. */
export function platformOntology(ref: string): PlatformOntology | undefined {
  return Object.hasOwn(ONTOLOGIES, ref) ? ONTOLOGIES[ref] : undefined;
}

/** `name@version` of every platform ontology, for did-you-mean. */
export const PLATFORM_ONTOLOGIES: readonly string[] = Object.keys(ONTOLOGIES);
