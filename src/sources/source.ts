/**
 * Git sources of an installation: `{key, git, ref, path?}`. Everything here is checked before any git call,
 * because the URL, the ref and the path end up on a git command line (compat §2.4).
 */

export interface GitSource {
  key: string;
  git: string;
  ref: string;
  /** Subdirectory of the package in the repository. */
  path?: string;
}

/** How git reaches a source; only this protocol is allowed for the source's git calls. */
export type Transport = 'https' | 'ssh' | 'http' | 'file';

/** The published forms: https without credentials, or scp-style ssh whose path cannot pass for an option. */
const REMOTE_URL =
  /^(https:\/\/[A-Za-z0-9][A-Za-z0-9.-]*(:[0-9]+)?\/[^\s@]*[^\s@/]|git@[A-Za-z0-9][A-Za-z0-9.-]*:[^\s@-][^\s@]*)$/;
/** For local use and tests: plain http to the loopback interface only, and local repositories. */
const LOOPBACK_HTTP_URL = /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:[0-9]+)?\/[^\s@]*[^\s@/]$/;
const FILE_URL = /^file:\/\/\/[^\s@]*[^\s@/]$/;

const REF = /^[A-Za-z0-9_][A-Za-z0-9._+/-]*$/;
const SUBDIR = /^[A-Za-z0-9_][A-Za-z0-9._-]*(\/[A-Za-z0-9_][A-Za-z0-9._-]*)*$/;

/** `scheme://userinfo@`: a user name, a `user:password` or a bare token before the host. */
const URL_CREDENTIALS = /([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^\s/@]+)@/g;

/**
 * `text` with every credential of a URL in it replaced by `***` (`https://user:***@host`, `https://***@host`
 * for a bare token): a URL is shown in messages and code frames, its secret never.
 */
export function redactCredentials(text: string): string {
  return text.replace(URL_CREDENTIALS, (_, scheme: string, userinfo: string) => {
    const colon = userinfo.indexOf(':');
    return `${scheme}${colon === -1 ? '***' : `${userinfo.slice(0, colon)}:***`}@`;
  });
}

export function transportOf(url: string): Transport | undefined {
  if (REMOTE_URL.test(url)) return url.startsWith('https://') ? 'https' : 'ssh';
  if (LOOPBACK_HTTP_URL.test(url)) return 'http';
  if (FILE_URL.test(url)) return 'file';
  return undefined;
}

/** Local URLs are outside the published lock schema's pattern: the reference tool refuses them. */
export function isLocalUrl(url: string): boolean {
  const transport = transportOf(url);
  return transport === 'http' || transport === 'file';
}

export function isTagName(ref: string): boolean {
  return ref.length <= 200 && REF.test(ref) && !ref.includes('..') && !ref.includes('//') &&
    !/(\.|\/|\.lock)$/.test(ref);
}

export function isSubdir(path: string): boolean {
  return path.length <= 500 && SUBDIR.test(path) && path.split('/').every((part) => part !== '.' && part !== '..');
}

/** A problem with a git source, before it becomes a finding at the place that names the source. */
export interface SourceProblem {
  code: string;
  message: string;
  hint?: string;
  /** The field of the source entry the problem is about; none for the entry as a whole. */
  field?: 'git' | 'ref' | 'path';
}

/** Codes of invalid git sources (documented in docs/lock.md). */
export function sourceProblems(source: GitSource): SourceProblem[] {
  const problems: SourceProblem[] = [];
  if (transportOf(source.git) === undefined) {
    problems.push({
      code: 'git_url_invalid', field: 'git',
      message: `git source '${redactCredentials(source.git)}': expected https://host/path or git@host:path (on this machine also http://127.0.0.1[:port]/path or file:///path)`,
      hint: urlHint(source.git),
    });
  }
  if (!isTagName(source.ref)) {
    problems.push({
      code: 'git_ref_invalid', field: 'ref',
      message: `ref '${source.ref}': expected a tag name (refs/tags/<ref>)`,
    });
  }
  if (source.path !== undefined && !isSubdir(source.path)) {
    problems.push({
      code: 'git_path_invalid', field: 'path',
      message: `package path in the repository '${source.path}': expected a relative path without '.' and '..'`,
    });
  }
  return problems;
}

/** What is wrong with a URL no transport accepts, in the words that fit it. */
function urlHint(url: string): string {
  if (/^[a-z+]+:\/\/[^/\s]*@/i.test(url)) return 'credentials belong in the git credential helper, not in the installation';
  if (/^http:\/\//i.test(url)) return 'plain http reaches only this machine (127.0.0.1, localhost, [::1]): use https:// for another host';
  if (/^file:\/\/[^/]/i.test(url)) return 'a local repository is file:///absolute/path (three slashes)';
  return 'for example https://github.com/acme/fleet.git or git@github.com:acme/fleet.git';
}

/** `-c` settings of every git call for a source: only the source's own protocol, never `ext`, `file`… */
export function protocolConfig(transport: Transport): string[] {
  return ['protocol.allow=never', `protocol.${transport}.allow=always`];
}
