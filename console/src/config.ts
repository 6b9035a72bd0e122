// What the deployment tells the console (config.json beside index.html), loaded once: its own module, read by the
// API client and the identity provider's client alike.
/** The console's deployment settings. */
export interface ConsoleConfig {
  /** The API's base URL. */
  apiUrl: string;
  /**
   * The identity provider's app, whose official client signs the user in (email and a one-time code). `apiUrl`:
   * the provider's client API when it is not the provider's own (the local identity provider).
   */
  identityProvider: { appId: string; apiUrl?: string };
  /** Local only: where the console server reads the local provider's inbox (the one-time code it "sent"). */
  localInboxUrl?: string;
  /** Local only: a same-origin relay to the local object store, which answers no CORS preflight. */
  uploadRelayUrl?: string;
  /** A transaction's page: `{signature}` is replaced (an explorer, or the local chain through one). */
  txUrlTemplate: string;
  /** An address's page: `{address}` is replaced. */
  addressUrlTemplate: string;
  /**
   * The chain's JSON-RPC URL the browser verifies payout runs with (relative: against the console's URL). Locally a
   * same-origin relay to the local chain, which answers no CORS preflight; deployed, the cluster's RPC.
   */
  rpcUrl?: string;
}

let config: ConsoleConfig | undefined;

export const loadConfig = async (): Promise<ConsoleConfig> => {
  const response = await fetch(new URL('config.json', document.baseURI));
  if (!response.ok) throw new Error(`config.json answered HTTP ${response.status}`);
  config = (await response.json()) as ConsoleConfig;
  return config;
};

export const consoleConfig = (): ConsoleConfig => {
  if (!config) throw new Error('config not loaded');
  return config;
};

/** The settings, once loaded (a request made before sign-in may come first). */
export const loadedConfig = (): ConsoleConfig | undefined => config;
