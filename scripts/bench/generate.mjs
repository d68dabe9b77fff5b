// A synthetic package of N objects (task types, roles, work rules, processes) for the `check` benchmark.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export function generatePackage(count, { key = 'bench' } = {}) {
  const base = fileURLToPath(new URL(`../../.bench/${key}-${count}/`, import.meta.url));
  const dir = `${base}${key}`;
  rmSync(base, { recursive: true, force: true });
  for (const folder of ['task-types', 'roles', 'rules', 'processes', 'agents']) mkdirSync(`${dir}/${folder}`, { recursive: true });
  writeFileSync(`${dir}/package.yaml`, [
    'apiVersion: taimen.ai/v1',
    'kind: Package',
    `key: ${key}`,
    'spec:',
    '  version: 1.0.0',
    '  displayName: Benchmark package',
    '  engines: {control-plane: ">=0.9,<0.11"}',
    '',
  ].join('\n'));
  // The processes act as this agent (the core refuses a process without an identity).
  writeFileSync(`${dir}/agents/process-agent.yaml`, 'apiVersion: taimen.ai/v1\nkind: Agent\nkey: process-agent\nspec:\n  displayName: Process agent\n  identity: {kind: service}\n  placement: none\n');
  for (let i = 0; i < count; i++) {
    const [folder, text] = objectFor(i);
    writeFileSync(`${dir}/${folder}/o${i}.yaml`, text);
  }
  return dir;
}

const LIFECYCLE = `  lifecycleSchema:
    statuses:
      - {key: todo, category: active, displayName: To do}
      - {key: done, category: terminal_success, displayName: Done}
    transitions:
      - {from: todo, to: [done]}
    initialStatus: todo
    completionStatus: done
`;

/** Objects in groups of four that reference each other, as a real package does. */
function objectFor(i) {
  const group = i - (i % 4);
  const wrapper = (kind, key) => `apiVersion: taimen.ai/v1\nkind: ${kind}\nkey: ${key}\nspec:\n`;
  switch (i % 4) {
    case 0:
      return ['task-types', `${wrapper('TaskType', `task-${group}`)}  displayName: Review item ${group}\n  fieldSchema:\n    type: object\n    properties:\n      amount: {type: number}\n      note: {type: string}\n${LIFECYCLE}`];
    case 1:
      return ['roles', `${wrapper('Role', `role-${group}`)}  name: Reviewer ${group}\n  description: Reviews items of group ${group}\n`];
    case 2:
      return ['rules', `${wrapper('WorkRule', `rule-${group}`)}  description: An item of group ${group} gets a review\n  trigger: {kind: observation, type: item.created}\n  action:\n    kind: ensure_work\n    taskType: task-${group}\n    dedupKeyTemplate: "item:{{payload.data.id}}"\n    fields: {title: "Review {{payload.data.id}}", assignee: "role:role-${group}"}\n`];
    default:
      return ['processes', `${wrapper('Process', `process-${group}`)}  version: 1\n  displayName: Process ${group}\n  identity: {agent: process-agent}\n  owner: [{role: role-${group}}]\n  data:\n    type: object\n    properties:\n      id: {type: string}\n      amount: {type: number}\n  start:\n    "on": {observation: item.created}\n    key: "'item:' + string(event.payload.data.id)"\n    set: {id: string(event.payload.data.id), amount: double(event.payload.data.amount)}\n  stages:\n    - id: review\n      steps:\n        - id: decide\n          when: data.amount > 100.0\n          human: {taskType: task-${group}, title: "'Review ' + data.id", assign: [{role: role-${group}}]}\n        - id: done\n          complete: {outcome: reviewed}\n`];
  }
}
