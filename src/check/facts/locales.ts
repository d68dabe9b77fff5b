/**
 * Locales and dictionaries as the manifest declares them and `i18n/` holds them: which locales a package
 * declares, which dictionaries are usable, and whether a key names a message. Read by the dictionary rules and
 * the screen rules alike.
 */
import type { SourceDocument } from '../../json/document.js';
import { childPointer } from '../../json/pointer.js';
import { lineStartsOf } from '../../load/load-finding.js';
import { resolvePlain } from '../../load/yaml-scalars.js';
import type { Dictionary, Package } from '../../model/package.js';
import { isRecord } from '../../json/guards.js';

export const LOCALE = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8}){0,2}$/;
export const MESSAGE_KEY = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,199}$/;
export const DICTIONARY_EXTENSION = '.yaml';

export type MessageMistake =
  | { reason: 'key-not-text'; written: string; holds: string }
  | { reason: 'empty-key' }
  | { reason: 'bad-key'; key: string }
  | { reason: 'not-text'; key: string; holds: string }
  | { reason: 'too-long'; key: string; length: number }
  | { reason: 'unclosed' | 'unopened'; key: string };

/** Whether the key `key` of `dictionary` names a message (invalid_message says why not). */
export function isMessageKey(dictionary: SourceDocument, key: string): boolean {
  return messageKeyMistake(dictionary, childPointer('', key), key) === undefined;
}

/** Whether the screen and i18n rules look at a package: it has screens or dictionaries, or declares locales. */
export function hasScreensOrLocales(pkg: Package): boolean {
  const spec = manifestSpec(pkg);
  return (
    pkg.dictionaries.length > 0 ||
    pkg.objects.some((object) => object.kind === 'View' || object.kind === 'Component') ||
    spec.locales !== undefined ||
    spec.defaultLocale !== undefined
  );
}

/** A locale the manifest declares, and where: an item of `spec.locales`, or `spec.defaultLocale` alone. */
export interface DeclaredLocale {
  locale: string;
  pointer: string;
}

/**
 * The well-formed locales of the manifest, once each; `spec.defaultLocale` alone declares its locale. Undefined
 * when `locales` is not a list (invalid_locales says so).
 */
export function declaredLocales(pkg: Package): DeclaredLocale[] | undefined {
  const { locales, defaultLocale } = manifestSpec(pkg);
  if (locales === undefined) {
    return typeof defaultLocale === 'string' && LOCALE.test(defaultLocale) ? [{ locale: defaultLocale, pointer: '/spec/defaultLocale' }] : [];
  }
  if (!Array.isArray(locales)) return undefined;
  const out: DeclaredLocale[] = [];
  locales.forEach((locale, index) => {
    if (typeof locale === 'string' && LOCALE.test(locale) && !out.some((known) => known.locale === locale)) {
      out.push({ locale, pointer: childPointer('/spec/locales', index) });
    }
  });
  return out;
}

/** A dictionary whose file is `i18n/<locale>.yaml` and whose content is a mapping (an empty file is empty). */
export interface LocaleDictionary {
  dictionary: Dictionary;
  messages: Record<string, unknown>;
}

/** The dictionaries named `i18n/<locale>.yaml`, whatever they hold. */
export function wellPlaced(pkg: Package): Dictionary[] {
  return pkg.dictionaries.filter((dictionary) => placementProblem(dictionary) === undefined && !isHidden(dictionary));
}

/** The usable dictionaries of a package by locale: well named, well placed, a mapping. */
export function localeDictionaries(pkg: Package): Map<string, LocaleDictionary> {
  const out = new Map<string, LocaleDictionary>();
  for (const dictionary of wellPlaced(pkg)) {
    const value = dictionary.document.value;
    if (value === null) out.set(dictionary.locale, { dictionary, messages: {} });
    else if (isRecord(value)) out.set(dictionary.locale, { dictionary, messages: value });
  }
  return out;
}

export function messageKeyMistake(document: SourceDocument, pointer: string, key: string): { mistake: MessageMistake; hint: string } | undefined {
  // Only a key whose text reads as a number, a boolean or null can have been written as one: look at those.
  const written = readsAsNonText(key) ? writtenKey(document, pointer) : undefined;
  const read = written === undefined ? undefined : resolvePlain(written);
  if (written !== undefined && read !== undefined && 'value' in read && typeof read.value !== 'string') {
    const holds = read.value === null ? 'null' : `a ${typeof read.value}`;
    return { mistake: { reason: 'key-not-text', written, holds }, hint: `name the message after what it shows, e.g. <package>.${written}` };
  }
  if (key === '') return { mistake: { reason: 'empty-key' }, hint: 'name the message, e.g. <package>.list.title' };
  if (!MESSAGE_KEY.test(key)) return { mistake: { reason: 'bad-key', key }, hint: `name the message, e.g. ${suggestedKey(key)}, and put the text after it` };
  return undefined;
}

export function readsAsNonText(text: string): boolean {
  const read = resolvePlain(text);
  return !('value' in read) || typeof read.value !== 'string';
}

/** A mapping key as written when it is a plain (unquoted) scalar; undefined for quoted and multi-line keys. */
export function writtenKey(document: SourceDocument, pointer: string): string | undefined {
  const span = document.locate(pointer, 'key');
  if (span.endLine !== span.line || span.endColumn === undefined) return undefined;
  const starts = lineStartsOf(document.text);
  const start = (starts[span.line - 1] ?? 0) + span.column - 1;
  const written = document.text.slice(start, (starts[span.line - 1] ?? 0) + span.endColumn - 1);
  return /^["'!&*]/.test(written) ? undefined : written;
}

export function suggestedKey(key: string): string {
  return key.trim().toLowerCase().replace(/[^a-z0-9_.-]+/g, '-').replace(/^[^a-z0-9]+/, '') || 'package.title';
}

/** Why a file under i18n/ is not a dictionary by its name and place, or undefined when it is `i18n/<locale>.yaml`. */
export function placementProblem(dictionary: Dictionary): { file: string; hint?: string } | undefined {
  const name = dictionary.file.slice(dictionary.file.lastIndexOf('/') + 1);
  const file = `i18n/${dictionary.locale}${name.endsWith('.yml') ? '.yml' : DICTIONARY_EXTENSION}`;
  if (dictionary.locale.includes('/')) return { file, hint: 'move its messages into the dictionary of their locale, directly under i18n/' };
  if (!LOCALE.test(dictionary.locale)) {
    const locale = normalizedLocale(dictionary.locale);
    return { file, ...(locale ? { hint: `did you mean i18n/${locale}${DICTIONARY_EXTENSION}?` } : {}) };
  }
  if (name.endsWith('.yml')) return { file, hint: `rename it to i18n/${dictionary.locale}${DICTIONARY_EXTENSION}` };
  return undefined;
}

/** `EN_us` → `en-US`: the locale an author most likely meant, when there is one. */
export function normalizedLocale(written: string): string | undefined {
  const [language = '', ...rest] = written.split(/[-_]/);
  const locale = [language.toLowerCase(), ...rest.map((part) => (part.length === 2 ? part.toUpperCase() : part))].join('-');
  return LOCALE.test(locale) ? locale : undefined;
}

export function isHidden(dictionary: Dictionary): boolean {
  return dictionary.locale.split('/').some((segment) => segment.startsWith('.'));
}

export function manifestSpec(pkg: Package): Record<string, unknown> {
  const spec = (pkg.manifest.value as { spec?: unknown } | null)?.spec;
  return isRecord(spec) ? spec : {};
}
