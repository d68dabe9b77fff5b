import { Args, Flags } from '@oclif/core';

/** The bundle a command works on: `bundle apply|run|sign|verify FILE`. */
export const bundleFileArgs = { file: Args.string({ required: true, description: 'The bundle file.' }) };

/** Where the detached signature is read from (`apply`, `verify`). */
export const signatureFlag = { sig: Flags.string({ summary: 'Signature file (default: FILE.sig.json).' }) };

/** The control-plane flags of `bundle apply|list|show`, as kernos names them. */
export const serverFlags = {
  server: Flags.string({
    summary: 'Control plane URL (https, or http on loopback), or "local" for an embedded core.',
    env: 'KERNOS_SERVER',
    default: 'http://127.0.0.1:7401',
  }),
  token: Flags.string({ summary: 'Bearer token of the control plane.', env: 'KERNOS_TOKEN' }),
};
