/**
 * Texts that stand for files during one load: an editor's unsaved buffers, checked as if they were written.
 * Scoped to the load that asked for them (AsyncLocalStorage), so loads running side by side never see each
 * other's buffers.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** Absolute path of a file → the text that stands for its bytes. */
export type Overlay = ReadonlyMap<string, string>;

const scope = new AsyncLocalStorage<Overlay>();

/** Runs `load` with `overlay` standing for the files it names. */
export function withOverlay<T>(overlay: Overlay | undefined, load: () => Promise<T>): Promise<T> {
  return overlay === undefined || overlay.size === 0 ? load() : scope.run(overlay, load);
}

/** The bytes of `path` when the current load has a text for it. */
export function overlaidBytes(path: string): Uint8Array | undefined {
  const text = scope.getStore()?.get(path);
  return text === undefined ? undefined : Buffer.from(text, 'utf8');
}
