/**
 * A skill version as the core registers it (compat-core-validators.md §5): its contract (normalize_contract),
 * its policy columns, and retries that are safe for its side effects — or, without a contract, its input and
 * output schemas.
 */
import { isRecord } from '../../json/guards.js';
import { credentialProblems, guardProblems, secretKeyProblems } from './json-guard.js';
import { jsonSchemaProblems } from './json-schema.js';
import { at, isInteger, isText, listed, Problems, type DomainProblem } from './problems.js';

const CONTRACT_FIELDS = ['inputs', 'outputs', 'requiredPermissions', 'preconditions', 'postconditions', 'timeoutSeconds', 'retryPolicy', 'idempotency', 'costModel', 'implementation'];
const IMPLEMENTATION_FIELDS = ['protocol', 'endpoint', 'auth', 'entrypoint'];
const PERMISSION = /^(?:admin|[a-z_]+(?:\.[a-z_]+)+)$/;
const SCOPE = /^[A-Za-z0-9_.:*/-]{1,200}$/;
const LOCAL_ENTRYPOINT = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*$/;
const MCP_TOOL = /^[A-Za-z0-9_][A-Za-z0-9_.\-/]{0,199}$/;
const DRAFT_2020_12 = /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/;

/** Every problem of a skill's spec. */
export function skillProblems(spec: Record<string, unknown>): DomainProblem[] {
  const problems = new Problems('invalid_skill');
  const contract = spec.contract;
  if (contract === undefined || contract === null) {
    for (const field of ['inputSchema', 'outputSchema']) {
      if (spec[field] !== undefined && spec[field] !== null) problems.addAll(jsonSchemaProblems(spec[field], at('/spec', field), { label: field }));
    }
    return problems.list;
  }
  for (const column of ['sideEffects', 'riskLevel']) {
    if (spec[column] === undefined || spec[column] === null) problems.add('/spec', `a skill with a contract declares ${column}`, { hint: column === 'sideEffects' ? 'sideEffects: none, external_read or external_write' : 'riskLevel: low, medium or high' });
  }
  problems.addAll(contractProblems(contract, '/spec/contract'));
  const retry = isRecord(contract) && isRecord(contract.retryPolicy) ? contract.retryPolicy : {};
  const idempotency = isRecord(contract) ? (contract.idempotency ?? 'none') : 'none';
  if (spec.sideEffects === 'external_write' && idempotency === 'none' && isInteger(retry.maxAttempts) && retry.maxAttempts > 1) {
    problems.add('/spec/contract/retryPolicy/maxAttempts', 'an external_write skill without idempotency is not retried: maxAttempts must be 1', {
      code: 'invalid_skill_contract',
      hint: 'set idempotency: required (or natural), or maxAttempts: 1',
    });
  }
  return problems.list;
}

/** The contract of a skill version. */
function contractProblems(contract: unknown, pointer: string): DomainProblem[] {
  const problems = new Problems('invalid_skill_contract');
  if (!isRecord(contract)) {
    problems.add(pointer, 'contract must be an object');
    return problems.list;
  }
  const guard = guardProblems(contract, pointer, 'contract', 'invalid_skill_contract');
  if (guard.length > 0) return guard;
  const unknown = Object.keys(contract).filter((key) => !CONTRACT_FIELDS.includes(key));
  if (unknown.length > 0) problems.add(at(pointer, unknown[0]!), `Unknown contract fields ${listed(unknown)}`, { atKey: true, hint: `contract fields: ${CONTRACT_FIELDS.join(', ')}` });
  for (const field of ['inputs', 'outputs', 'implementation']) if (!(field in contract) || contract[field] === null) problems.add(pointer, `contract.${field} is required`);
  for (const field of ['inputs', 'outputs']) {
    const schema = contract[field];
    if (schema === undefined || schema === null) continue;
    if (!isRecord(schema)) problems.add(at(pointer, field), `contract.${field} must be a JSON Schema object`);
    else if (schema.$schema !== undefined && !(typeof schema.$schema === 'string' && DRAFT_2020_12.test(schema.$schema))) {
      problems.add(at(pointer, field, '$schema'), `contract.${field} is a JSON Schema of draft 2020-12`, { hint: '$schema: https://json-schema.org/draft/2020-12/schema' });
    } else problems.addAll(jsonSchemaProblems(schema, at(pointer, field), { label: `contract.${field}` }));
  }
  const permissions = contract.requiredPermissions;
  if (permissions !== undefined && permissions !== null) {
    if (!Array.isArray(permissions)) problems.add(at(pointer, 'requiredPermissions'), 'requiredPermissions must be a list of permissions');
    else permissions.forEach((permission, index) => {
      if (!(typeof permission === 'string' && PERMISSION.test(permission))) problems.add(at(pointer, 'requiredPermissions', index), 'a required permission is a permission of the core, e.g. tasks.read');
    });
  }
  for (const field of ['preconditions', 'postconditions']) {
    const list = contract[field];
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list)) problems.add(at(pointer, field), `contract.${field} must be a list`);
    else if (list.length > 0) problems.add(at(pointer, field), `contract.${field} are not supported yet: leave the list empty`, { code: 'unsupported_skill_condition' });
  }
  if ('timeoutSeconds' in contract && !(isInteger(contract.timeoutSeconds) && contract.timeoutSeconds >= 1 && contract.timeoutSeconds <= 3600)) {
    problems.add(at(pointer, 'timeoutSeconds'), 'timeoutSeconds must be an integer from 1 to 3600');
  }
  retryPolicy(contract.retryPolicy, at(pointer, 'retryPolicy'), problems);
  if ('idempotency' in contract && !['required', 'natural', 'none'].includes(contract.idempotency as string)) {
    problems.add(at(pointer, 'idempotency'), "idempotency must be one of ['required', 'natural', 'none']");
  }
  costModel(contract.costModel, at(pointer, 'costModel'), problems);
  implementation(contract.implementation, at(pointer, 'implementation'), problems);
  return problems.list;
}

