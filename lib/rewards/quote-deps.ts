// Production wiring of the quote endpoints: the configured SOL price and the clock; no chain, no wallet.
import { priceFromConfig } from './price.js';
import type { QuoteDeps } from './quotes.js';

export const quoteDeps = (): QuoteDeps => ({ price: priceFromConfig(), now: () => new Date() });
