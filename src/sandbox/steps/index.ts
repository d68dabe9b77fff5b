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
  human,
  approve,
  call,
  decide,
  recall,
  remember,
  listen,
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
