/**
 * Ontologies (compat-package-sdk-check.md §2.7): a package declares in `spec.knowledge` the ontologies
 * (`name@major`) its processes read and write in the knowledge base; each must be a KnowledgePack of the
 * package or its requires, or a platform ontology, and every kind and relation the processes use must be a
 * term of them (through `extends` too).
 */
import { isDeepStrictEqual } from 'node:util';
import { childPointer } from '../../json/pointer.js';
import { didYouMean } from '../../model/did-you-mean.js';
import type { Package, PackageObject } from '../../model/package.js';
import type { Workspace } from '../../model/workspace.js';
import { KNOWLEDGE_SECTIONS } from '../../model/text-marks.js';
import { PLATFORM_ONTOLOGIES, platformOntology } from '../platform-ontologies/index.js';
import { defineRule, type RuleContext } from '../rule.js';
import { isRecord } from '../../json/guards.js';

export const knowledgePacks = defineRule({
  id: 'knowledge/packs',
  description: 'A KnowledgePack is keyed by its name, extends ontologies that exist, and one name@version has one content.',
  codes: {
    knowledge_pack_key: {
      severity: 'error',
      summary: 'The key of a KnowledgePack differs from its spec.name.',
      message: (d: { key: string; name: string }) => `KnowledgePack key '${d.key}' differs from spec.name '${d.name}' — an ontology is keyed by its name`,
    },
    knowledge_extends_unknown: {
      severity: 'error',
      summary: 'A KnowledgePack extends an ontology that is neither in its package, its requires nor the platform.',
      message: (d: { ref: string; pkg: string }) => `extends ${d.ref}, which is neither a KnowledgePack of package ${d.pkg} or its requires nor a platform ontology`,
    },
    knowledge_pack_conflict: {
      severity: 'error',
      summary: 'The same ontology name@version is declared twice in the installation with different content.',
      message: (d: { ref: string; first: string }) => `ontology ${d.ref} is also declared in ${d.first} with different content — an ontology version is immutable`,
    },
  },
  check(context) {
    const ontologies = OntologyIndex.of(context.workspace);
    const first = new Map<string, PackageObject>();
    for (const pack of context.objects('KnowledgePack')) {
      const name = pack.spec.name;
      if (typeof name === 'string' && name !== pack.key) {
        context.report('knowledge_pack_key', { document: pack.document, pointer: '/key' }, { key: pack.key, name }, { hint: `set key: ${name}` });
      }
      checkExtends(context, ontologies, pack);
      const ref = packRef(pack);
      if (ref === undefined) continue;
      const earlier = first.get(ref);
      if (earlier === undefined) first.set(ref, pack);
      else if (!isDeepStrictEqual(earlier.spec, pack.spec)) {
        context.report('knowledge_pack_conflict', { document: pack.document, pointer: '/spec/version' }, { ref, first: earlier.file }, {
          hint: 'give the changed ontology the next version, or make both copies the same',
        });
      }
    }
  },
});

function checkExtends(context: RuleContext<typeof knowledgePacks.codes>, ontologies: OntologyIndex, pack: PackageObject): void {
  const bases = pack.spec.extends;
  if (!Array.isArray(bases)) return;
  bases.forEach((ref, index) => {
    if (typeof ref !== 'string' || ref.includes('${') || ontologies.resolve(pack.package, ref) !== undefined) return;
    context.report('knowledge_extends_unknown', { document: pack.document, pointer: childPointer('/spec/extends', index) }, { ref, pkg: pack.package }, {
      hint: ontologies.hintFor(pack.package, ref),
    });
  });
}

