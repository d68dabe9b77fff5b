/**
 * Colours for terminals, as the Node.js ecosystem decides them: `FORCE_COLOR` first (`0` or `false` never, any
 * other value always, even into a pipe), then `NO_COLOR` (https://no-color.org) never, then only on a TTY
 * whose `TERM` is not `dumb`.
 */
export interface Paint {
  error(text: string): string;
  warning(text: string): string;
  dim(text: string): string;
  bold(text: string): string;
  added(text: string): string;
  changed(text: string): string;
}

const plain: Paint = {
  error: (t) => t,
  warning: (t) => t,
  dim: (t) => t,
  bold: (t) => t,
  added: (t) => t,
  changed: (t) => t,
};

const sgr = (open: number, close: number) => (text: string) => `\u001b[${open}m${text}\u001b[${close}m`;

const colours: Paint = {
  error: sgr(31, 39),
  warning: sgr(33, 39),
  dim: sgr(2, 22),
  bold: sgr(1, 22),
  added: sgr(32, 39),
  changed: sgr(33, 39),
};

/** What decides the colours of a report: whether it goes to a terminal, and the variables that say otherwise. */
export interface Terminal {
  isTTY: boolean;
  env: { FORCE_COLOR?: string; NO_COLOR?: string; TERM?: string };
}

export function paintFor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): Paint {
  return coloured(stream, env) ? colours : plain;
}

function coloured(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force.toLowerCase() !== 'false';
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return stream.isTTY === true && env.TERM !== 'dumb';
}
