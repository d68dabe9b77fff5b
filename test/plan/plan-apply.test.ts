import { describePlanAndApply } from './plan-apply.js';
import { EXAMPLE } from './support.js';

describePlanAndApply(EXAMPLE);