export const knowledgeDeclared = defineRule({
  id: 'knowledge/declared',
  description: 'The ontologies of spec.knowledge exist, and the kinds and relations the processes use are their terms.',
  codes: {
    knowledge_unknown: {
      severity: 'error',
      summary: 'A declared ontology name@major is neither a KnowledgePack of the package or its requires nor a platform ontology.',
      message: (d: { ref: string; pkg: string }) => `ontology ${d.ref} is neither a KnowledgePack of package ${d.pkg} or its requires nor a platform ontology`,
    },
    knowledge_term_unknown: {
      severity: 'error',
      summary: 'A kind or relation a process uses in the knowledge base is not a term of the ontologies the package declares.',
      message: (d: { term: TermUse['term']; name: string; declared: string }) => `${d.term} '${d.name}' is not in the ontologies the package declares (${d.declared})`,
    },
    knowledge_term_unconfirmed: {
      severity: 'warning',
      summary: 'A kind or relation is not among the known terms, but some declared ontology extends one whose terms are unknown.',
      message: (d: { term: TermUse['term']; name: string; opaque: string }) =>
        `${d.term} '${d.name}' is not among the known terms of the declared ontologies; ${d.opaque} cannot be read, so it may be there`,
    },
    knowledge_undeclared: {
      severity: 'warning',
      summary: 'Processes use the knowledge base but the package declares no spec.knowledge.',
      message: (d: { pkg: string; terms: string }) => `processes of package ${d.pkg} use the knowledge base (${d.terms}) but spec.knowledge declares no ontology`,
    },
  },
  check(context) {
    const ontologies = OntologyIndex.of(context.workspace);
    const processes = context.objects('Process');
    for (const pkg of context.packages()) {
      const uses = processes.filter((process) => process.package === pkg.key).flatMap((process) => knowledgeUses(process));
      const declared = declaredOntologies(pkg);
      if (declared === undefined) {
        if (uses.length > 0) reportUndeclared(context, pkg, uses);
        continue;
      }
      const unknown = declared.filter(({ ref }) => ontologies.resolve(pkg.key, ref) === undefined);
      for (const { ref, pointer } of unknown) {
        context.report('knowledge_unknown', { document: pkg.manifest, pointer }, { ref, pkg: pkg.key }, { hint: ontologies.hintFor(pkg.key, ref) });
      }
      if (unknown.length === 0) checkTerms(context, ontologies, pkg, declared, uses);
    }
  },
});

type DeclaredContext = RuleContext<typeof knowledgeDeclared.codes>;

function reportUndeclared(context: DeclaredContext, pkg: Package, uses: readonly TermUse[]): void {
  const names = (term: TermUse['term']) => [...new Set(uses.filter((use) => use.term === term).map((use) => use.name))].sort().join(', ');
  const terms = [names('kind') && `kinds ${names('kind')}`, names('relation') && `relations ${names('relation')}`].filter(Boolean).join('; ');
  context.report('knowledge_undeclared', { document: pkg.manifest, pointer: '/spec', part: 'key' }, { pkg: pkg.key, terms }, {
    hint: 'declare the ontologies they rely on, e.g. knowledge: ["default@1"]',
  });
}

function checkTerms(context: DeclaredContext, ontologies: OntologyIndex, pkg: Package, declared: readonly DeclaredOntology[], uses: readonly TermUse[]): void {
  const kinds = new Set<string>();
  const relations = new Set<string>();
  const opaque = new Set<string>();
  for (const { ref } of declared) ontologies.collectTerms(pkg.key, ref, kinds, relations, opaque);
  const refs = declared.map(({ ref }) => ref).join(', ');
  for (const use of uses) {
    const known = use.term === 'kind' ? kinds : relations;
    if (known.has(use.name)) continue;
    const place = { document: use.object.document, pointer: use.pointer };
    const hint = didYouMean(use.name, known) ?? `add the ${use.term} to a KnowledgePack of the package, or declare an ontology that has it`;
    if (opaque.size > 0) context.report('knowledge_term_unconfirmed', place, { term: use.term, name: use.name, opaque: [...opaque].join(', ') }, { hint });
    else context.report('knowledge_term_unknown', place, { term: use.term, name: use.name, declared: refs }, { hint });
  }
}

