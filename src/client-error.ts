// What Node's HTTP server answers, before any of LinkPeek runs, to a request it cannot parse: a
// control or non-ASCII byte in the request line, headers over 16 KiB, headers that never finish.
// Node's own answer is bare (no body, no CORS header), so a browser script sees a network error
// and a program no JSON; this one is the API's error shape (openapi.yaml ApiError) with the
// headers every answer carries. The statuses are Node's own (lib/_http_server.js, socketOnError).

import type { Duplex } from 'node:stream';
import { CORS_HEADERS, NOSNIFF } from './api/cors.js';

const ANSWERS: Record<string, { status: number; text: string; message: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, text: 'Request Header Fields Too Large', message: "The request's headers exceed 16 KiB." },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: { status: 413, text: 'Payload Too Large', message: "The request's chunk extensions are too large." },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, text: 'Request Timeout', message: 'The request did not arrive in time.' },
};
const MALFORMED = { status: 400, text: 'Bad Request', message: 'The request is not valid HTTP (a control or non-ASCII byte in its request line or headers?).' };

/** The server's `clientError` listener: the JSON answer when nothing was sent yet, then the connection closes. */
export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  const answering = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (err.code !== 'ECONNRESET' && socket.writable && !answering?.headersSent) {
    const { status, text, message } = ANSWERS[err.code ?? ''] ?? MALFORMED;
    const body = JSON.stringify({ code: status, message });
    const headers = {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': String(Buffer.byteLength(body)),
      ...CORS_HEADERS,
      ...NOSNIFF,
      Connection: 'close',
    };
    const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
    socket.write(`HTTP/1.1 ${status} ${text}\r\n${head.join('')}\r\n${body}`);
  }
  socket.destroy(err);
}
