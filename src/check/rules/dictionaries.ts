/**
 * Locales and dictionaries of a package (compat-package-sdk-check.md §2.9): the manifest declares `locales`
 * (and `defaultLocale`), each declared locale has its dictionary `i18n/<locale>.yaml`, and a dictionary is a
 * flat mapping of message keys to ICU MessageFormat texts.
 */
import type { SourceDocument } from '../../json/document.js';
import { childPointer } from '../../json/pointer.js';
import type { Package } from '../../model/package.js';
import type { Workspace } from '../../model/workspace.js';
import {
  DICTIONARY_EXTENSION, LOCALE, hasScreensOrLocales, isHidden, manifestSpec, messageKeyMistake, normalizedLocale, placementProblem,
  wellPlaced, type DeclaredLocale, type MessageMistake,
} from '../facts/locales.js';
import { defineRule } from '../rule.js';
import { isRecord } from '../../json/guards.js';

const MESSAGE_MAX_LENGTH = 2000;

type LocalesMistake =
  | { reason: 'not-a-list'; holds: string }
  | { reason: 'empty' }
  | { reason: 'not-a-locale'; written: string }
  | { reason: 'repeated'; locale: string };
type DefaultLocaleMistake = { reason: 'not-a-locale'; written: string } | { reason: 'undeclared'; locale: string; declared: string };

export const locales = defineRule({
  id: 'i18n/locales',
  description: 'A package with screens or dictionaries declares its locales, and each declared locale has exactly its dictionary.',
  ownsManifestFields: ['/spec/locales', '/spec/defaultLocale'],
  codes: {
    locales_required: {
      severity: 'error',
      summary: 'A package with views, components or dictionaries declares spec.locales (or spec.defaultLocale).',
      message: (d: { what: string }) => `the package has ${d.what} but declares no locales`,
    },
    invalid_locales: {
      severity: 'error',
      summary: 'spec.locales is a non-empty list of distinct locales such as en, ru or pt-BR.',
      message: (d: LocalesMistake) => {
        switch (d.reason) {
          case 'not-a-list':
            return `locales is ${d.holds}; it is a list of locales`;
          case 'empty':
            return 'locales is empty; it lists at least one locale';
          case 'not-a-locale':
            return `${d.written} is not a locale: a locale is a language code such as en, ru or pt-BR`;
          case 'repeated':
            return `locale '${d.locale}' is listed twice`;
        }
      },
    },
    invalid_default_locale: {
      severity: 'error',
      summary: 'spec.defaultLocale is one of spec.locales.',
      message: (d: DefaultLocaleMistake) =>
        d.reason === 'not-a-locale'
          ? `defaultLocale ${d.written} is not a locale: a locale is a language code such as en, ru or pt-BR`
          : `defaultLocale '${d.locale}' is not one of the locales (${d.declared})`,
    },
    missing_dictionary: {
      severity: 'error',
      summary: 'Every declared locale has its dictionary i18n/<locale>.yaml.',
      message: (d: { locale: string }) => `locale '${d.locale}' has no dictionary i18n/${d.locale}${DICTIONARY_EXTENSION}`,
    },
    undeclared_locale: {
      severity: 'error',
      summary: 'Every dictionary i18n/<locale>.yaml is for a locale the manifest declares.',
      message: (d: { locale: string; declared: string }) =>
        `i18n/${d.locale}${DICTIONARY_EXTENSION} is a dictionary of locale '${d.locale}', which the package does not declare (locales: ${d.declared})`,
    },
  },
  check(context) {
    for (const pkg of context.packages()) {
      if (!hasScreensOrLocales(pkg)) continue;
      const spec = manifestSpec(pkg);
      const at = (pointer: string) => ({ document: pkg.manifest, pointer });
      if (spec.locales === undefined && spec.defaultLocale === undefined) {
        if (pkg.dictionaries.length > 0 || pkg.objects.some((o) => o.kind === 'View' || o.kind === 'Component')) {
          context.report('locales_required', { document: pkg.manifest, pointer: '/spec', part: 'key' }, { what: screensOf(pkg) }, {
            hint: `declare them in package.yaml, e.g. locales: [${suggestedLocales(pkg)}]`,
          });
        }
        continue;
      }
      const mistakes = localesMistakes(spec.locales);
      for (const { pointer, mistake, hint } of mistakes) context.report('invalid_locales', at(pointer), mistake, hint ? { hint } : {});
      // Until the locales are right, which dictionary belongs to which declared locale is a guess.
      const declared = mistakes.length > 0 ? undefined : context.facts.locales(pkg);
      const wrongDefault = defaultLocaleMistake(spec.defaultLocale, declared);
      if (wrongDefault) {
        const hint = wrongDefault.reason === 'undeclared' ? { hint: `add '${wrongDefault.locale}' to the locales, or set defaultLocale to one of them` } : {};
        context.report('invalid_default_locale', at('/spec/defaultLocale'), wrongDefault, hint);
      }
      if (declared === undefined) continue;
      // A dictionary that is there but misnamed (.yml) or broken has its own finding: it is not also missing.
      const present = new Set(pkg.dictionaries.map((dictionary) => dictionary.locale));
      for (const { locale, pointer } of declared) {
        if (!present.has(locale) && !dictionaryFailedToLoad(context.workspace, pkg, locale)) {
          context.report('missing_dictionary', at(pointer), { locale }, { hint: `add i18n/${locale}${DICTIONARY_EXTENSION}, or remove '${locale}' from the locales` });
        }
      }
      const names = declared.map((d) => d.locale);
      for (const dictionary of wellPlaced(pkg)) {
        const locale = dictionary.locale;
        if (names.includes(locale)) continue;
        context.report('undeclared_locale', { document: dictionary.document, pointer: '' }, { locale, declared: names.join(', ') || 'none' }, {
          hint: `add '${locale}' to spec.locales in package.yaml, or remove the file`,
        });
      }
    }
  },
});

