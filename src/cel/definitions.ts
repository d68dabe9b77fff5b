/**
 * What an expression may name in an environment — its variables and the functions and methods of the profile,
 * with their signatures — for an editor's completion. Names the profile keeps to itself (`taimen_…`) are left out.
 */
import type { CelEnvironment } from './environment.js';
import { LIBRARY_TYPE_NAMES } from './functions.js';

export interface CelVariable {
  name: string;
  type: string;
}

export interface CelFunction {
  name: string;
  /** `string.startsWith(string): bool` */
  signature: string;
  /** The type a method is called on; undefined for a global function. */
  receiverType?: string;
  description?: string;
}

export interface CelDefinitions {
  variables: CelVariable[];
  functions: CelFunction[];
}

const PUBLIC_NAME = /^(?!taimen_)[A-Za-z_]\w*$/;

/** The profile's names of the library's types: `google.protobuf.Timestamp` is `timestamp`, in signatures too. */
const PROFILE_TYPE_NAMES = new Map(Object.entries(LIBRARY_TYPE_NAMES).map(([profile, library]) => [library, profile]));

function profileTypes(text: string): string {
  let out = text;
  for (const [library, profile] of PROFILE_TYPE_NAMES) out = out.replaceAll(library, profile);
  return out;
}

export function celDefinitions(env: CelEnvironment): CelDefinitions {
  const definitions = env.cel.getDefinitions();
  return {
    // Type names (`string`, `google`) are variables to the library, not to an author.
    variables: definitions.variables.filter((variable) => PUBLIC_NAME.test(variable.name) && variable.type !== 'type' && variable.name !== 'google')
      .map(({ name, type }) => ({ name, type: profileTypes(type) })),
    functions: definitions.functions.filter((fn) => PUBLIC_NAME.test(fn.name)).map((fn) => ({
      name: fn.name,
      signature: profileTypes(fn.signature),
      ...(fn.receiverType !== null ? { receiverType: profileTypes(fn.receiverType) } : {}),
      ...(fn.description !== null ? { description: fn.description } : {}),
    })),
  };
}
