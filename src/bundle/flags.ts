import { Flags } from '@oclif/core';

/** The control-plane flags of `bundle apply|list|show`, as kernos names them. */
export const serverFlags = {
  server: Flags.string({
    summary: 'Control plane URL (https, or http on loopback), or "local" for an embedded core.',
    env: 'KERNOS_SERVER',
    default: 'http://127.0.0.1:7401',
  }),
  token: Flags.string({ summary: 'Bearer token of the control plane.', env: 'KERNOS_TOKEN' }),
};
