import * as z from 'zod/mini';
import { defineContract } from '../../core/contract.js';
import { dataEnvelope, described, withMeta } from '../../core/schemas.js';
import { ALLOCATION_RULES, address, claimFields } from '../contracts.js';

export const submitClaimContract = defineContract({
  operationId: 'submitClaim',
  method: 'POST',
  path: '/token-launcher/exercise-claim/submit',
  tags: ['Snapshots'],
  summary:
    'Claim a coin allocation for your embedded wallet (the platform signs through your identity provider)',
  description:
    `${ALLOCATION_RULES}\n\n` +
    'For a signed-in user whose wallet is the identity provider’s **embedded wallet**: the platform ' +
    'builds the same transaction as `POST /token-launcher/exercise-claim/build-transactions` with that wallet as ' +
    'participant and fee payer, has the provider sign it as the wallet (**delegated signing**, as for launches and ' +
    'purchases) and sends it. The wallet pays the network fee and the claim receipt’s rent (~0.0009 SOL). ' +
    'External wallets use build-transactions and sign themselves.\n\n' +
    'The wallet and its delegation are read fresh from the provider before anything is built: 400 ' +
    '`NO_EMBEDDED_WALLET` without one, 403 `WALLET_DELEGATION_REQUIRED` while delegation is off (nothing is ' +
    'signed or sent). 404 `NOT_FOUND`: no allocation; 409 `CONFLICT`: the whole allocation is already claimed; ' +
    '400 `INSUFFICIENT_BALANCE`: the wallet cannot pay the fee and rent. `status` is `confirmed`, or `pending` ' +
    'when the transaction was sent but not confirmed within 20 s (see the claim status). A repeated request while ' +
    'the claim can still land sends that same transaction again, so it can never pay twice. The claim is recorded ' +
    'as yours before it is signed: a build-transactions request by anybody else for your wallet answers it back ' +
    'and cannot replace it, so its memo carries your `referrer`; a pending claim somebody built for your wallet ' +
    'is replaced by yours (same claim number and amount).',
  auth: ['bearer'] as const,
  body: z.object({
    gtokenAddress: address('Game coin mint address'),
    referrer: z.optional(
      address(
        'Referrer wallet address, recorded in the memo (fixed by your submit: nobody else can change it)',
      ),
    ),
  }),
  response: dataEnvelope(
    withMeta(
      z.object({
        signature: described(z.string(), 'The claim transaction’s signature'),
        status: described(z.enum(['confirmed', 'pending']), 'Whether it was confirmed within 20 s'),
        participant: described(z.string(), 'Your embedded wallet, which received the tokens'),
        ...claimFields,
      }),
      { id: 'SubmittedClaim' },
    ),
  ),
  errors: [
    'VALIDATION_ERROR',
    'NO_EMBEDDED_WALLET',
    'INSUFFICIENT_BALANCE',
    'WALLET_DELEGATION_REQUIRED',
    'NOT_FOUND',
    'CONFLICT',
    'CLAIM_MIGRATION_PENDING',
  ],
  example: { body: { gtokenAddress: 'So11111111111111111111111111111111111111112' } },
});
