/**
 * Whether an event is the one a trigger (`start.on`, `correlate[].on`, `onEvent[].on`, a listen option's `on`)
 * waits for: an event of its `event` type, or an observation of its `observation` kind; its `source` when the
 * trigger names one; and its `where` true — a `where` that cannot be evaluated does not match.
 */
import { isRecord } from '../json/guards.js';
import { ProcessError, type Bindings, type EngineEvent, type ProcessInstance } from './instance.js';

export function triggerMatches(instance: ProcessInstance, trigger: unknown, event: EngineEvent, bindings: Bindings = {}): boolean {
  if (!isRecord(trigger)) return false;
  if (event.kind === 'observation' ? trigger.observation !== event.observation : trigger.event !== event.type) return false;
  if (typeof trigger.source === 'string' && trigger.source !== event.source) return false;
  if (typeof trigger.where !== 'string') return true;
  try {
    return instance.evaluate(trigger.where, { ...bindings, event }, 'on/where') === true;
  } catch (error) {
    if (error instanceof ProcessError) return false;
    throw error;
  }
}
