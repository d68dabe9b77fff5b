/**
 * `package-sdk mcp`: a Model Context Protocol server over stdio, so that an AI assistant can author, check
 * and plan packages without a shell. Tools: tools.ts. Resources: the field reference of every kind
 * (generated from schema/v1), each JSON Schema of schema/v1, and the catalogue of finding codes.
 */
import { readdir, readFile } from 'node:fs/promises';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListResourcesRequestSchema, ListToolsRequestSchema, ReadResourceRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { SCHEMA_DIR } from '../author/hints.js';
import { codeCatalog, renderFindingsDoc } from '../check/catalog.js';
import { renderSchemaReference, schemaReference } from '../docs/schema-reference.js';
import { Refusal } from '../fs/refusal.js';
import { TOOLS, type ToolContext } from './tools.js';

export interface McpOptions extends ToolContext {
  version: string;
}

interface Resource {
  uri: string;
  name: string;
  description: string;
  mimeType: string;
  read(): Promise<string>;
}

/** A server with the tools and resources; `connect` it to a transport. */
export function mcpServer(options: McpOptions): Server {
  const server = new Server({ name: 'package-sdk', version: options.version }, {
    capabilities: { tools: {}, resources: {} },
    instructions: 'Author taimen.ai packages: check a package, edit its files (edits are checked before they are written), ' +
      'run its scenarios, plan an installation against a core. apply needs a person\'s approval: confirm: true and the planHash they approved.',
  });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: TOOLS.map(({ name, title, description, inputSchema, outputSchema }) => ({ name, title, description, inputSchema, outputSchema })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => callTool(request.params.name, request.params.arguments ?? {}, options));
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: (await resources()).map(({ uri, name, description, mimeType }) => ({ uri, name, description, mimeType })),
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const resource = (await resources()).find((candidate) => candidate.uri === request.params.uri);
    if (!resource) throw new Error(`no resource ${request.params.uri}`);
    return { contents: [{ uri: resource.uri, mimeType: resource.mimeType, text: await resource.read() }] };
  });
  return server;
}

/** Serves on stdin and stdout until stdin ends. */
export async function serveStdio(options: McpOptions): Promise<void> {
  const server = mcpServer(options);
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
  });
  await server.connect(new StdioServerTransport());
  process.stdin.once('end', () => void server.close());
  await closed;
}

/** A tool's answer: its result as structured content (and as text), or a refusal as an error result. */
async function callTool(name: string, args: Record<string, unknown>, context: ToolContext): Promise<CallToolResult> {
  const tool = TOOLS.find((candidate) => candidate.name === name);
  if (!tool) return refusalResult(new Refusal('unknown_tool', `no tool '${name}'; tools: ${TOOLS.map((t) => t.name).join(', ')}`));
  try {
    const result = await tool.run(args, context);
    return { content: [{ type: 'text', text: JSON.stringify(result, null, 2) }], structuredContent: result };
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal) return refusalResult(refusal);
    throw error;
  }
}

/** The library's refusals, and the errors of the core's client (which carry a code), as refusals. */
function refusalOf(error: unknown): Refusal | undefined {
  if (error instanceof Refusal) return error;
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && typeof code === 'string' && /^[a-z][a-z0-9_]*$/.test(code) ? new Refusal(code, error.message) : undefined;
}

function refusalResult(refusal: Refusal): CallToolResult {
  const error = { code: refusal.code, message: refusal.message, ...(refusal.hint ? { hint: refusal.hint } : {}), ...(Object.keys(refusal.details).length > 0 ? { details: refusal.details } : {}) };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error }, null, 2) }] };
}

async function resources(): Promise<Resource[]> {
  const schemas = (await readdir(SCHEMA_DIR)).filter((file) => file.endsWith('.schema.json')).sort();
  return [
    {
      uri: 'package-sdk://docs/schema-reference.md', name: 'schema-reference', mimeType: 'text/markdown',
      description: 'Every field of every kind of object, installation, test and plan, from schema/v1.',
      read: async () => renderSchemaReference(await schemaReference(SCHEMA_DIR)),
    },
    {
      uri: 'package-sdk://docs/findings.md', name: 'findings', mimeType: 'text/markdown',
      description: 'Every code check, lock, plan and apply report, with its severity and meaning.',
      read: async () => renderFindingsDoc(),
    },
    {
      uri: 'package-sdk://findings.json', name: 'findings-catalog', mimeType: 'application/json',
      description: 'The catalogue of finding codes as JSON: code, severity, summary, source.',
      read: async () => JSON.stringify(codeCatalog(), null, 2),
    },
    ...schemas.map((file) => ({
      uri: `package-sdk://schema/v1/${file}`, name: file.replace(/\.json$/, ''), mimeType: 'application/schema+json',
      description: `The JSON Schema ${file} of package files.`,
      read: () => readFile(`${SCHEMA_DIR}${file}`, 'utf8'),
    })),
  ];
}
