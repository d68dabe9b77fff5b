import type { Reply, RouteContext } from './route.js';
import type { BundleSupport } from './routes/bundles.js';

/**
 * Runs a package's tests for `POST /packages:test`: the sandbox (package-sdk's process engine) unless a
 * caller plugs in another.
 */
export type PackageTester = (request: PackageTestRequest, ctx: RouteContext) => Promise<Reply>;

export interface PackageTestRequest {
  package: { files: { path: string; content: string }[] };
  tests?: string[];
  workspaceId?: string | null;
  checkOnly: boolean;
}

/** What every route may read besides the store: fixed for the life of a server. */
export interface CoreState {
  /** `info.version` of /openapi.json — the control-plane version packages' `engines` are checked against. */
  version: string;
  dataDir: string;
  packageTester: PackageTester;
  /** Set when the bundle library loaded; the Kernos routes answer 501 without it. */
  bundles?: BundleSupport;
}
