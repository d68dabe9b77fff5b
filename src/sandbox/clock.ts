/**
 * Virtual time and cancellation for the process engine. Steps are async functions that wait on promises the
 * engine resolves itself: a timer of the virtual clock, a task a scenario completes, an event it emits. Nothing
 * waits on real time or I/O, so once the microtask queue is empty the instance has done all it can
 * (`settle()`); a scenario step then inspects it or drives it on.
 */

/** Thrown into the waits of a scope that was cancelled (a compete fork lost, an interrupting timer, `complete`). */
export class Cancelled extends Error {
  constructor() {
    super('cancelled');
    this.name = 'Cancelled';
  }
}

/** A unit of work that can be cancelled with everything it started. */
export class Scope {
  private readonly children = new Set<Scope>();
  private readonly aborts = new Set<(error: Error) => void>();
  private readonly cleanups = new Set<() => void>();
  cancelled = false;

  constructor(private readonly parent?: Scope) {
    parent?.children.add(this);
  }

  child(): Scope {
    if (this.cancelled) throw new Cancelled();
    return new Scope(this);
  }

  /** Ends the scope: its waits reject with `Cancelled`, its timers and listeners go away. */
  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    for (const child of this.children) child.cancel();
    for (const cleanup of this.cleanups) cleanup();
    this.cleanups.clear();
    for (const abort of this.aborts) abort(new Cancelled());
    this.aborts.clear();
    this.parent?.children.delete(this);
  }

  /** Detaches a finished scope from its parent (its timers stay only if it was never cancelled). */
  close(): void {
    for (const cleanup of this.cleanups) cleanup();
    this.cleanups.clear();
    this.parent?.children.delete(this);
  }

  /**
   * Waits for `register` to call `resolve`; `register` returns how to undo the registration. The wait rejects
   * with `Cancelled` when the scope is cancelled, or with whatever `fail` is given.
   */
  wait<T>(register: (resolve: (value: T) => void, fail: (error: Error) => void) => () => void): Promise<T> {
    if (this.cancelled) return Promise.reject(new Cancelled());
    return new Promise<T>((resolve, reject) => {
      let undo: () => void = () => undefined;
      const finish = () => {
        this.aborts.delete(abort);
        this.cleanups.delete(undo);
        undo();
      };
      const abort = (error: Error) => {
        finish();
        reject(error);
      };
      this.aborts.add(abort);
      undo = register(
        (value) => {
          finish();
          resolve(value);
        },
        abort,
      );
      this.cleanups.add(undo);
    });
  }

  /** Runs `cleanup` when the scope ends (a registration that outlives one wait: a boundary timer). */
  onEnd(cleanup: () => void): void {
    if (this.cancelled) cleanup();
    else this.cleanups.add(cleanup);
  }
}

export interface Timer {
  /** The id a scenario names it by (`until:<id>`, `expect.timers`), when it has one. */
  id?: string;
  at: number;
  seq: number;
  /** Whether its moment was computed over a calendar year that is not confirmed. */
  provisional: boolean;
  fire(): void;
}

/** The instance's clock: it moves only when a scenario advances it. */
export class VirtualClock {
  private readonly timers = new Set<Timer>();
  private readonly held = new Set<Timer>();
  private seq = 0;

  constructor(public now: number) {}

  iso(at = this.now): string {
    return new Date(at).toISOString();
  }

  /** Schedules `fire` at `at`; returns how to cancel it. */
  schedule(at: number, fire: () => void, options: { id?: string; provisional?: boolean } = {}): () => void {
    const timer: Timer = { at, seq: this.seq++, fire, provisional: options.provisional ?? false, ...(options.id !== undefined ? { id: options.id } : {}) };
    this.timers.add(timer);
    return () => {
      this.timers.delete(timer);
      this.held.delete(timer);
    };
  }

  /** Pending timers in the order they will fire. */
  pending(): Timer[] {
    return [...this.timers].sort((a, b) => a.at - b.at || a.seq - b.seq);
  }

  /** Takes every pending timer off the clock: a suspended instance does not count the pause. */
  hold(): void {
    for (const timer of this.timers) this.held.add(timer);
    this.timers.clear();
  }

  /** Puts the held timers back, later by the length of the pause. */
  release(pause: number): void {
    for (const timer of this.held) {
      timer.at += pause;
      this.timers.add(timer);
    }
    this.held.clear();
  }

  /** Fires every timer due up to `target` in order, letting the instance settle after each, then stands at `target`. */
  async advanceTo(target: number, settle: () => Promise<void>): Promise<void> {
    for (;;) {
      const next = this.pending()[0];
      if (next === undefined || next.at > target) break;
      this.timers.delete(next);
      this.now = Math.max(this.now, next.at);
      next.fire();
      await settle();
    }
    this.now = Math.max(this.now, target);
  }
}

/** Lets every continuation that is ready run: the engine waits on nothing else. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
