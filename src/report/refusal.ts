import type { Paint } from './paint.js';

/** A refusal for a person: `error <code>: <message>` and the way out, never wrapped or prefixed. */
export function renderRefusal(refusal: { code: string; message: string; hint?: string | undefined }, paint: Paint): string {
  return `${paint.error('error')} ${refusal.code}: ${refusal.message}${refusal.hint ? `\n  ${paint.dim(`hint: ${refusal.hint}`)}` : ''}`;
}
