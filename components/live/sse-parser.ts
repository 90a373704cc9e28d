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
  // The unfinished line, as the chunks it arrived in. A 10,000-row snapshot is one multi-megabyte
  // `data:` line in a hundred chunks: appending them to one string and scanning it would make V8
  // flatten the growing string on every chunk (quadratic), so chunks are only joined once the
  // line ends, and only the new chunk is searched for a line end.
  private pending: string[] = [];
  private eventType = '';
  private data: string[] = [];
  // The id buffer is committed only when its event is complete: resuming from an event we never
  // fully received would skip it.
  private idBuffer: string | null = null;
  private lastId: string | null = null;
  private sawCr = false;

  constructor(private readonly handlers: SseHandlers) {}

  /** The id of the last complete event (SSE ids persist across events), or null. */
  get lastEventId(): string | null {
    return this.lastId;
  }

  feed(chunk: string): void {
    if (chunk.length === 0) return;
    let pos = 0;
    if (this.sawCr) {
      this.sawCr = false;
      if (chunk.charCodeAt(0) === 10) pos = 1; // the \n of a \r\n split across chunks
    }
    while (pos < chunk.length) {
      const lf = chunk.indexOf('\n', pos);
      const cr = chunk.indexOf('\r', pos);
      const end = lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr);
      if (end < 0) {
        this.pending.push(pos === 0 ? chunk : chunk.slice(pos));
        return;
      }
      let text = chunk.slice(pos, end);
      if (this.pending.length > 0) {
        this.pending.push(text);
        text = this.pending.join('');
        this.pending = [];
      }
      this.line(text);
      pos = end + 1;
      if (end === cr) {
        if (pos < chunk.length) {
          if (chunk.charCodeAt(pos) === 10) pos++;
        } else {
          this.sawCr = true;
        }
      }
    }
  }

  /** Drops a partial event (the connection ended mid-event), as the spec says. */
  reset(): void {
    this.pending = [];
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
