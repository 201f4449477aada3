// Load generators: autocannon for closed-loop throughput, an open-loop one for overload.
import http from 'node:http';
import autocannon from 'autocannon';

/**
 * Closed loop: `connections` clients, each sending as soon as its last answer came.
 * `variants`: `{headers?, body?}` taken in turn into the requests (logins of many users, so
 * that no two at once share a verification); `tlsOptions`: a client certificate, say.
 */
export async function closedLoop({
  url,
  method = 'GET',
  headers = {},
  body,
  variants,
  connections = 8,
  seconds = 8,
  tlsOptions,
}) {
  let next = 0;
  const vary = (request) => {
    const v = variants[next++ % variants.length];
    return { ...request, ...v, headers: { ...request.headers, ...v.headers } };
  };
  const requests = variants && [{ setupRequest: vary }];
  const result = await autocannon({
    url,
    method,
    headers,
    body,
    connections,
    duration: seconds,
    pipelining: 1,
    ...(requests && { requests }),
    ...(tlsOptions && { tlsOptions }),
  });
  const ok = result['2xx'];
  return {
    rps: ok / seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

/**
 * Open loop: `rate` requests a second whatever the answers, as real overload is (`bodies`:
 * sent in turn, as in closedLoop). Returns the latencies per status, so that admitted and
 * refused requests can be told apart.
 */
export async function openLoop({
  url,
  method = 'GET',
  headers = {},
  body,
  bodies,
  rate,
  seconds,
  connectionEach = false,
}) {
  // connectionEach: a new connection a request, as a Kubernetes probe or curl makes.
  const agent = connectionEach
    ? new http.Agent({ keepAlive: false })
    : new http.Agent({ keepAlive: true, maxSockets: 512 });
  const byStatus = new Map();
  const pending = [];
  const start = performance.now();
  const total = Math.round(rate * seconds);
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    pending.push(
      new Promise((resolve) => {
        const t0 = performance.now();
        const req = http.request(url, { method, headers, agent, timeout: 30_000 }, (res) => {
          res.resume();
          res.on('end', () => {
            const list = byStatus.get(res.statusCode) ?? [];
            list.push(performance.now() - t0);
            byStatus.set(res.statusCode, list);
            resolve();
          });
        });
        req.on('error', () => {
          const list = byStatus.get('error') ?? [];
          list.push(performance.now() - t0);
          byStatus.set('error', list);
          resolve();
        });
        req.end(bodies ? bodies[i % bodies.length] : body);
      }),
    );
  }
  await Promise.all(pending);
  agent.destroy();
  return byStatus;
}

export function percentile(values, p) {
  if (!values?.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** One request at a time over one kept-alive connection; latencies in ms (sub-ms precision). */
export async function sequential({ url, method = 'GET', headers = {}, body, count }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const latencies = [];
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    await new Promise((resolve, reject) => {
      const req = http.request(url, { method, headers, agent }, (res) => {
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', reject);
      req.end(body);
    });
    latencies.push(performance.now() - t0);
  }
  agent.destroy();
  return latencies;
}
