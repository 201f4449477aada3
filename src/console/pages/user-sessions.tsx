import { useEffect, useState } from 'preact/hooks';
import type { Call } from '../api.js';
import { explain } from '../api.js';
import { Done, Problem, When } from '../components.js';

interface SessionRow {
  sid: string;
  realm: string;
  client_ip: string;
  user_agent: string;
  console: boolean;
  started: string;
  last_refreshed: string;
  expires: string;
  current: boolean;
}

/** A user's live sessions, each with where from and since when, ended one by one or all at once (the password stays). */
export function UserSessions(props: { uid: number; who: string; call: Call; onClose: () => void }) {
  const { uid, who, call } = props;
  const [sessions, setSessions] = useState<SessionRow[] | undefined>();
  const [problem, setProblem] = useState<string>();
  const [done, setDone] = useState<string>();
  const load = () =>
    call<SessionRow[]>('GET', `/v1/users/${uid}/sessions`).then(setSessions, (err) => setProblem(explain(err)));
  useEffect(() => void load(), [uid]);
  const end = async (what: () => Promise<unknown>, success: string) => {
    setProblem(undefined);
    setDone(undefined);
    try {
      await what();
      setDone(success);
      await load();
    } catch (err) {
      setProblem(explain(err));
    }
  };
  return (
    <section aria-label={`Sessions of ${who}`} class="sessions">
      <Problem>{problem}</Problem>
      <Done>{done}</Done>
      {sessions === undefined ? (
        <p>Loading sessions…</p>
      ) : sessions.length === 0 ? (
        <p>{who} has no live session.</p>
      ) : (
        <table>
          <caption>Sessions of {who}</caption>
          <thead>
            <tr>
              <th scope="col">Signed in</th>
              <th scope="col">From</th>
              <th scope="col">Client</th>
              <th scope="col">Last refresh</th>
              <th scope="col">Ends at the latest</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {sessions.map((s) => (
              <tr key={s.sid}>
                <td>
                  <When at={s.started} /> ({s.realm}
                  {s.console ? ', console' : ''}){s.current ? ' — this one' : ''}
                </td>
                <td>{s.client_ip || '—'}</td>
                <td>{s.user_agent || '—'}</td>
                <td>
                  <When at={s.last_refreshed} />
                </td>
                <td>
                  <When at={s.expires} />
                </td>
                <td>
                  <button
                    type="button"
                    class="danger"
                    aria-label={`End session ${s.sid} of ${who}`}
                    onClick={() =>
                      void end(() => call('DELETE', `/v1/users/${uid}/sessions/${s.sid}`), `Ended a session of ${who}.`)
                    }
                  >
                    End
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {sessions !== undefined && sessions.length > 0 && (
        <button
          type="button"
          class="danger"
          onClick={() =>
            void end(
              () => call('DELETE', `/v1/users/${uid}/sessions`),
              `Ended every session of ${who}; the password is unchanged.`,
            )
          }
        >
          End every session of {who}
        </button>
      )}
      <button type="button" onClick={props.onClose}>
        Close
      </button>
    </section>
  );
}
