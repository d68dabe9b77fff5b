import { readRegularFileSync } from '../fs/read.js';
import { Refusal } from '../fs/refusal.js';
import { JsonSyntaxError, type ParsedJson, parseJson, SERDE_JSON } from '../json/parse.js';

/** Reads a JSON input of a command; unreadable or non-JSON input is a usage error (exit 2), as in kernos. */
export function readJsonFile(file: string, what = 'file'): ParsedJson {
  let text: string;
  try {
    text = readRegularFileSync(file);
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new Refusal('usage', missing ? `${what} ${file} does not exist` : `cannot read ${what} ${file}: ${(error as Error).message}`, { exitCode: 2 });
  }
  try {
    return parseJson(text, SERDE_JSON);
  } catch (error) {
    if (!(error instanceof JsonSyntaxError)) throw error;
    throw new Refusal('usage', `${file}:${error.line}:${error.column}: ${what} is not valid JSON: ${error.reason}`, { exitCode: 2, details: { line: error.line, column: error.column } });
  }
}

/** `bundle.json` → `bundle.sig.json`, next to the bundle (kernos' default signature file). */
export function defaultSignatureFile(bundleFile: string): string {
  return `${bundleFile.replace(/\.json$/, '')}.sig.json`;
}
