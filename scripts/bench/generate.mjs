// A synthetic package of N objects (task types, roles, work rules, processes) for the `check` benchmark.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export function generatePackage(count, { key = 'bench' } = {}) {
  const base = fileURLToPath(new URL(`../../.bench/${key}-${count}/`, import.meta.url));
  const dir = `${base}${key}`;
  rmSync(base, { recursive: true, force: true });
  for (const folder of ['task-types', 'roles', 'rules', 'processes']) mkdirSync(`${dir}/${folder}`, { recursive: true });
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
  for (let i = 0; i < count; i++) {
    const [folder, text] = objectFor(i);
    writeFileSync(`${dir}/${folder}/o${i}.yaml`, text);
  }
  return dir;
}

function objectFor(i) {
  switch (i % 4) {
    case 0:
      return ['task-types', `apiVersion: taimen.ai/v1\nkind: TaskType\nkey: task-${i}\nspec:\n  name: Task ${i}\n  description: Review item ${i}\n  fieldSchema:\n    type: object\n    properties:\n      amount: {type: number}\n      note: {type: string}\n`];
    case 1:
      return ['roles', `apiVersion: taimen.ai/v1\nkind: Role\nkey: role-${i}\nspec:\n  name: Role ${i}\n  permissions: []\n`];
    case 2:
      return ['rules', `apiVersion: taimen.ai/v1\nkind: WorkRule\nkey: rule-${i}\nspec:\n  name: Rule ${i}\n  trigger: {kind: event, eventType: item.created}\n  action: {kind: ensure_work, taskType: task-${i - 2}}\n`];
    default:
      return ['processes', `apiVersion: taimen.ai/v1\nkind: Process\nkey: process-${i}\nspec:\n  version: 1\n  displayName: Process ${i}\n  data:\n    type: object\n    properties:\n      amount: {type: number}\n  stages:\n    - id: review\n      steps:\n        - id: decide\n          human: {taskType: task-${i - 3}, title: "'Review'"}\n        - id: done\n          complete: {}\n`];
  }
}
