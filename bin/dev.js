#!/usr/bin/env -S node --import tsx
// Runs the TypeScript sources directly (no build) — for development only. CommonJS, as bin/package.json says.
'use strict';
const { join } = require('node:path');

// The project's folder, not this file's: oclif looks for the nearest package.json, and bin/ has its own.
void require('@oclif/core').execute({ development: true, dir: join(__dirname, '..') });
