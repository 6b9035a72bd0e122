// The WebSocket side of the local chain: signatureSubscribe (what web3.js's confirmTransaction and
// sendAndConfirmTransaction wait on) and slotSubscribe, over the `ws` server of rpc-server.ts.
import type { WebSocket } from 'ws';
import type { Ledger } from './ledger.js';

interface WsRequest {
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

const message = (body: Record<string, unknown>) => JSON.stringify({ jsonrpc: '2.0', ...body });
const error = (id: unknown, code: number, text: string) =>
  message({ id: id ?? null, error: { code, message: text } });

/** Subscription state of every open WebSocket connection. */
export class Subscriptions {
  private next = 1;
  private readonly signatures = new Map<string, Map<number, WebSocket>>();
  private readonly slots = new Map<number, WebSocket>();

  constructor(private readonly ledger: Ledger) {
    ledger.on('transaction', (tx) => this.notifySignature(tx.signature, tx.slot, tx.err));
    ledger.on('slot', (slot) => {
      for (const [subscription, connection] of this.slots)
        connection.send(
          message({
            method: 'slotNotification',
            params: { result: { parent: slot - 1, root: slot, slot }, subscription },
          }),
        );
    });
  }

  /** Signature subscriptions fire once, then end (as on a validator). */
  private notifySignature(signature: string, slot: number, err: unknown) {
    const subs = this.signatures.get(signature);
    if (!subs) return;
    this.signatures.delete(signature);
    for (const [subscription, connection] of subs)
      connection.send(
        message({
          method: 'signatureNotification',
          params: { result: { context: { slot }, value: { err } }, subscription },
        }),
      );
  }

  /** Handle one text message from a connection. */
  handle(text: string, connection: WebSocket): void {
    let req: WsRequest;
    try {
      req = JSON.parse(text) as WsRequest;
    } catch {
      connection.send(error(null, -32700, 'Parse error'));
      return;
    }
    if (req.id === undefined || req.id === null) return; // notifications, e.g. web3.js's heartbeat "ping"
    const params = Array.isArray(req.params) ? req.params : [];
    const reply = (result: unknown) => connection.send(message({ id: req.id, result }));
    switch (req.method) {
      case 'signatureSubscribe': {
        const signature = params[0];
        if (typeof signature !== 'string') {
          connection.send(error(req.id, -32602, 'Invalid params: signature'));
          return;
        }
        const subscription = this.next++;
        const subs = this.signatures.get(signature) ?? new Map<number, WebSocket>();
        subs.set(subscription, connection);
        this.signatures.set(signature, subs);
        reply(subscription);
        const done = this.ledger.getTx(signature);
        if (done) this.notifySignature(signature, done.slot, done.err);
        return;
      }
      case 'slotSubscribe': {
        const subscription = this.next++;
        this.slots.set(subscription, connection);
        reply(subscription);
        return;
      }
      case 'signatureUnsubscribe':
      case 'slotUnsubscribe': {
        const id = params[0] as number;
        this.slots.delete(id);
        for (const subs of this.signatures.values()) subs.delete(id);
        reply(true);
        return;
      }
      default:
        connection.send(error(req.id, -32601, 'Method not found'));
    }
  }

  /** Forget every subscription of a closed connection. */
  drop(connection: WebSocket): void {
    for (const [id, c] of this.slots) if (c === connection) this.slots.delete(id);
    for (const [signature, subs] of this.signatures) {
      for (const [id, c] of subs) if (c === connection) subs.delete(id);
      if (subs.size === 0) this.signatures.delete(signature);
    }
  }
}
