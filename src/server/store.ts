import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { Refusal } from '../fs/refusal.js';

/**
 * The local core's state: one SQLite file in WAL mode. Catalog objects are stored as the JSON the API
 * answers with, in collections (`task-types`, `rules`, …) with the key indexed; every write of a request
 * runs in one transaction together with its idempotency record, so a crash leaves either all of a request
 * or none of it.
 */
/** A stored object: the JSON the API answers with. Its key (key, slug, name) is indexed beside it. */
export interface Row {
  id: string;
}

export interface StoredReply {
  requestHash: string;
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS rows (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  collection TEXT NOT NULL,
  id TEXT NOT NULL,
  key TEXT NOT NULL,
  body TEXT NOT NULL,
  UNIQUE (collection, id)
);
CREATE INDEX IF NOT EXISTS rows_by_key ON rows (collection, key);
CREATE TABLE IF NOT EXISTS idempotency (
  key TEXT PRIMARY KEY,
  request_hash TEXT NOT NULL,
  status INTEGER NOT NULL,
  body TEXT NOT NULL,
  headers TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS bundles (
  bundle_id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  version TEXT NOT NULL,
  department TEXT,
  sha256 TEXT NOT NULL,
  bundle TEXT NOT NULL,
  signature TEXT NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (name, version)
);
`;

export interface BundleRecord {
  bundle_id: string;
  name: string;
  version: string;
  department: string | null;
  sha256: string;
  bundle: string;
  signature: string;
  created_at: string;
}

/**
 * better-sqlite3, loaded when a local core opens its database: it is an optional peer dependency, so that
 * installing package-sdk for `check` (a pre-commit hook, an editor, CI) compiles no native code.
 */
function sqliteDriver(): typeof Database {
  try {
    return createRequire(import.meta.url)('better-sqlite3') as typeof Database;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw error;
    throw new Refusal('sqlite_missing', 'the local core keeps its state in SQLite, and better-sqlite3 is not installed beside package-sdk', {
      hint: 'install it where package-sdk is installed: npm install --global better-sqlite3 (or npm install better-sqlite3 in a project that depends on package-sdk)',
      exitCode: 2,
    });
  }
}

/** Thrown to end a trial: it rolls the trial's writes back. */
const ROLL_BACK = Symbol('roll back');

export class Store {
  private readonly statements = new Map<string, Database.Statement>();

  private constructor(readonly db: Database.Database) {}

  private stmt(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) this.statements.set(sql, (statement = this.db.prepare(sql)));
    return statement;
  }

  static open(dataDir: string): Store {
    mkdirSync(dataDir, { recursive: true });
    const db = new (sqliteDriver())(join(dataDir, 'core.sqlite'));
    db.pragma('journal_mode = WAL');
    // NORMAL loses nothing on a process crash in WAL mode, only on a power loss.
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 5000');
    db.exec(SCHEMA);
    return new Store(db);
  }

  close(): void {
    this.db.close();
  }

  /** Runs `fn` in one IMMEDIATE transaction: all of its writes or none. */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  /**
   * Runs `fn` as a trial: what it writes is seen by its own reads and rolled back at the end, whether it
   * succeeds or throws. Inside a transaction it is a savepoint of it.
   */
  rolledBack<T>(fn: () => T): T {
    const done = { result: undefined as T };
    try {
      this.db.transaction(() => {
        done.result = fn();
        throw ROLL_BACK;
      })();
    } catch (error) {
      if (error !== ROLL_BACK) throw error;
    }
    return done.result;
  }

  insert<T extends Row>(collection: string, key: string, row: T): T {
    this.stmt('INSERT INTO rows (collection, id, key, body) VALUES (?, ?, ?, ?)').run(collection, row.id, key, JSON.stringify(row));
    return row;
  }

  replace<T extends Row>(collection: string, row: T): T {
    const result = this.stmt('UPDATE rows SET body = ? WHERE collection = ? AND id = ?').run(JSON.stringify(row), collection, row.id);
    if (result.changes !== 1) throw new Error(`no row ${collection}/${row.id} to replace`);
    return row;
  }

  replaceOrInsert<T extends Row>(collection: string, key: string, row: T): T {
    return this.get(collection, row.id) ? this.replace(collection, row) : this.insert(collection, key, row);
  }

  remove(collection: string, id: string): void {
    this.stmt('DELETE FROM rows WHERE collection = ? AND id = ?').run(collection, id);
  }

  get<T extends Row>(collection: string, id: string): T | undefined {
    const found = this.stmt('SELECT body FROM rows WHERE collection = ? AND id = ?').get(collection, id) as { body: string } | undefined;
    return found ? (JSON.parse(found.body) as T) : undefined;
  }

  /** Rows with this key, oldest first. */
  byKey<T extends Row>(collection: string, key: string): T[] {
    const rows = this.stmt('SELECT body FROM rows WHERE collection = ? AND key = ? ORDER BY seq').all(collection, key) as { body: string }[];
    return rows.map((r) => JSON.parse(r.body) as T);
  }

  /** Every row of a collection, oldest first. */
  all<T extends Row>(collection: string): T[] {
    const rows = this.stmt('SELECT body FROM rows WHERE collection = ? ORDER BY seq').all(collection) as { body: string }[];
    return rows.map((r) => JSON.parse(r.body) as T);
  }

  count(collection: string): number {
    return (this.stmt('SELECT count(*) AS n FROM rows WHERE collection = ?').get(collection) as { n: number }).n;
  }

  storedReply(idempotencyKey: string): StoredReply | undefined {
    const found = this.stmt('SELECT request_hash, status, body, headers FROM idempotency WHERE key = ?').get(idempotencyKey) as
      | { request_hash: string; status: number; body: string; headers: string }
      | undefined;
    if (!found) return undefined;
    return { requestHash: found.request_hash, status: found.status, body: JSON.parse(found.body), headers: JSON.parse(found.headers) };
  }

  storeReply(idempotencyKey: string, reply: StoredReply): void {
    this.db
      .prepare('INSERT INTO idempotency (key, request_hash, status, body, headers) VALUES (?, ?, ?, ?, ?)')
      .run(idempotencyKey, reply.requestHash, reply.status, JSON.stringify(reply.body ?? null), JSON.stringify(reply.headers));
  }

  bundle(bundleId: string): BundleRecord | undefined {
    return this.stmt('SELECT * FROM bundles WHERE bundle_id = ?').get(bundleId) as BundleRecord | undefined;
  }

  bundleByNameVersion(name: string, version: string): BundleRecord | undefined {
    return this.stmt('SELECT * FROM bundles WHERE name = ? AND version = ?').get(name, version) as BundleRecord | undefined;
  }

  bundles(): BundleRecord[] {
    return this.stmt('SELECT * FROM bundles ORDER BY created_at, bundle_id').all() as BundleRecord[];
  }

  insertBundle(record: BundleRecord): void {
    this.db
      .prepare('INSERT INTO bundles (bundle_id, name, version, department, sha256, bundle, signature, created_at) VALUES (@bundle_id, @name, @version, @department, @sha256, @bundle, @signature, @created_at)')
      .run(record);
  }
}
