import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalBytesOf, loadSigningKey, parseJson, publicKeyJson, readTrustStore, sha256Hex, validateBundle, verifyBundleSignatureValue } from '../../bundle/index.js';
import { JsonSyntaxError } from '../../bundle/index.js';
import type { JsonObject, ParsedJson, TrustedKey } from '../../bundle/index.js';
import { newId as newBundleId, writeKeyPair } from '../../bundle/keys.js';
import { CoreError } from '../errors.js';
import type { BundleSupport, Route } from '../route.js';

/**
 * Kernos bundles and keys (compat-kernos §4) on the local core: `POST /v1/bundles` checks the signature
 * first, then validates, then stores by (name, version) — the same bytes again is the same answer, other
 * bytes are 409. Publisher keys are trusted by files in `<data>/keys/trusted/` (`package-sdk keys trust
 * --data <data>`), re-read on every check, so trusting or removing a key needs no restart.
 */
const startedAt = Date.now();

/** The control-plane key, made on first start (`keys/control-plane.key`, `.pub`); it may sign bundles too. */
export function loadBundleSupport(dataDir: string): BundleSupport {
  const base = join(dataDir, 'keys', 'control-plane');
  if (!existsSync(`${base}.key`)) {
    mkdirSync(join(dataDir, 'keys'), { recursive: true });
    writeKeyPair(base);
  }
  const signing = loadSigningKey(`${base}.key`);
  const controlPlaneKey: TrustedKey = { keyId: signing.keyId, publicKey: signing.publicKey };
  return { controlPlaneKey, trusted: () => [controlPlaneKey, ...readTrustStore(dataDir).keys] };
}

function support(state: { bundles?: BundleSupport }): BundleSupport {
  if (!state.bundles) throw new CoreError(501, 'not_implemented', 'bundles are not available on this core');
  return state.bundles;
}

export const BUNDLE_ROUTES: Route[] = [
  {
    method: 'POST',
    path: '/v1/bundles',
    api: 'kernos',
    summary: 'Apply a signed bundle: 201 stored, 200 the same bytes again, 409 other bytes for the same name and version',
    request: 'BundleApplyRequest',
    response: 'BundleCreatedOut',
    status: 201,
    alsoStatus: 200,
    handle(ctx) {
      // Numbers as written: the signature covers the canonical form, which depends on the lexemes.
      const parsed = bodyAsKernosReadsIt(ctx.rawBody);
      const body = parsed.value as JsonObject;
      const verdict = verifyBundleSignatureValue(body.bundle!, body.signature!, support(ctx.state).trusted());
      if (!verdict.ok) throw new CoreError(422, verdict.code, verdict.message);
      const span = parsed.spans.get('/bundle')!;
      const bundleText = ctx.rawBody.slice(span.start, span.end);
      const [first] = validateBundle(bundleText).errors;
      if (first) throw new CoreError(422, 'bundle_invalid', `${first.details.path}: ${first.message}`, { path: first.details.path, message: first.message });
      const bundle = body.bundle as JsonObject;
      const name = bundle.name as string;
      const version = bundle.version as string;
      const sha256 = sha256Hex(canonicalBytesOf(bundle));
      const existing = ctx.store.bundleByNameVersion(name, version);
      if (existing) {
        if (existing.sha256 !== sha256) throw new CoreError(409, 'bundle_version_exists', `bundle ${name}@${version} already exists with different content`);
        return { status: 200, body: { bundle_id: existing.bundle_id, name, version } };
      }
      // Stored as sent, with the algorithm filled in (and no sha256 when none was sent).
      const signature = { algorithm: 'ed25519', ...(ctx.body as { signature: Record<string, unknown> }).signature };
      const record = {
        bundle_id: newBundleId('bnd'),
        name,
        version,
        department: typeof bundle.department === 'string' ? bundle.department : null,
        sha256,
        bundle: bundleText,
        signature: JSON.stringify(signature),
        created_at: new Date().toISOString(),
      };
      ctx.store.insertBundle(record);
      return { status: 201, body: { bundle_id: record.bundle_id, name, version } };
    },
  },
  {
    method: 'GET',
    path: '/v1/bundles',
    api: 'kernos',
    summary: 'The stored bundles',
    response: 'BundleList',
    handle: (ctx) => ({
      body: ctx.store.bundles().map((b) => ({
        bundle_id: b.bundle_id,
        name: b.name,
        version: b.version,
        department: b.department,
        workflows: Object.keys((JSON.parse(b.bundle) as { workflows?: object }).workflows ?? {}).sort(),
        created_at: b.created_at,
      })),
    }),
  },
  {
    method: 'GET',
    path: '/v1/bundles/{id}',
    api: 'kernos',
    summary: 'One stored bundle with its signature',
    response: 'BundleOut',
    handle(ctx) {
      const b = ctx.store.bundle(ctx.params.id!);
      if (!b) throw new CoreError(404, 'bundle_not_found', `bundle ${ctx.params.id} not found`);
      // The bundle as it was sent, byte for byte: its numbers keep their form (7250.0, 1e16, -0), so its signature still verifies.
      const members = { bundle_id: b.bundle_id, name: b.name, version: b.version, department: b.department };
      const head = JSON.stringify(members).slice(0, -1);
      return { body: undefined, raw: `${head},"bundle":${b.bundle},"signature":${b.signature},"created_at":${JSON.stringify(b.created_at)}}` };
    },
  },
  {
    method: 'GET',
    path: '/v1/keys',
    api: 'kernos',
    summary: 'The control-plane key',
    response: 'KeyOut',
    handle: (ctx) => ({ body: publicKeyJson(support(ctx.state).controlPlaneKey) }),
  },
  {
    method: 'GET',
    path: '/v1/health',
    api: 'kernos',
    summary: 'Liveness and version',
    response: 'HealthOut',
    handle: (ctx) => ({ body: { ok: true, version: ctx.state.version, uptime_s: Math.floor((Date.now() - startedAt) / 1000), runs: { running: 0, parked: 0 } } }),
  },
];

/**
 * The body as serde_json reads it (nesting at most 127, numbers in its range), and refusing a repeated key,
 * which serde_json would resolve one way and another reader the other: `400 invalid_json`, as kernos answers
 * a body it cannot decode.
 */
function bodyAsKernosReadsIt(rawBody: string): ParsedJson {
  try {
    return parseJson(rawBody);
  } catch (error) {
    if (!(error instanceof JsonSyntaxError)) throw error;
    throw new CoreError(400, 'invalid_json', `the request body is not JSON as the control plane reads it: ${error.message}`);
  }
}
