import { describeConsoleEdits } from './console-edits.js';
import { OURS } from './support.js';

describeConsoleEdits(OURS);
