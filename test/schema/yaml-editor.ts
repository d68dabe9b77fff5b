/**
 * The real yaml-language-server, driven over stdio as an editor drives it: files are written to a scratch
 * folder with the modeline pointing at our schema by a relative path, as an author writes it, and opened.
 * The server validates an opened file after a short delay, so documents are opened together and their
 * diagnostics awaited together.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { LspClient } from './lsp-client.js';
import { SCHEMA_DIR, type SchemaDocument } from './schemas.js';

export const OBJECT_SCHEMA = join(SCHEMA_DIR, 'object.schema.json');
export const VIEW_SCHEMA = join(SCHEMA_DIR, 'view.schema.json');
const SERVER = fileURLToPath(new URL('../../node_modules/yaml-language-server/bin/yaml-language-server', import.meta.url));
const SETTINGS = { yaml: { validate: true, hover: true, completion: true, schemaStore: { enable: false } } };

interface CompletionList { items: Array<{ label: string }> }
interface Hover { contents: { value: string } }
export interface Diagnostic { message: string; range: { start: { line: number } } }

export interface OpenedFile {
  uri: string;
  /** The diagnostics the server publishes for the file once it has validated it. */
  diagnostics: Promise<Diagnostic[]>;
}

export class YamlEditor {
  private version = 0;
  private opened = 0;

  private constructor(private readonly dir: string, private readonly client: LspClient) {}

  /** Starts the server on a fresh scratch folder and initializes it. */
  static async start(): Promise<YamlEditor> {
    const dir = mkdtempSync(join(tmpdir(), 'package-sdk-editor-'));
    const client = new LspClient(process.execPath, [SERVER, '--stdio'], SETTINGS);
    await client.request('initialize', {
      processId: process.pid,
      rootUri: pathToFileURL(dir).href,
      capabilities: {
        workspace: { configuration: true },
        textDocument: { completion: { completionItem: { snippetSupport: true } }, hover: { contentFormat: ['markdown', 'plaintext'] } },
      },
    });
    client.notify('initialized', {});
    client.notify('workspace/didChangeConfiguration', { settings: SETTINGS });
    return new YamlEditor(dir, client);
  }

  async stop(): Promise<void> {
    await this.client.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Opens `body` (its own modeline replaced by one to `schema`) as a new file of the scratch folder. */
  open(body: string, schema = OBJECT_SCHEMA): OpenedFile {
    const path = join(this.dir, `file-${++this.opened}.yaml`);
    const text = `# yaml-language-server: $schema=${relative(this.dir, schema)}\n${body.replace(/^# yaml-language-server:.*\n/, '')}`;
    writeFileSync(path, text);
    const uri = pathToFileURL(path).href;
    const diagnostics = this.client.diagnosticsOf(uri) as Promise<unknown> as Promise<Diagnostic[]>;
    this.client.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'yaml', version: ++this.version, text } });
    return { uri, diagnostics };
  }

  /** Opens a file as it is, its own modeline included (a file of a package, where an author opens it). */
  openFile(path: string): OpenedFile {
    const text = readFileSync(path, 'utf8');
    const uri = pathToFileURL(path).href;
    const diagnostics = this.client.diagnosticsOf(uri) as Promise<unknown> as Promise<Diagnostic[]>;
    this.client.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'yaml', version: ++this.version, text } });
    return { uri, diagnostics };
  }

  /** Opens every document against its public schema at once; their diagnostics, by document, in order. */
  async diagnosticsOfAll(documents: readonly SchemaDocument[]): Promise<Diagnostic[][]> {
    const files = documents.map((d) => this.open(d.text, join(SCHEMA_DIR, `${d.schema}.schema.json`)));
    return Promise.all(files.map((file) => file.diagnostics));
  }

  async completionLabels(uri: string, line: number, character: number): Promise<string[]> {
    const list = (await this.client.request('textDocument/completion', { textDocument: { uri }, position: { line, character } })) as unknown as CompletionList;
    return list.items.map((i) => i.label);
  }

  async hoverText(uri: string, line: number, character: number): Promise<string> {
    const hover = (await this.client.request('textDocument/hover', { textDocument: { uri }, position: { line, character } })) as unknown as Hover | null;
    return hover?.contents.value ?? '';
  }
}

/** `name:line: message` for every diagnostic of the documents (empty when the server agrees they are valid). */
export function reported(documents: readonly SchemaDocument[], diagnostics: readonly Diagnostic[][]): string[] {
  return documents.flatMap((d, i) => diagnostics[i]!.map((f) => `${d.name}:${f.range.start.line}: ${f.message}`));
}
