import { randomUUID } from 'node:crypto';
import { holds } from '../access/permissions.js';
import type { Callers } from '../auth/callers.js';
import { parseAuthorization } from '../auth/credentials.js';
import {
  DomainError,
  ForbiddenError,
  MissingCredentialsError,
  RetryLaterError,
  StoreUnavailableError,
} from '../errors.js';
import type { ListenerAnswer, ScrapeGate } from '../metrics/management-listener.js';
import type { Metrics } from '../metrics/metrics.js';
import type { PolicyService } from '../policy/policy-service.js';
import { isStoreUnavailable } from '../store/store-errors.js';
import { toErrorResponse, WWW_AUTHENTICATE } from './error-response.js';

/**
 * Who may scrape GET /metrics (the cluster's metrics_auth, read live: within a second on every
 * node): anyone while it is false; else the Basic credentials or the token of a user who holds
 * view_all_metrics, checked as an API request's are — the same callers, the realm chain and its
 * guards (throttle, lockout, audit of a refusal) — and answered with the same error codes and
 * statuses. Basic is taken whatever control_plane_basic_authentication says: the product's
 * setting is of the REST API, and its metrics_auth "enables basic authentication for Prometheus
 * exporters". Runs on the main thread: the listener's thread has no store and asks it.
 */
export function scrapeGate(deps: {
  callers: Pick<Callers, 'known' | 'identify'>;
  policy: Pick<PolicyService, 'get'>;
  metrics: Pick<Metrics, 'storeUnavailable'>;
  /** A fault of ours (not a refusal), with its detail; the scraper is told only "internal error". */
  onFault?: (err: unknown) => void;
}): ScrapeGate {
  return async (authorization, client) => {
    try {
      if (!(await deps.policy.get()).metrics_auth) return undefined;
      if (authorization === undefined)
        throw new MissingCredentialsError(
          'The cluster sets metrics_auth: scrape with the Basic credentials (or a token) of a user who may view metrics',
        );
      const presented = parseAuthorization(authorization);
      const ctx = { ip: client.ip, requestId: randomUUID(), ...(client.userAgent && { userAgent: client.userAgent }) };
      const principal = deps.callers.known(presented) ?? (await deps.callers.identify(presented, ctx));
      if (!holds(principal.rights, 'view_all_metrics'))
        throw new ForbiddenError(
          'Your role does not view metrics (view_all_metrics: admin, cluster_member, cluster_viewer)',
        );
      return undefined;
    } catch (err) {
      return refusal(err, deps);
    }
  };
}

function refusal(err: unknown, deps: Parameters<typeof scrapeGate>[0]): ListenerAnswer {
  const known = isStoreUnavailable(err) ? new StoreUnavailableError(err) : err;
  if (known instanceof StoreUnavailableError) deps.metrics.storeUnavailable();
  const { status, body } = toErrorResponse(known);
  if (status >= 500 && !(known instanceof DomainError)) deps.onFault?.(err);
  const headers: Record<string, string> = {};
  if (status === 401) headers['www-authenticate'] = WWW_AUTHENTICATE;
  if (known instanceof RetryLaterError && known.retryAfterSeconds !== undefined)
    headers['retry-after'] = String(known.retryAfterSeconds);
  return { status, body, headers };
}
