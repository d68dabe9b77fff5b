/**
 * A check keeps every document it loads until its rules have run, so nearly every young object survives, and
 * V8 answers by growing its young generation to its largest (two semi-spaces of 16 MB): ~16 MiB more peak
 * memory on 10,000 files, and no time saved — the survivors are promoted either way (measured: the same CPU
 * with the young generation held at half that size). `--max-semi-space-size` says so only as a flag of the node
 * process, which the CLI cannot give itself; the growth factor is read each time V8 grows the young
 * generation, so the loader stops the growth once the young generation has reached two semi-spaces of 8 MB.
 * V8 takes a code cache only under the flags it was made with: the validators, loaded from theirs on first
 * use, are loaded before the flag changes (a run that holds the young generation has files to validate).
 */
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { loadValidators } from '../schema/validators.js';

/** The size of the young generation (both semi-spaces) past which it does not grow. */
export const YOUNG_GENERATION_HELD_AT = 16 * 1024 * 1024;
/** The flag the hold sets, and V8's own value of it. */
const GROWTH_FACTOR = '--semi-space-growth-factor';
const V8_GROWTH_FACTOR = 2;
/** Files parsed between two looks at the young generation (a look costs a few microseconds). */
const LOOK_EVERY = 64;

let held = false;
let parsed = 0;

/** Called for each file parsed: holds the young generation where it is once it has reached `YOUNG_GENERATION_HELD_AT`. */
export function holdYoungGeneration(): void {
  if (held || ++parsed % LOOK_EVERY !== 0) return;
  const young = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
  if (young !== undefined && young.space_size >= YOUNG_GENERATION_HELD_AT) {
    loadValidators(); // from their code cache, which V8 would refuse under the changed flag
    setFlagsFromString(`${GROWTH_FACTOR}=1`);
    held = true;
  }
}

/**
 * Lets the young generation grow as V8 would. For the build, which runs checks before it records the code caches:
 * V8 takes a cache only under the flags it was recorded with, and a process starts with V8's own.
 */
export function releaseYoungGeneration(): void {
  setFlagsFromString(`${GROWTH_FACTOR}=${V8_GROWTH_FACTOR}`);
  held = false;
}
