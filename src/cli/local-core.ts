/**
 * The embedded core of `--server local`, as the commands hand it to the library: the local core of
 * src/server/, loaded only when a command really starts one (the others never load the server and its
 * database).
 */
import type { LocalCoreStarter } from '../contract/local-core.js';

export const localCore: LocalCoreStarter = async (request) => (await import('../server/local.js')).startLocalCore(request);
