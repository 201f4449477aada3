import { useEffect, useId, useState } from 'preact/hooks';
import { EVENT_TYPES } from '../../event-log/event-type-list.js';
import type { Call } from '../api.js';
import { explain } from '../api.js';
import { breakable, Field, Problem, userText, When } from '../components.js';

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

/** Events: who did what and when, newest first, by time, type and user (its name, email or uid). */
export function EventsPage(props: { call: Call }) {
  const [events, setEvents] = useState<LoggedEvent[]>([]);
  const [since, setSince] = useState('the last day');
  const [type, setType] = useState('');
  const [user, setUser] = useState('');
  const [uid, setUid] = useState('');
  const [problem, setProblem] = useState('');
  const typeId = useId();
  const load = () => {
    setProblem('');
    const query = new URLSearchParams({
      order: 'desc',
      limit: '200',
      stime: new Date(Date.now() - SINCE[since]! * 3_600_000).toISOString(),
    });
    if (type) query.set('type', type);
    if (user.trim()) query.set('user', user.trim());
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
        <div class="field">
          <label for={typeId}>Type</label>
          <select id={typeId} value={type} onChange={(e) => setType((e.target as HTMLSelectElement).value)}>
            <option value="">any type</option>
            {EVENT_TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </div>
        <Field
          label="User name or email"
          value={user}
          onInput={setUser}
          hint="events about the user that has this name or email now, or by it, in any case (a deleted user's: by its uid)"
          autoComplete="off"
        />
        <Field
          label="User uid"
          value={uid}
          onInput={setUid}
          hint="events about the user of this uid or by it"
          autoComplete="off"
        />
        <button type="submit">Show events</button>
      </form>
      <Problem>{problem}</Problem>
      <table>
        <caption class="visually-hidden">Events</caption>
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Event</th>
            <th scope="col">About</th>
            <th scope="col">By</th>
            <th scope="col">Details</th>
          </tr>
        </thead>
        <tbody>
          {events.map((e, i) => (
            <tr key={`${e.time}-${i}`} class={e.severity === 'WARNING' ? 'warning' : undefined}>
              <td>
                <When at={e.time} />
              </td>
              <th scope="row">
                {breakable(e.type, /(?<=_)/)}
                {e.severity === 'WARNING' && ' (refused)'}
              </th>
              {e.username ? (
                <td class="name">
                  {userText(e.username, 0)}
                  {e.uid ? ` (${e.uid})` : ''}
                </td>
              ) : (
                <td class="long">{e.target ?? ''}</td>
              )}
              <td class="name">{e.actor ? userText(e.actor, 0) : ''}</td>
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
