/**
 * A refused request: an HTTP status, a stable code and a message for people. Every check in this
 * module answers with one of these (or null for "fine"); the custom server and the route handlers
 * turn it into the API's error body, `{"error": {"code", "message"}}`.
 */
import type { ServerResponse } from 'node:http';

export interface RequestProblem {
  status: number;
  code: string;
  message: string;
}

export function problem(status: number, code: string, message: string): RequestProblem {
  return { status, code, message };
}

export function problemBody(p: RequestProblem): string {
  return JSON.stringify({ error: { code: p.code, message: p.message } });
}

/**
 * Answers a Node response with the problem's JSON body. `close` asks the client to drop the
 * connection (a request whose body we refuse to read must not leave that body on a kept-alive
 * connection).
 */
export function sendProblem(res: ServerResponse, p: RequestProblem, opts: { close?: boolean } = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = problemBody(p);
  res.statusCode = p.status;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', Buffer.byteLength(body));
  res.setHeader('cache-control', 'no-store');
  if (opts.close) res.setHeader('connection', 'close');
  res.end(body);
}