export const installationKnowledge = defineRule({
  id: 'knowledge/installation',
  description: 'An ontology the installation enables for a workspace is defined by one of its packages or by the platform.',
  codes: {
    knowledge_pack_outside_installation: {
      severity: 'warning',
      summary: 'The installation enables an ontology that no package of it defines, so it must already be registered in the core.',
      message: (d: { ref: string }) => `ontology ${d.ref} is defined by no package of the installation — it must already be registered in the core`,
    },
  },
  check(context) {
    const installation = context.workspace.installation;
    const spec = (installation?.document.value as { spec?: unknown } | null)?.spec;
    if (installation === undefined || !isRecord(spec) || !Array.isArray(spec.knowledge)) return;
    const ontologies = OntologyIndex.of(context.workspace);
    spec.knowledge.forEach((entry, index) => {
      if (!isRecord(entry) || !Array.isArray(entry.packs)) return;
      entry.packs.forEach((ref, at) => {
        if (typeof ref !== 'string' || ref.includes('${') || ontologies.resolveAnywhere(ref)) return;
        const pointer = childPointer(childPointer(childPointer('/spec/knowledge', index), 'packs'), at);
        context.report('knowledge_pack_outside_installation', { document: installation.document, pointer }, { ref }, {
          hint: 'add the package that defines it to spec.packages, or make sure the core has it registered',
        });
      });
    });
  },
});

/** One kind or relation a process uses in the knowledge base. */
export interface TermUse {
  term: 'kind' | 'relation';
  name: string;
  object: PackageObject;
  pointer: string;
}

/** Fields of those sections that hold values, expressions or facts — never terms. */
const NOT_TERMS: ReadonlySet<string> = new Set(['facts', 'where', 'key', 'name', 'title', 'text', 'query', 'onTimeout', 'retrospective']);
/** Parts of a process that hold data schemas and forms, where `kind` is a field name like any other. */
const SCHEMAS: ReadonlySet<string> = new Set(['data', 'form']);

/**
 * The kinds and relations a process uses: under `memory`, `recall`, `remember` and `context`, the values of
 * `kind`, the items of `kinds`, the values of `relation` and `via` (the `rel` of a link names an edge, not an
 * ontology relation); the case kind of `memory.case` defaults to `case`.
 */
export function knowledgeUses(process: PackageObject): TermUse[] {
  const uses: TermUse[] = [];
  if (![...KNOWLEDGE_SECTIONS].some((section) => process.document.includes(section))) return uses; // no section written: nothing to walk
  const add = (term: TermUse['term'], name: unknown, pointer: string): void => {
    if (typeof name === 'string' && name !== '' && !name.includes('${') && !name.includes('{{')) uses.push({ term, name, object: process, pointer });
  };
  const visit = (value: unknown, pointer: string, inSection: boolean): void => {
    if (Array.isArray(value)) {
      value.forEach((item, index) => visit(item, childPointer(pointer, index), inSection));
      return;
    }
    if (!isRecord(value)) return;
    for (const [key, child] of Object.entries(value)) {
      if (NOT_TERMS.has(key) || SCHEMAS.has(key)) continue;
      const at = childPointer(pointer, key);
      const section = inSection || KNOWLEDGE_SECTIONS.has(key);
      if (section && key === 'kind') add('kind', child, at);
      else if (section && key === 'kinds' && Array.isArray(child)) child.forEach((item, index) => add('kind', item, childPointer(at, index)));
      else if (section && (key === 'relation' || key === 'via')) add('relation', child, at);
      else visit(child, at, section);
    }
  };
  visit(process.spec, '/spec', false);
  const memory = process.spec.memory;
  if (isRecord(memory) && isRecord(memory.case) && memory.case.kind === undefined) add('kind', 'case', '/spec/memory/case');
  return uses;
}

interface DeclaredOntology {
  ref: string;
  pointer: string;
}

/** `spec.knowledge` of the manifest, or undefined when the field is absent. */
function declaredOntologies(pkg: Package): DeclaredOntology[] | undefined {
  const spec = (pkg.manifest.value as { spec?: unknown } | null)?.spec;
  if (!isRecord(spec) || !('knowledge' in spec)) return undefined;
  const list = Array.isArray(spec.knowledge) ? spec.knowledge : [];
  return list.flatMap((ref, index) => (typeof ref === 'string' ? [{ ref, pointer: childPointer('/spec/knowledge', index) }] : []));
}

/** `name@version` of a KnowledgePack object, from its spec. */
function packRef(pack: PackageObject): string | undefined {
  const { name, version } = pack.spec;
  if (typeof name !== 'string' || (typeof version !== 'number' && typeof version !== 'string')) return undefined;
  return `${name}@${version}`;
}

