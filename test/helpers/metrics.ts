import type { TestTessera } from './test-tessera.js';

/** One sample of a metric in the process's registry (0 when it has none with exactly these labels). */
export async function metricValue(t: TestTessera, name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = t.tessera.metrics.registry.getSingleMetric(name);
  if (!metric) throw new Error(`no metric ${name}`);
  const { values } = await metric.get();
  const wanted = JSON.stringify(Object.entries(labels).sort());
  const found = values.find((v) => JSON.stringify(Object.entries(v.labels).sort()) === wanted);
  return found?.value ?? 0;
}
