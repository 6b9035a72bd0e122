// Pure tests load the product's modules, which validate their settings at import: give them a complete set
// pointing nowhere real. Nothing here reaches a service; tests that need one live in tests/integration.
import { VALID_SETTINGS } from '../fixtures/settings.js';

for (const [name, value] of Object.entries(VALID_SETTINGS)) process.env[name] ??= value;
process.env.POWERTOOLS_LOG_LEVEL = process.env.TEST_LOG_LEVEL ?? 'SILENT';
