import type { Registry } from 'prom-client';

type Labels = { route: string; method: string; status: string };
interface Series {
  labels: Labels;
  /** Answers in each bucket alone (not yet cumulative). */
  counts: number[];
  sum: number;
  count: number;
}

/**
 * HTTP answers by route pattern, method and status: a histogram of their time and a counter,
 * kept in plain arrays and handed to prom-client at scrape time. prom-client's own Histogram
 * validates and hashes the labels at every observation, which cost a token-protected read
 * ~5 µs of its ~45 µs (npm run bench:metrics, bench/RESULTS.md); here an answer costs a map
 * lookup and a few additions.
 */
export class RequestTimes {
  /** By route, method and status: no key string to build and hash at every answer. */
  private readonly byRoute = new Map<string, Map<string, Map<number, Series>>>();
  private readonly series: Series[] = [];

  constructor(
    registry: Registry,
    private readonly names: { histogram: string; counter: string },
    private readonly buckets: readonly number[],
  ) {
    // Structurally what prom-client's metrics are to a registry: a name and get().
    const register = (name: string, help: string, type: 'histogram' | 'counter', values: () => object[]) =>
      registry.registerMetric({
        name,
        get: async () => ({ name, help, type, values: values(), aggregator: 'sum' }),
      } as never);
    register(names.histogram, 'HTTP request time by route pattern, method and status', 'histogram', () =>
      this.histogramValues(),
    );
    register(names.counter, 'HTTP requests by route pattern, method and status', 'counter', () =>
      this.series.map((s) => ({ labels: s.labels, value: s.count })),
    );
  }

  observe(route: string, method: string, status: number, seconds: number): void {
    let byMethod = this.byRoute.get(route);
    if (!byMethod) this.byRoute.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map()));
    let s = byStatus.get(status);
    if (!s) {
      s = { labels: { route, method, status: String(status) }, counts: this.buckets.map(() => 0), sum: 0, count: 0 };
      byStatus.set(status, s);
      this.series.push(s);
    }
    const bucket = this.buckets.findIndex((le) => seconds <= le);
    if (bucket >= 0) s.counts[bucket]! += 1;
    s.sum += seconds;
    s.count += 1;
  }

  private histogramValues(): object[] {
    const name = this.names.histogram;
    return this.series.flatMap((s) => {
      let cumulative = 0;
      const buckets = this.buckets.map((le, i) => {
        cumulative += s.counts[i]!;
        return { metricName: `${name}_bucket`, labels: { ...s.labels, le }, value: cumulative };
      });
      return [
        ...buckets,
        { metricName: `${name}_bucket`, labels: { ...s.labels, le: '+Inf' }, value: s.count },
        { metricName: `${name}_sum`, labels: s.labels, value: s.sum },
        { metricName: `${name}_count`, labels: s.labels, value: s.count },
      ];
    });
  }
}
