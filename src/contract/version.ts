/**
 * The control-plane version the local core reports (`/openapi.json` `info.version`, `/v1/health`). `check`
 * compares a package's `engines.control-plane` with it without loading the server.
 */
export const DEFAULT_CORE_VERSION = '0.10.0';
