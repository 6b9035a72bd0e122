// A minimal RFC 6455 WebSocket server endpoint over node:http's `upgrade` event: text frames, fragmentation,
// ping/pong and close; no extensions (permessage-deflate is simply not accepted). Written by hand because no
// WebSocket package is a direct dependency, and the local chain only needs web3.js's subscriptions.
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const MAX_MESSAGE = 1 << 20;

const frame = (opcode: number, payload: Buffer): Buffer => {
  const length = payload.length;
  const head = length < 126 ? Buffer.alloc(2) : length < 65_536 ? Buffer.alloc(4) : Buffer.alloc(10);
  head[0] = 0x80 | opcode;
  if (length < 126) head[1] = length;
  else if (length < 65_536) {
    head[1] = 126;
    head.writeUInt16BE(length, 2);
  } else {
    head[1] = 127;
    head.writeBigUInt64BE(BigInt(length), 2);
  }
  return Buffer.concat([head, payload]);
};

interface Frame {
  opcode: number;
  fin: boolean;
  payload: Buffer;
  /** Bytes the frame took in the buffer. */
  size: number;
}

/** Parse one frame from the start of `buffer` (unmasking client frames); null until it is complete. */
const parseFrame = (buffer: Buffer): Frame | null | 'too-large' => {
  if (buffer.length < 2) return null;
  const b0 = buffer[0] ?? 0;
  const b1 = buffer[1] ?? 0;
  let length = b1 & 0x7f;
  let at = 2;
  if (length === 126) {
    if (buffer.length < 4) return null;
    length = buffer.readUInt16BE(2);
    at = 4;
  } else if (length === 127) {
    if (buffer.length < 10) return null;
    length = Number(buffer.readBigUInt64BE(2));
    at = 10;
  }
  if (length > MAX_MESSAGE) return 'too-large';
  const mask = (b1 & 0x80) !== 0 ? buffer.subarray(at, at + 4) : undefined;
  if (mask) at += 4;
  if (buffer.length < at + length) return null;
  const payload = Buffer.from(buffer.subarray(at, at + length));
  if (mask) for (let i = 0; i < payload.length; i++) payload[i] = (payload[i] ?? 0) ^ (mask[i & 3] ?? 0);
  return { opcode: b0 & 0x0f, fin: (b0 & 0x80) !== 0, payload, size: at + length };
};

/** One accepted WebSocket connection. */
export class WsConnection {
  private buffer: Buffer = Buffer.alloc(0);
  private fragments: Buffer[] = [];
  private closed = false;
  /** Called when the connection ends, for subscription cleanup. */
  onClose: () => void = () => {};

  constructor(
    private readonly socket: Duplex,
    private readonly onText: (text: string, connection: WsConnection) => void,
  ) {
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('close', () => this.finish());
    socket.on('error', () => this.finish());
  }

  /** Send a text message (no-op once closed). */
  send(text: string): void {
    if (!this.closed) this.socket.write(frame(0x1, Buffer.from(text)));
  }

  /** Close with a close frame. */
  close(): void {
    if (this.closed) return;
    this.socket.end(frame(0x8, Buffer.from([0x03, 0xe8])));
    this.finish();
  }

  private finish() {
    if (this.closed) return;
    this.closed = true;
    this.onClose();
  }

  private receive(chunk: Buffer) {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    for (;;) {
      const parsed = parseFrame(this.buffer);
      if (parsed === 'too-large') return this.close();
      if (!parsed) return;
      this.buffer = this.buffer.subarray(parsed.size);
      this.handle(parsed.opcode, parsed.fin, parsed.payload);
    }
  }

  private handle(opcode: number, fin: boolean, payload: Buffer) {
    if (opcode === 0x8) return this.close();
    if (opcode === 0x9) return void this.socket.write(frame(0xa, payload));
    if (opcode === 0xa) return;
    this.fragments.push(payload);
    if (!fin) return;
    const message = Buffer.concat(this.fragments);
    this.fragments = [];
    if (message.length > MAX_MESSAGE) return this.close();
    this.onText(message.toString('utf8'), this);
  }
}

/** Complete the opening handshake of an `upgrade` request; returns the connection, or null when refused. */
export const acceptWebSocket = (
  req: IncomingMessage,
  socket: Duplex,
  onText: (text: string, connection: WsConnection) => void,
): WsConnection | null => {
  const key = req.headers['sec-websocket-key'];
  if (req.headers.upgrade?.toLowerCase() !== 'websocket' || typeof key !== 'string') {
    socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    return null;
  }
  const accept = createHash('sha1')
    .update(key + GUID)
    .digest('base64');
  socket.write(
    `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
  );
  return new WsConnection(socket, onText);
};
