/** Colours for terminals: only on a TTY, never with NO_COLOR (https://no-color.org). */
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

export function paintFor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): Paint {
  const disabled = env.NO_COLOR !== undefined && env.NO_COLOR !== '';
  return stream.isTTY && !disabled && env.TERM !== 'dumb' ? colours : plain;
}