export const dictionaries = defineRule({
  id: 'i18n/dictionaries',
  description: 'A dictionary is i18n/<locale>.yaml, a mapping of message keys to ICU MessageFormat texts.',
  codes: {
    invalid_dictionary: {
      severity: 'error',
      summary: 'A file under i18n/ is i18n/<locale>.yaml holding a mapping of message keys to texts.',
      message: (d: { file: string; holds?: string }) =>
        d.holds === undefined
          ? `${d.file} is not a dictionary: dictionaries are i18n/<locale>.yaml (i18n/en.yaml, i18n/pt-BR.yaml)`
          : `${d.file} holds ${d.holds}; a dictionary is a mapping of message keys to texts`,
    },
    invalid_message: {
      severity: 'error',
      summary: 'A message key is a dictionary key (letters, digits, _ . -) and its text a string of at most 2000 characters with balanced ICU braces.',
      message: (d: MessageMistake) => {
        switch (d.reason) {
          case 'key-not-text':
            return `the message key ${d.written} is ${d.holds} in YAML; a message key is text`;
          case 'empty-key':
            return 'a message key is empty';
          case 'bad-key':
            return `'${d.key}' is not a message key: a key is Latin letters, digits, _ . and -, starting with a letter or a digit (at most 200)`;
          case 'not-text':
            return `the text of '${d.key}' is ${d.holds}; a message text is a string`;
          case 'too-long':
            return `the text of '${d.key}' has ${d.length} characters — more than ${MESSAGE_MAX_LENGTH}`;
          case 'unclosed':
            return `the text of '${d.key}' opens a '{' that it never closes (ICU MessageFormat)`;
          case 'unopened':
            return `the text of '${d.key}' closes a '}' that it never opened (ICU MessageFormat)`;
        }
      },
    },
  },
  check(context) {
    for (const pkg of context.packages()) {
      for (const dictionary of pkg.dictionaries) {
        if (isHidden(dictionary)) continue;
        const whole = { document: dictionary.document, pointer: '' };
        const misplaced = placementProblem(dictionary);
        if (misplaced) {
          context.report('invalid_dictionary', whole, { file: misplaced.file }, misplaced.hint ? { hint: misplaced.hint } : {});
          continue;
        }
        const value = dictionary.document.value;
        if (value === null) continue;
        if (!isRecord(value)) {
          context.report('invalid_dictionary', whole, { file: `i18n/${dictionary.locale}${DICTIONARY_EXTENSION}`, holds: describeValue(value) }, {
            hint: 'write one line per message: <key>: <text>',
          });
          continue;
        }
        for (const [key, text] of Object.entries(value)) checkMessage(context, dictionary.document, key, text);
      }
    }
  },
});

type DictionaryContext = Parameters<(typeof dictionaries)['check']>[0];

function checkMessage(context: DictionaryContext, document: SourceDocument, key: string, text: unknown): void {
  const pointer = childPointer('', key);
  const keyMistake = messageKeyMistake(document, pointer, key);
  if (keyMistake) {
    context.report('invalid_message', { document, pointer, part: 'key' }, keyMistake.mistake, { hint: keyMistake.hint });
    return;
  }
  if (typeof text !== 'string') {
    context.report('invalid_message', { document, pointer }, { reason: 'not-text', key, holds: describeValue(text) }, {
      hint: text === null ? 'write the text after the key' : 'quote it to make it text',
    });
    return;
  }
  if (text.length > MESSAGE_MAX_LENGTH) {
    context.report('invalid_message', { document, pointer }, { reason: 'too-long', key, length: text.length }, { hint: 'shorten it, or split it into several messages' });
    return;
  }
  const brace = unbalancedBrace(text);
  if (brace) {
    context.report('invalid_message', { document, pointer, offset: brace.offset, length: 1 }, { reason: brace.char === '{' ? 'unclosed' : 'unopened', key }, {
      hint: "balance the braces; a literal brace is quoted: '{' or '}'",
    });
  }
}

