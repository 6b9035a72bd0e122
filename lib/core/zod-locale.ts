// zod/mini leaves error messages to the application ("Invalid input" for everything); the API's error details
// and configuration errors use zod's English messages, as zod's classic API does by default. Imported for its
// side effect by every module that validates (lib/core/validation.ts, lib/core/config.ts).
import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';

z.config(en());
