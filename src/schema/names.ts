/** The public schemas by name, and their files in schema/v1/ (what `$ref`s and editors name). */
export type SchemaName = 'object' | 'test' | 'lock' | 'plan' | 'view' | 'knowledge-pack' | 'knowledge-template';

export function schemaFile(name: SchemaName): string {
  return `${name}.schema.json`;
}
