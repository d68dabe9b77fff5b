/**
 * The handlers of the step kinds, by kind: a kind the process model knows and this table lacks fails `tsc`.
 */
import type { StepKind } from '../../process/index.js';
import { approve } from './approve.js';
import { call } from './call.js';
import { complete } from './complete.js';
import { compensate } from './compensate.js';
import { decide } from './decide.js';
import { doBlock } from './do.js';
import { fork } from './fork.js';
import type { Handler } from './handler.js';
import { human } from './human.js';
import { listen } from './listen.js';
import { raise } from './raise.js';
import { recall } from './recall.js';
import { remember } from './remember.js';
import { resume } from './resume.js';
import { set } from './set.js';
import { suspend } from './suspend.js';
import { attempt } from './try.js';
import { wait } from './wait.js';

export const HANDLERS: { readonly [K in StepKind]: Handler<K> } = {
  human: outside(human),
  approve: outside(approve),
  call: outside(call),
  decide,
  recall: outside(recall),
  remember,
  listen: outside(listen),
  wait,
  set,
  raise,
  compensate,
  fork,
  try: attempt,
  do: doBlock,
  suspend,
  resume,
  complete,
};

/**
 * A step that waits on the world outside the instance (a person, a callee, memory, an event) settles one async
 * hop after its work does. Flows that run side by side (fork branches, open stages, event handlers) interleave
 * their steps by these hops, and the order of the events they record is what `expect.events` reads: it must
 * not shift.
 */
function outside<K extends StepKind>(handler: Handler<K>): Handler<K> {
  return async (step, run) => handler(step, run);
}
