/**
 * What a local core is seeded with: the tenant's workspaces, projects, principals and roles that installation
 * variables name and the real core would already hold.
 */
export type SeedKind = 'workspaces' | 'projects' | 'principals' | 'roles';
export type Seed = Partial<Record<SeedKind, Record<string, unknown>[]>>;
