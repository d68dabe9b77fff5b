/** `remember`: a write to memory — case facts, or an entity with its links — that a scenario can expect. */
import type { StepBodies } from '../../process/index.js';
import type { ProcessInstance, StepContext } from '../instance.js';
import type { Handler } from './handler.js';

export const remember: Handler<'remember'> = async (step, { instance, ctx }) => {
  const body = step.body;
  const entry: Record<string, unknown> = { step: step.id };
  if (body.facts !== undefined) entry.facts = instance.evaluateMap(body.facts, ctx);
  if (body.entity !== undefined) entry.entity = entityOf(instance, body.entity, ctx);
  instance.remembered.push(entry);
  return {};
};

type Entity = NonNullable<StepBodies['remember']['entity']>;

/** The entity as the core would write it: its CEL fields evaluated, its links' keys too. */
function entityOf(instance: ProcessInstance, entity: Entity, ctx: StepContext): Record<string, unknown> {
  const out: Record<string, unknown> = { kind: entity.kind };
  for (const field of ['key', 'name', 'text'] as const) {
    const source = entity[field];
    if (typeof source === 'string') out[field] = instance.evaluate(source, ctx);
  }
  out.links = (entity.links ?? []).map((link) => ({ rel: link.rel, kind: link.kind, key: typeof link.key === 'string' ? instance.evaluate(link.key, ctx) : link.key }));
  return out;
}