function retryPolicy(value: unknown, pointer: string, problems: Problems): void {
  if (value === undefined || value === null) return;
  if (!isRecord(value)) return problems.add(pointer, 'retryPolicy must be an object {maxAttempts?, backoffSeconds?}');
  const unknown = Object.keys(value).filter((key) => key !== 'maxAttempts' && key !== 'backoffSeconds');
  if (unknown.length > 0) problems.add(at(pointer, unknown[0]!), `retryPolicy has only maxAttempts and backoffSeconds, not ${listed(unknown)}`, { atKey: true });
  if ('maxAttempts' in value && !(isInteger(value.maxAttempts) && value.maxAttempts >= 1 && value.maxAttempts <= 10)) problems.add(at(pointer, 'maxAttempts'), 'maxAttempts must be an integer from 1 to 10');
  if ('backoffSeconds' in value && !(isInteger(value.backoffSeconds) && value.backoffSeconds >= 0 && value.backoffSeconds <= 3600)) {
    problems.add(at(pointer, 'backoffSeconds'), 'backoffSeconds must be an integer from 0 to 3600');
  }
}

function costModel(value: unknown, pointer: string, problems: Problems): void {
  if (value === undefined || value === null) return;
  if (!isRecord(value) || Object.keys(value).some((key) => key !== 'unit' && key !== 'estimate')) return problems.add(pointer, 'costModel must be an object {unit, estimate?}');
  if (!(typeof value.unit === 'string' && value.unit.trim().length > 0)) problems.add(at(pointer, 'unit'), 'costModel.unit must be a non-empty string');
  if ('estimate' in value && value.estimate !== null && !(typeof value.estimate === 'number' && value.estimate >= 0)) problems.add(at(pointer, 'estimate'), 'costModel.estimate must be a number ≥ 0');
}

function implementation(value: unknown, pointer: string, problems: Problems): void {
  if (value === undefined || value === null) return;
  if (!isRecord(value)) return problems.add(pointer, 'implementation must be an object {protocol, endpoint?, entrypoint?, auth?}');
  const unknown = Object.keys(value).filter((key) => !IMPLEMENTATION_FIELDS.includes(key));
  if (unknown.length > 0) problems.add(at(pointer, unknown[0]!), `implementation has only ${IMPLEMENTATION_FIELDS.join(', ')}, not ${listed(unknown)}`, { atKey: true });
  const protocol = value.protocol;
  if (!['http', 'local', 'mcp'].includes(protocol as string)) problems.add(at(pointer, 'protocol'), "implementation.protocol must be one of ['http', 'local', 'mcp']");
  for (const field of ['endpoint', 'entrypoint']) {
    if (field in value && value[field] !== null && !isText(value[field], 2000)) problems.add(at(pointer, field), `implementation.${field} must be a non-empty string of at most 2000 characters`);
  }
  if ('auth' in value && value.auth !== null) {
    const auth = value.auth;
    if (!isRecord(auth)) problems.add(at(pointer, 'auth'), 'implementation.auth must be an object');
    else {
      problems.addAll(secretKeyProblems(auth, at(pointer, 'auth'), 'implementation.auth'));
      if ('scopes' in auth) {
        const scopes = auth.scopes;
        if (!Array.isArray(scopes) || scopes.length > 20) problems.add(at(pointer, 'auth', 'scopes'), 'auth.scopes must be a list of at most 20 scopes');
        else scopes.forEach((scope, index) => {
          if (!(typeof scope === 'string' && SCOPE.test(scope))) problems.add(at(pointer, 'auth', 'scopes', index), `a scope must match ${SCOPE.source}`);
        });
        problems.addAll(credentialProblems(scopes, at(pointer, 'auth', 'scopes'), 'auth.scopes'));
      }
    }
  }
  const endpoint = value.endpoint;
  const entrypoint = value.entrypoint;
  if (protocol === 'http' && !(typeof endpoint === 'string' && /^https?:\/\/\S+$/.test(endpoint))) {
    problems.add(at(pointer, 'endpoint'), 'an http skill needs an http(s) endpoint');
  }
  if (protocol === 'local' && !(typeof entrypoint === 'string' && LOCAL_ENTRYPOINT.test(entrypoint))) {
    problems.add(at(pointer, 'entrypoint'), 'a local skill needs an entrypoint module.path:function');
  }
  if (protocol === 'mcp' && !(typeof entrypoint === 'string' && MCP_TOOL.test(entrypoint))) {
    problems.add(at(pointer, 'entrypoint'), 'an mcp skill needs an entrypoint: the name of its tool');
  }
}
