import { Flags } from '@oclif/core';

/** The flags `plan` and `apply` share. */
export const envFlag = {
  env: Flags.file({ summary: 'Variable values, NAME=value per line (default: .env when it exists); the environment wins.' }),
};
