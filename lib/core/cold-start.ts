// Work a container must finish before its code runs, whose result synchronous code then uses (the secrets key,
// read from Secrets Manager: lib/adapters/secrets.ts). The module that needs it registers it when it loads, and
// the function wrappers (lib/http/handler.ts, ./observed.ts) await it before each invocation's body. Only what a
// function bundles registers, so a function that never opens a secret never reads one, and neither wrapper has to
// import the adapters (lib/core depends on none).

/** A load that caches its own result: once done, awaiting it again costs nothing; a failed one is retried. */
type Load = () => Promise<void>;

const loads: Load[] = [];

/** Registers `load` to be awaited before every invocation of the function that bundles the caller. */
export const loadAtColdStart = (load: Load): void => {
  loads.push(load);
};

/** Resolves once every registered load has; rejects (the invocation fails) when one fails. */
export const coldStartLoads = async (): Promise<void> => {
  for (const load of loads) await load();
};