/**
 * The first brace that does not balance in an ICU MessageFormat text, or undefined. An apostrophe quotes the
 * syntax character it stands before up to the next apostrophe (`'{'`), `''` is an apostrophe, and any other
 * apostrophe is just one (ICU's default, as formatjs reads it).
 */
export function unbalancedBrace(text: string): { char: '{' | '}'; offset: number } | undefined {
  const open: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'") {
      const next = text[i + 1];
      if (next === "'") i++;
      else if (next === '{' || next === '}' || next === '#' || next === '|') i = quotedEnd(text, i + 1);
    } else if (c === '{') open.push(i);
    else if (c === '}' && open.pop() === undefined) return { char: '}', offset: i };
  }
  const last = open.pop();
  return last === undefined ? undefined : { char: '{', offset: last };
}

/** The offset of the apostrophe that closes a quoted part starting at `from` (`''` inside stays literal). */
function quotedEnd(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    if (text[i] !== "'") continue;
    if (text[i + 1] === "'") i++;
    else return i;
  }
  return text.length;
}

function localesMistakes(locales: unknown): { pointer: string; mistake: LocalesMistake; hint?: string }[] {
  if (locales === undefined) return [];
  if (!Array.isArray(locales)) {
    return [{ pointer: '/spec/locales', mistake: { reason: 'not-a-list', holds: describeValue(locales) }, hint: `write locales: [${typeof locales === 'string' ? locales : 'en'}]` }];
  }
  if (locales.length === 0) return [{ pointer: '/spec/locales', mistake: { reason: 'empty' }, hint: 'write locales: [en]' }];
  const mistakes: { pointer: string; mistake: LocalesMistake; hint?: string }[] = [];
  const seen = new Set<unknown>();
  locales.forEach((locale, index) => {
    const pointer = childPointer('/spec/locales', index);
    if (typeof locale !== 'string' || !LOCALE.test(locale)) {
      const meant = typeof locale === 'string' ? normalizedLocale(locale) : undefined;
      mistakes.push({ pointer, mistake: { reason: 'not-a-locale', written: JSON.stringify(locale) }, ...(meant ? { hint: `did you mean '${meant}'?` } : {}) });
    } else if (seen.has(locale)) {
      mistakes.push({ pointer, mistake: { reason: 'repeated', locale }, hint: 'remove the repetition' });
    }
    seen.add(locale);
  });
  return mistakes;
}

function defaultLocaleMistake(locale: unknown, declared: DeclaredLocale[] | undefined): DefaultLocaleMistake | undefined {
  if (locale === undefined) return undefined;
  if (typeof locale !== 'string' || !LOCALE.test(locale)) return { reason: 'not-a-locale', written: JSON.stringify(locale) };
  if (declared === undefined || declared.some((d) => d.locale === locale)) return undefined;
  return { reason: 'undeclared', locale, declared: declared.map((d) => d.locale).join(', ') };
}

/** The dictionary of `locale` exists but did not load (not YAML): its own finding says why, no second one. */
function dictionaryFailedToLoad(workspace: Workspace, pkg: Package, locale: string): boolean {
  const file = `${pkg.manifest.file.slice(0, pkg.manifest.file.length - 'package.yaml'.length)}i18n/${locale}${DICTIONARY_EXTENSION}`;
  return workspace.findings.some((finding) => finding.file === file);
}

function screensOf(pkg: Package): string {
  const parts: string[] = [];
  const views = pkg.objects.filter((o) => o.kind === 'View').length;
  const components = pkg.objects.filter((o) => o.kind === 'Component').length;
  if (views > 0) parts.push(views === 1 ? 'a view' : `${views} views`);
  if (components > 0) parts.push(components === 1 ? 'a component' : `${components} components`);
  if (pkg.dictionaries.length > 0) parts.push('dictionaries in i18n/');
  return parts.length < 2 ? parts.join('') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}

function suggestedLocales(pkg: Package): string {
  const found = [...new Set(pkg.dictionaries.map((d) => d.locale).filter((locale) => LOCALE.test(locale)))];
  return found.length > 0 ? found.join(', ') : 'en';
}

function describeValue(value: unknown): string {
  if (value === null) return 'empty';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'number') return `a number (${value})`;
  if (typeof value === 'boolean') return `a boolean (${value})`;
  return `the text '${String(value)}'`;
}