/** `tenant:name@N` names the tenant's ontology `name@N`: the prefix says where it lives, not what it is. */
function withoutTenant(ref: string): string {
  return ref.startsWith('tenant:') ? ref.slice('tenant:'.length) : ref;
}

/** A KnowledgePack spec or a platform ontology: the parts that hold terms. */
type OntologySpec = { kinds?: unknown; relations?: unknown; extends?: unknown };

/** The KnowledgePacks of a workspace by package and `name@version`, built once per workspace. */
class OntologyIndex {
  private static readonly built = new WeakMap<Workspace, OntologyIndex>();
  private readonly byPackage = new Map<string, Map<string, PackageObject>>();

  static of(workspace: Workspace): OntologyIndex {
    let index = OntologyIndex.built.get(workspace);
    if (index === undefined) {
      index = new OntologyIndex(workspace);
      OntologyIndex.built.set(workspace, index);
    }
    return index;
  }

  private constructor(private readonly workspace: Workspace) {
    for (const pack of workspace.objects('KnowledgePack')) {
      const ref = packRef(pack);
      if (ref === undefined) continue;
      const own = this.byPackage.get(pack.package) ?? new Map<string, PackageObject>();
      if (!own.has(ref)) own.set(ref, pack);
      this.byPackage.set(pack.package, own);
    }
  }

  /** The ontology `ref` as package `from` sees it: its own and its requires' packs first, then the platform's. */
  resolve(from: string, ref: string): OntologySpec | undefined {
    const bare = withoutTenant(ref);
    for (const key of this.workspace.visiblePackages(from)) {
      const pack = this.byPackage.get(key)?.get(bare);
      if (pack !== undefined) return pack.spec;
    }
    return ref === bare ? platformOntology(bare) : undefined;
  }

  /** True when some package of the workspace, or the platform, defines `ref`. */
  resolveAnywhere(ref: string): boolean {
    const bare = withoutTenant(ref);
    return [...this.byPackage.values()].some((packs) => packs.has(bare)) || (ref === bare && platformOntology(bare) !== undefined);
  }

  /**
   * Adds the kinds (with their aliases) and relations of `ref` and of everything it extends; the name of an
   * ontology among them that cannot be read goes to `opaque`.
   */
  collectTerms(from: string, ref: string, kinds: Set<string>, relations: Set<string>, opaque: Set<string>, seen = new Set<string>()): void {
    if (seen.has(ref)) return;
    seen.add(ref);
    const spec = this.resolve(from, ref);
    if (spec === undefined) {
      opaque.add(ref);
      return;
    }
    for (const kind of Array.isArray(spec.kinds) ? spec.kinds : []) {
      if (!isRecord(kind)) continue;
      if (typeof kind.kind === 'string') kinds.add(kind.kind);
      for (const alias of Array.isArray(kind.kindAliases) ? kind.kindAliases : []) if (typeof alias === 'string') kinds.add(alias);
    }
    for (const relation of Array.isArray(spec.relations) ? spec.relations : []) {
      if (isRecord(relation) && typeof relation.relation === 'string') relations.add(relation.relation);
    }
    for (const base of Array.isArray(spec.extends) ? spec.extends : []) {
      if (typeof base === 'string') this.collectTerms(from, base, kinds, relations, opaque, seen);
    }
  }

  /** Where `ref` is when `from` cannot see it, or the closest name it can see. */
  hintFor(from: string, ref: string): string {
    const bare = withoutTenant(ref);
    const holder = [...this.byPackage.entries()].find(([, packs]) => packs.has(bare))?.[0];
    if (holder !== undefined && holder !== from) return `KnowledgePack ${bare} is in package ${holder}: add ${holder} to requires`;
    const visible = this.workspace.visiblePackages(from).flatMap((key) => [...(this.byPackage.get(key)?.keys() ?? [])]);
    return didYouMean(ref, [...visible, ...PLATFORM_ONTOLOGIES]) ?? 'add a KnowledgePack with this name and version to the package or to a package it requires';
  }
}
