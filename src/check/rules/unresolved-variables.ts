/**
 * Objects the core's checks skip (compat-core-packages.md §3): one that still holds a `${NAME}` after the
 * manifest's defaults are put in has a form that depends on the installation's value, so the core leaves it
 * out of its static checks — and `check`'s domain rules do likewise. A note says so, rather than a silence or a
 * false alarm.
 */
import type { ObjectKind } from '../../model/kinds.js';
import { defineObjectRule } from '../rule.js';

/** The kinds whose core checks the domain rules repeat (the process checks have their own handling). */
const CHECKED_KINDS: readonly ObjectKind[] = ['TaskType', 'WorkRule', 'Agent', 'Skill', 'ConnectionType', 'ArtifactType', 'ProjectTemplate', 'WorkspaceType', 'NotificationRule'];

export const unresolvedVariables = defineObjectRule({
  id: 'variables/unresolved',
  description: "An object holding a ${NAME} without a default is not checked as the core checks it: its form depends on the installation's value.",
  codes: {
    core_check_skipped: {
      severity: 'note',
      summary: "An object holds a ${NAME} that has no default: the core's checks of its form are skipped (they run when the installation gives a value).",
      message: (d: { ref: string; name: string }) =>
        `${d.ref} holds \${${d.name}}, which has no default: its form depends on the installation's value, so the core's checks of it are skipped here`,
    },
  },
  subjects: CHECKED_KINDS,
  checkObject(context, object) {
    const view = context.facts.coreView(object);
    if ('unresolved' in view) {
      context.report('core_check_skipped', { document: object.document, pointer: view.unresolved.pointer }, { ref: object.ref, name: view.unresolved.name }, {
        hint: `give ${view.unresolved.name} a default in spec.variables of package.yaml to have it checked`,
      });
    }
  },
});
