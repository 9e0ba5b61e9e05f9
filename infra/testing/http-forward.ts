import http from 'node:http';
import https from 'node:https';

/** An upstream's whole answer, buffered: a proxy may look at it before passing it on. */
interface ForwardedAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/**
 * Sends `request` (its method, path and headers, with `payload` as the body) to `upstream` on `agent`, and buffers
 * the answer. Rejects on a connection error, so a proxy can answer the client with a failure of its own.
 */
function forwardRequest(
  upstream: URL,
  agent: http.Agent,
  request: http.IncomingMessage,
  payload: Buffer,
): Promise<ForwardedAnswer> {
  const send = upstream.protocol === 'https:' ? https.request : http.request;
  return new Promise((resolve, reject) => {
    const outbound = send(
      {
        protocol: upstream.protocol,
        host: upstream.hostname,
        port: upstream.port,
        method: request.method,
        path: request.url,
        headers: { ...request.headers, host: upstream.host },
        agent,
      },
      (answer) => {
        const parts: Buffer[] = [];
        answer.on('data', (part: Buffer) => parts.push(part));
        answer.on('end', () =>
          resolve({ status: answer.statusCode ?? 502, headers: answer.headers, body: Buffer.concat(parts) }),
        );
        answer.on('error', reject);
      },
    );
    outbound.on('error', reject);
    outbound.end(payload);
  });
}

export { type ForwardedAnswer, forwardRequest };
