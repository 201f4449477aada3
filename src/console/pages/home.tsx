import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Call } from '../api.js';
import { mayManageUsers, mayViewEvents, type Session } from '../session.js';

/** At most this many sessions and events are read for a count: past it, the card says "or more". */
const COUNTED = 10_000;
const DAY_MS = 86_400_000;

/** What a card shows: loading, a count (more: there may be more than it), or not readable now. */
type Count = { n: number; more?: boolean } | 'loading' | 'failed';

const plural = (n: number, one: string, many: string) => (n === 1 ? one : many);

/** A read through the API: loading, its answer, or failed. */
type Read<T> = { value: T } | 'loading' | 'failed';

/** One read through the API when the page opens (none when `read` is undefined). */
function useRead<T>(read: (() => Promise<T>) | undefined): Read<T> | undefined {
  const [state, setState] = useState<Read<T> | undefined>(read && 'loading');
  useEffect(() => {
    if (!read) return;
    let shown = true;
    read().then(
      (value) => shown && setState({ value }),
      () => shown && setState('failed'),
    );
    return () => {
      shown = false;
    };
  }, []);
  return state;
}

/** A count of what was read, or the read's state. */
function countOf<T>(read: Read<T> | undefined, count: (value: T) => Count): Count | undefined {
  return typeof read === 'object' ? count(read.value) : read;
}

/**
 * The first page after sign-in: who you are, and for who manages users the cluster's state at a
 * glance — users, locked accounts, live sessions and, for who may read the event log, the
 * refused sign-ins of the last day; each card a count and a line, with a link to the page to act on it.
 */
export function Home(props: { session: Session; call: Call }) {
  const { session, call } = props;
  const manages = mayManageUsers(session);
  const users = useRead(manages ? () => call<{ status: string }[]>('GET', '/v1/users') : undefined);
  const sessions = useRead(manages ? () => call<unknown[]>('GET', `/v1/sessions?limit=${COUNTED}`) : undefined);
  const refusals = useRead(
    manages && mayViewEvents(session)
      ? () => {
          const query = new URLSearchParams({
            type: 'authorize',
            stime: new Date(Date.now() - DAY_MS).toISOString(),
            limit: String(COUNTED),
          });
          return call<{ outcome?: string; count?: number }[]>('GET', `/v1/logs?${query}`);
        }
      : undefined,
  );
  return (
    <section>
      <h1>Welcome, {session.username}</h1>
      <p>
        Your role is <strong>{session.role}</strong>.{' '}
        {manages
          ? 'Choose a page above.'
          : 'My password changes your password, and My API keys makes the keys your scripts sign in with; the API reference is at /docs.'}
      </p>
      {manages && (
        <>
          <h2 id="cluster-state">The cluster now</h2>
          <ul class="stats" aria-labelledby="cluster-state">
            <Stat count={countOf(users, (all) => ({ n: all.length }))} one="user" many="users" />
            <Stat
              count={countOf(users, (all) => ({ n: all.filter((u) => u.status === 'locked').length }))}
              one="locked account"
              many="locked accounts"
            >
              <a href="#/users">unlock on the user list</a>
            </Stat>
            <Stat
              count={countOf(sessions, (all) => ({ n: all.length, more: all.length >= COUNTED }))}
              one="live session"
              many="live sessions"
            >
              <a href="#/sessions">who is signed in</a>
            </Stat>
            {refusals !== undefined && (
              <Stat
                count={countOf(refusals, (events) => ({
                  // The same refusal repeated is one event with its count (the event log folds them).
                  n: events.reduce((n, e) => n + (e.outcome === 'failure' ? Number(e.count ?? 1) : 0), 0),
                  more: events.length >= COUNTED,
                }))}
                one="failed sign-in in the last 24 h"
                many="failed sign-ins in the last 24 h"
              >
                <a href="#/events">see the event log</a>
              </Stat>
            )}
          </ul>
        </>
      )}
    </section>
  );
}

/** A card: a count, and a line saying what it counts (and where to act on it). */
function Stat(props: { count: Count | undefined; one: string; many: string; children?: ComponentChildren }) {
  const { count } = props;
  const n = typeof count === 'object' ? count.n : undefined;
  const shown = typeof count === 'object' ? `${count.n}${count.more ? '+' : ''}` : count === 'failed' ? '?' : '…';
  return (
    <li class="card stat">
      <span class="number">{shown}</span>{' '}
      <span class="what">
        {plural(n ?? 0, props.one, props.many)}
        {count === 'failed' && ' (could not be read now)'}
        {props.children && <> — {props.children}</>}
      </span>
    </li>
  );
}
