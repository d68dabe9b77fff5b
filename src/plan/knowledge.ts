/**
 * The `knowledge` section (compat-package-sdk-install §4.5, §5.3): ontology packs the packages ship are
 * registered once per version (a version is immutable), and the installation's `spec.knowledge` sets the
 * packs each workspace works with.
 */
import type { PackageObject } from '../model/package.js';
import { CoreHttpError } from '../client/client.js';
import type { Change, EnableItem } from './document.js';
import { Refusal } from '../fs/refusal.js';
import { specOf, versionText, type SectionContext, type Step } from './section.js';
import { substitute } from './variables.js';

export interface KnowledgeSteps {
  register: Step[];
  enable: { item: EnableItem; write: () => Promise<void> }[];
}

export async function knowledgeSteps(ctx: SectionContext): Promise<KnowledgeSteps> {
  const register: Step[] = [];
  for (const object of ctx.workspace.objects('KnowledgePack')) {
    const step = await registerStep(ctx, object);
    if (step) register.push(step);
  }
  const enable: KnowledgeSteps['enable'] = [];
  for (const target of enableTargets(ctx)) {
    const path = `/api/v1/workspaces/${target.workspace}/knowledge-packs`;
    const now = await ctx.client.get<{ configured?: boolean; packs?: string[]; strict?: boolean }>(path);
    const expected = { configured: now.configured ?? true, packs: (now.packs ?? []).map(String), strict: Boolean(now.strict) };
    if (expected.configured && sameSet(expected.packs, target.packs) && expected.strict === target.strict) continue;
    enable.push({
      item: { workspace: target.workspace, packs: target.packs, strict: target.strict, current: expected.packs, expected },
      write: async () => void (await ctx.client.send('PUT', path, { body: { packs: target.packs, strict: target.strict } })),
    });
  }
  return { register, enable };
}

async function registerStep(ctx: SectionContext, object: PackageObject): Promise<Step | undefined> {
  const spec = specOf(ctx, object);
  const version = versionText(object, spec);
  const ref = `${spec.scope === 'tenant' ? 'tenant:' : ''}${String(spec.name)}@${version}`;
  const found = await ctx.client.find<{ kinds?: { kind: string }[]; relations?: { relation: string }[] }>(
    `/api/v1/knowledge/packs/${encodeURIComponent(ref).replace(/%3A/gi, ':').replace(/%40/gi, '@')}`);
  if (found) {
    const names = (list: unknown, field: string) => (Array.isArray(list) ? list.map((item) => String((item as Record<string, unknown>)[field])) : []);
    if (!sameSet(names(found.kinds, 'kind'), names(spec.kinds, 'kind')) || !sameSet(names(found.relations, 'relation'), names(spec.relations, 'relation'))) {
      throw new Refusal('catalog_conflict', `KnowledgePack/${object.key} (${object.file}): ontology ${ref} is already registered, but kinds/relations ` +
        'differ in the package — an ontology version is immutable, bump version');
    }
    return undefined;
  }
  const change: Change = { package: object.package, kind: 'KnowledgePack', key: object.key, operation: 'register', version, detail: `ontology ${ref}` } as Change;
  return {
    change,
    write: async () => {
      try {
        await ctx.client.send('POST', '/api/v1/knowledge/packs', { body: spec });
      } catch (error) {
        if (error instanceof CoreHttpError && error.status === 409) {
          throw new Refusal('catalog_conflict', `KnowledgePack/${object.key}: version ${version} is already registered with different content — ` +
            'an ontology version is immutable, bump version');
        }
        throw error;
      }
    },
  };
}

/** `spec.knowledge` merged by workspace: packs in first-seen order without duplicates, strict if any entry is. */
function enableTargets(ctx: SectionContext): { workspace: string; packs: string[]; strict: boolean }[] {
  const knowledge = (ctx.workspace.installation?.document.value as { spec?: { knowledge?: unknown } } | undefined)?.spec?.knowledge;
  const merged = new Map<string, { workspace: string; packs: string[]; strict: boolean }>();
  for (const entry of Array.isArray(knowledge) ? knowledge : []) {
    const { workspace, packs, strict } = entry as { workspace?: unknown; packs?: unknown; strict?: unknown };
    if (typeof workspace !== 'string') continue;
    const id = substitute(workspace, ctx.variables.installationValues, 'installation knowledge');
    const target = merged.get(id) ?? { workspace: id, packs: [], strict: false };
    for (const pack of Array.isArray(packs) ? packs : []) if (!target.packs.includes(String(pack))) target.packs.push(String(pack));
    target.strict ||= strict === true;
    merged.set(id, target);
  }
  return [...merged.values()];
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return JSON.stringify([...new Set(a)].sort()) === JSON.stringify([...new Set(b)].sort());
}
