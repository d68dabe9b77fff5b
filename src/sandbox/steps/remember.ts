/** `remember`: a write to memory — case facts, or an entity with its links — that a scenario can expect. */
import type { StepBodies } from '../../process/index.js';
import type { Bindings, ProcessInstance } from '../instance.js';
import type { Handler } from './handler.js';

export const remember: Handler<'remember'> = (step, { instance, thread, ctx }) => {
  const body = step.body;
  const bindings = { thread, frame: ctx };
  const entry: Record<string, unknown> = { step: step.id };
  if (body.facts !== undefined) entry.facts = instance.evaluateMap(body.facts, bindings, `${step.pointer}/remember/facts`);
  if (body.entity !== undefined) entry.entity = entityOf(instance, body.entity, bindings, `${step.pointer}/remember/entity`);
  instance.remembered.push(entry);
  return { kind: 'done' };
};

type Entity = NonNullable<StepBodies['remember']['entity']>;

/** The entity as the core writes it: its CEL fields evaluated, its links' keys too. */
function entityOf(instance: ProcessInstance, entity: Entity, bindings: Bindings, pointer: string): Record<string, unknown> {
  const out: Record<string, unknown> = { kind: entity.kind };
  for (const field of ['key', 'name', 'text'] as const) {
    const source = entity[field];
    if (typeof source === 'string') out[field] = instance.evaluate(source, bindings, `${pointer}/${field}`);
  }
  out.links = (entity.links ?? []).map((link, i) => ({
    rel: link.rel, kind: link.kind,
    key: typeof link.key === 'string' ? instance.evaluate(link.key, bindings, `${pointer}/links/${i}/key`) : link.key,
  }));
  return out;
}
