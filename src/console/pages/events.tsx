import { useEffect, useState } from 'preact/hooks';
import type { Call } from '../api.js';
import { explain } from '../api.js';
import { Field, Problem } from '../components.js';

/** An event as GET /v1/logs answers it. */
interface LoggedEvent {
  time: string;
  type: string;
  severity: 'INFO' | 'WARNING';
  outcome?: string;
  actor?: string;
  uid?: number;
  username?: string;
  target?: string;
  realm?: string;
  reason?: string;
  changes?: string[];
  ip?: string;
}

const SINCE: Record<string, number> = {
  'the last hour': 1,
  'the last day': 24,
  'the last week': 24 * 7,
  'the last 90 days': 24 * 90,
};

/** Events: who did what and when, newest first, by time, type and user. */
export function EventsPage(props: { call: Call }) {
  const [events, setEvents] = useState<LoggedEvent[]>([]);
  const [since, setSince] = useState('the last day');
  const [type, setType] = useState('');
  const [uid, setUid] = useState('');
  const [problem, setProblem] = useState('');
  const load = () => {
    setProblem('');
    const query = new URLSearchParams({
      order: 'desc',
      limit: '200',
      stime: new Date(Date.now() - SINCE[since]! * 3_600_000).toISOString(),
    });
    if (type.trim()) query.set('type', type.trim());
    if (uid.trim()) query.set('uid', uid.trim());
    return props.call<LoggedEvent[]>('GET', `/v1/logs?${query}`).then(setEvents, (err) => setProblem(explain(err)));
  };
  useEffect(() => void load(), [since]);
  return (
    <section>
      <h1>Events</h1>
      <p>
        Who did what and when, on every node: sign-ins and refusals, changes to users, roles and settings. The newest
        200 that match.
      </p>
      <form
        aria-label="Filter events"
        class="card"
        onSubmit={(e) => {
          e.preventDefault();
          void load();
        }}
      >
        <label class="field">
          <span>Since</span>
          <select value={since} onChange={(e) => setSince((e.target as HTMLSelectElement).value)}>
            {Object.keys(SINCE).map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <Field
          label="Type"
          value={type}
          onInput={setType}
          hint="cluster_updated, user_created, user_updated, user_deleted, authorize, lockout, role_update, …"
          autoComplete="off"
        />
        <Field
          label="User uid"
          value={uid}
          onInput={setUid}
          hint="events about this user or by it"
          autoComplete="off"
        />
        <button type="submit">Show events</button>
      </form>
      <Problem>{problem}</Problem>
      <table>
        <caption class="visually-hidden">Events</caption>
        <thead>
          <tr>
            <th scope="col">Time (UTC)</th>
            <th scope="col">Event</th>
            <th scope="col">About</th>
            <th scope="col">By</th>
            <th scope="col">Details</th>
          </tr>
        </thead>
        <tbody>
          {events.map((e, i) => (
            <tr key={`${e.time}-${i}`} class={e.severity === 'WARNING' ? 'warning' : undefined}>
              <td>{e.time.replace('T', ' ').replace('Z', '')}</td>
              <th scope="row">
                {e.type}
                {e.severity === 'WARNING' && ' (refused)'}
              </th>
              <td class="long">{e.username ? `${e.username}${e.uid ? ` (${e.uid})` : ''}` : (e.target ?? '')}</td>
              <td class="long">{e.actor ?? ''}</td>
              <td class="long">
                {[
                  e.realm && `realm ${e.realm}`,
                  e.reason,
                  e.changes?.length ? `changed ${e.changes.join(', ')}` : '',
                  e.ip && `from ${e.ip}`,
                ]
                  .filter(Boolean)
                  .join('; ')}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {events.length === 0 && !problem && <p>No events match.</p>}
    </section>
  );
}
