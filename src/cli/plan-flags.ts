import { Flags } from '@oclif/core';

/** The flags `plan` and `apply` share. */
export const envFlag = {
  env: Flags.file({ summary: 'Variable values, NAME=value per line (default: .env when it exists); the environment wins.' }),
};

/** `plan --cache/--no-cache`: the oclif command declares it from this, the lean entry parses it. */
export const cacheFlag = {
  cache: Flags.boolean({
    summary: 'Reuse what earlier runs learnt of unchanged files, and the check of an installation none of whose files changed since a plan checked it (in $PACKAGE_SDK_CACHE/check); --no-cache checks everything afresh.',
    default: true, allowNo: true,
  }),
};
