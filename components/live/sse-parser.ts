/**
 * An incremental Server-Sent Events parser (the WHATWG event-stream format). We read the stream
 * with fetch instead of EventSource because EventSource hides heartbeats (comment lines) and cannot
 * be told to stop retrying or to send `Last-Event-ID` on a fresh connection: both are needed to show
 * "reconnecting" and "stale" honestly and to resume after we decided to reconnect ourselves.
 */

export interface SseEvent {
  event: string;
  data: string;
  /** The id of the last complete event (SSE ids persist across events), or null. */
  id: string | null;
}

export interface SseHandlers {
  event(e: SseEvent): void;
  /** Any comment line, e.g. the server's `: ping` heartbeat. */
  comment?(text: string): void;
  retry?(ms: number): void;
}

export class SseParser {
  private buffer = '';
  // Where to continue looking for a line end: snapshots of 10,000 rows are one multi-megabyte
  // `data:` line that arrives in many chunks, and rescanning it from the start would be quadratic.
  private scanFrom = 0;
  private eventType = '';
  private data: string[] = [];
  // The id buffer is committed only when its event is complete: resuming from an event we never
  // fully received would skip it.
  private idBuffer: string | null = null;
  private lastId: string | null = null;
  private sawCr = false;

  constructor(private readonly handlers: SseHandlers) {}

  get lastEventId(): string | null {
    return this.lastId;
  }

  feed(chunk: string): void {
    if (chunk.length === 0) return;
    if (this.sawCr && chunk[0] === '\n') chunk = chunk.slice(1); // the \n of a \r\n split across chunks
    this.sawCr = false;
    this.buffer += chunk;
    let start = 0;
    let i = this.scanFrom;
    const buf = this.buffer;
    while (i < buf.length) {
      const c = buf.charCodeAt(i);
      if (c === 10 || c === 13) {
        this.line(buf.slice(start, i));
        if (c === 13) {
          if (i + 1 < buf.length) {
            if (buf.charCodeAt(i + 1) === 10) i++;
          } else {
            this.sawCr = true;
          }
        }
        start = i + 1;
      }
      i++;
    }
    this.buffer = start === 0 ? buf : buf.slice(start);
    this.scanFrom = this.buffer.length;
  }

  /** Drops a partial event (the connection ended mid-event), as the spec says. */
  reset(): void {
    this.buffer = '';
    this.scanFrom = 0;
    this.eventType = '';
    this.data = [];
    this.idBuffer = this.lastId;
    this.sawCr = false;
  }

  private line(line: string): void {
    if (line === '') {
      this.dispatch();
      return;
    }
    if (line.charCodeAt(0) === 58 /* : */) {
      this.handlers.comment?.(line.slice(1).trimStart());
      return;
    }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    switch (field) {
      case 'event':
        this.eventType = value;
        break;
      case 'data':
        this.data.push(value);
        break;
      case 'id':
        if (!value.includes('\u0000')) this.idBuffer = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.handlers.retry?.(Number(value));
        break;
      default:
        break;
    }
  }

  private dispatch(): void {
    this.lastId = this.idBuffer;
    if (this.data.length === 0) {
      this.eventType = '';
      return;
    }
    const e: SseEvent = { event: this.eventType || 'message', data: this.data.join('\n'), id: this.lastId };
    this.eventType = '';
    this.data = [];
    this.handlers.event(e);
  }
}
