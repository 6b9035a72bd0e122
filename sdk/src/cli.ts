// `npx @arcadia/sdk verify <gameId> <day | tournamentId/periodId>`: fetch a payout run's statement from the API
// and the game's vault from its pool, verify both against the chain (verifyStatement), print each check.
// Settings: --api (ARCADIA_API_URL, default http://localhost:3000), --rpc (SOLANA_RPC_URL, default
// http://localhost:8899): `npm run dev`'s.
import { type PublishedRun, verifyStatement } from './statements.js';

// The package's types leave Node's globals out (every other module runs in browsers); this file is for Node.
declare const process: {
  argv: string[];
  env: Record<string, string | undefined>;
  exitCode?: number;
  stdout: { write(text: string): void };
  stderr: { write(text: string): void };
};

const USAGE =
  'usage: npx @arcadia/sdk verify <gameId> <day | tournamentId/periodId> [--api <url>] [--rpc <url>]\n';

const option = (args: string[], name: string): string | undefined => {
  const at = args.indexOf(`--${name}`);
  if (at < 0) return undefined;
  const value = args[at + 1];
  args.splice(at, 2);
  return value;
};

const getJson = async <T>(url: string): Promise<T> => {
  const response = await fetch(url, { headers: { accept: 'application/json' } });
  const body = (await response.json().catch(() => ({}))) as {
    data?: T;
    error?: { code?: string; message?: string };
  };
  if (!response.ok || body.data === undefined)
    throw new Error(
      `${url}: ${response.status} ${body.error?.code ?? ''} ${body.error?.message ?? ''}`.trim(),
    );
  return body.data;
};

const main = async (argv: string[]): Promise<number> => {
  const args = [...argv];
  const api = (option(args, 'api') ?? process.env.ARCADIA_API_URL ?? 'http://localhost:3000').replace(
    /\/+$/,
    '',
  );
  const rpc = option(args, 'rpc') ?? process.env.SOLANA_RPC_URL ?? 'http://localhost:8899';
  const [command, gameId, run] = args;
  if (command !== 'verify' || !gameId || !run) {
    process.stderr.write(USAGE);
    return 2;
  }
  const [tournamentId, periodId] = run.split('/');
  const path = periodId
    ? `/rewards/statements/${encodeURIComponent(gameId)}/prizes/${encodeURIComponent(tournamentId ?? '')}/${encodeURIComponent(periodId)}`
    : `/rewards/statements/${encodeURIComponent(gameId)}/days/${encodeURIComponent(run)}`;
  const [published, pool] = await Promise.all([
    getJson<PublishedRun>(`${api}${path}`),
    getJson<{ vaultAddress: string | null }>(
      `${api}/rewards/game-rewards-pool/${encodeURIComponent(gameId)}`,
    ),
  ]);
  const result = await verifyStatement(published, rpc, pool.vaultAddress ? { vault: pool.vaultAddress } : {});
  process.stdout.write(`${gameId} ${published.run}: root ${published.root ?? 'none'}\n`);
  for (const check of result.checks)
    process.stdout.write(`${check.ok ? '✓' : '✗'} ${check.name}${check.reason ? `: ${check.reason}` : ''}\n`);
  process.stdout.write(result.ok ? 'verified\n' : 'NOT verified\n');
  return result.ok ? 0 : 1;
};

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 2;
  },
);
