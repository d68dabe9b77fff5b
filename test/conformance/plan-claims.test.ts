import { describeKilledApply, describePlanAndApply } from '../plan/plan-apply.js';
import type { Subject } from '../plan/support.js';
import { corpus } from './corpus.js';

/** The claims example of the corpus, planned and applied on the local core as the bundled example is. */
const CLAIMS: Subject = {
  base: corpus('claims'),
  install: 'packages.yaml',
  installation: 'claims-example',
  package: { key: 'claims', dir: 'claims', engines: '>=0.10,<0.11' },
  workspace: { variable: 'CLAIMS_WORKSPACE_ID', id: '11111111-2222-4333-8444-555555555555' },
  values: { HELPDESK_URL: 'https://helpdesk.example.com/api' },
  missing: { variable: 'HELPDESK_URL', description: 'API of the helpdesk the observer polls' },
  firstPlan: [
    /^ {2}\+ Role\/claims-manager \(claims\) — will be created$/m,
    /^ {2}\+ Process\/claim: create$/m,
    /^ {2}\+ TaskType\/claim-review: create$/m,
    /^ {2}\+ KnowledgePack\/claims@1 \(claims\)/m,
    /^ {2}\+ NotificationRule\/claim-reply-approval/m,
  ],
  knowledgePacks: ['default@1', 'claims@1'],
  process: 'claim',
  workRule: 'claim-reopened',
  changedTaskType: 'claim-review',
  consoleTaskType: { key: 'claim-followup', displayName: 'Follow up a reopened claim' },
  killed: {
    creates: ['POST /api/v1/roles', 'POST /api/v1/roles', 'POST /api/v1/skills', 'POST /api/v1/skills'],
    roles: ['claims-manager', 'claims-officer'],
  },
};

describePlanAndApply(CLAIMS);
describeKilledApply(CLAIMS);
