/** Test support: one HTTP request to a loopback server exactly as given (headers, body), its whole answer. */
import http from 'node:http';

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface RawRequest {
  method?: string;
  path: string;
  headers?: Record<string, string | string[]>;
  body?: string;
}

/** `host` in `headers` replaces the one node would send; a 2xx event stream answers as soon as its headers arrive. */
export function rawRequest(port: number, o: RawRequest): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: o.method ?? 'GET', path: o.path, headers: o.headers, setHost: !o.headers || !('host' in o.headers) }, (res) => {
      if (String(res.headers['content-type']).startsWith('text/event-stream')) {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: '' });
        req.destroy();
        return;
      }
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    if (o.body !== undefined) req.write(o.body);
    req.end();
  });
}
