// web3.js against the local chain. web3.js derives its WebSocket URL as the RPC port + 1 (the validator's
// convention); the local chain serves WebSockets on its own port, and on port + 1 only when that one is free. In a run
// where another stand-in held port + 1, web3.js's confirmations waited on a refused socket until the test timed out:
// the socket is named here instead of derived.
import { Connection } from '@solana/web3.js';

export const localConnection = (rpcUrl: string = process.env.SOLANA_RPC_URL ?? '') =>
  new Connection(rpcUrl, { commitment: 'confirmed', wsEndpoint: rpcUrl.replace(/^http/, 'ws') });
