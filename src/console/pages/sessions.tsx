import { useEffect, useState } from 'preact/hooks';
import { type Call, explain } from '../api.js';
import { Confirm, Done, Problem, useActions, userText } from '../components.js';
import { when } from '../dates.js';

/** A live session as GET /v1/sessions answers it: the per-user fields and whose it is. */
export interface LiveSession {
  sid: string;
  uid: number;
  name: string;
  email: string;
  realm: string;
  client_ip: string;
  user_agent: string;
  console: boolean;
  started: string;
  last_seen: string;
  current: boolean;
}

/** The sessions the page asks for at most: past it, the latest seen this many. */
export const SESSIONS_SHOWN = 1000;

/** Browsers, most specific first: their User-Agent names the ones they are built on too (Edge says Chrome and Safari). */
const BROWSERS: [RegExp, string][] = [
  [/\bEdg(?:e|A|iOS)?\/(\d+)/, 'Edge'],
  [/\bOPR\/(\d+)/, 'Opera'],
  [/\bFirefox\/(\d+)/, 'Firefox'],
  [/\b(?:Headless)?Chrom(?:e|ium)\/(\d+)/, 'Chrome'],
  [/\bVersion\/(\d+)[^ ]* (?:Mobile\/\S+ )?Safari\//, 'Safari'],
];
const SYSTEMS: [RegExp, string][] = [
  [/\bAndroid\b/, 'Android'],
  [/\b(?:iPhone|iPad|iPod)\b/, 'iOS'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bWindows\b/, 'Windows'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bLinux\b|\bX11\b/, 'Linux'],
];

/**
 * A User-Agent in a few words: a browser's as "Chrome 131 on Linux", anything else (the CLI's
 * tessera-cli/…, curl/…, a script's) as its first token, cut at 40 characters.
 */
export function clientOf(userAgent: string): string {
  const ua = userAgent.trim();
  if (!ua) return '—';
  for (const [pattern, browser] of BROWSERS) {
    const version = pattern.exec(ua)?.[1];
    if (!version) continue;
    const system = SYSTEMS.find(([p]) => p.test(ua))?.[1];
    return `${browser} ${version}${system ? ` on ${system}` : ''}`;
  }
  const first = ua.split(/\s+/)[0]!;
  return first.length > 40 ? `${first.slice(0, 39)}…` : first;
}

/** An address that wraps only where it may: an IPv4 one stays whole, an IPv6 one breaks after a colon. */
function addressOf(ip: string) {
  return ip.split(':').map((part, i) => (
    <span key={i}>
      {i > 0 && (
        <>
          :<wbr />
        </>
      )}
      {part}
    </span>
  ));
}

/** Who holds a session, in one line: the name, else the email. */
const whoOf = (s: LiveSession) => s.name || s.email || `user ${s.uid}`;

type Asked = { kind: 'one'; session: LiveSession } | { kind: 'all' };

/**
 * Every user's live sessions (who is signed in now, from where, with what, since when), ended
 * one by one or, for an admin, all at once — the operator's own with them.
 */
export function SessionsPage(props: { call: Call; mayEndAll: boolean; onSignInAgain: (why: string) => void }) {
  const { call } = props;
  const [sessions, setSessions] = useState<LiveSession[]>();
  const load = () => call<LiveSession[]>('GET', `/v1/sessions?limit=${SESSIONS_SHOWN}`).then(setSessions);
  const { problem, setProblem, done, act } = useActions(load);
  const [asked, setAsked] = useState<Asked>();
  useEffect(() => {
    load().catch((err) => setProblem(explain(err)));
  }, []);
  const endOne = (s: LiveSession) =>
    act(
      () => call('DELETE', `/v1/users/${s.uid}/sessions/${s.sid}`),
      `Ended the session of ${whoOf(s)} from ${s.client_ip || 'an unknown address'}.`,
    );
  const endAll = async () => {
    setProblem('');
    try {
      const { ended } = await call<{ ended: number }>('DELETE', '/v1/sessions');
      props.onSignInAgain(`Ended every session (${ended}), yours too. Sign in again.`);
    } catch (err) {
      setProblem(explain(err));
    }
  };
  return (
    <section class="live-sessions">
      <h1>Sessions</h1>
      <p>
        Who is signed in now, on every node: each sign-in (the console, the CLI, a script) is a session until it ends,
        expires or is ended here. The latest seen first.
      </p>
      <div class="buttons">
        {/* Nothing to do but the reload every action ends with. */}
        <button type="button" onClick={() => void act(async () => undefined, 'Refreshed.')}>
          Refresh
        </button>
        {props.mayEndAll && sessions !== undefined && sessions.length > 0 && (
          <button type="button" class="danger" onClick={() => setAsked({ kind: 'all' })}>
            End every session
          </button>
        )}
      </div>
      <Problem>{problem}</Problem>
      <Done>{done}</Done>
      {sessions === undefined ? (
        !problem && <p>Loading sessions…</p>
      ) : sessions.length === 0 ? (
        <p>No live sessions.</p>
      ) : (
        <>
          <table>
            <caption class="visually-hidden">Live sessions</caption>
            <thead>
              <tr>
                <th scope="col">User</th>
                <th scope="col">Address</th>
                <th scope="col">Client</th>
                <th scope="col">Signed in</th>
                <th scope="col">Last seen</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {sessions.map((s) => (
                <SessionRow key={s.sid} session={s} onEnd={() => setAsked({ kind: 'one', session: s })} />
              ))}
            </tbody>
          </table>
          {sessions.length >= SESSIONS_SHOWN && (
            <p class="hint">The {SESSIONS_SHOWN} latest seen are shown; there are more.</p>
          )}
        </>
      )}
      {asked?.kind === 'one' && (
        <Confirm
          title={`End this session of ${whoOf(asked.session)}?`}
          confirm="End session"
          onConfirm={() => endOne(asked.session)}
          onClose={() => setAsked(undefined)}
        >
          <p>
            The session of <strong>{whoOf(asked.session)}</strong> from{' '}
            {asked.session.client_ip || 'an unknown address'} ({clientOf(asked.session.user_agent)}, signed in{' '}
            {when(asked.session.started)}) ends now: its tokens are refused and cannot be refreshed. Their password is
            unchanged; they may sign in again.
          </p>
          {/* The client's own words in full: a short name is read from them, and a script may borrow a browser's. */}
          <p class="hint">User agent: {asked.session.user_agent || 'none sent'}</p>
          {asked.session.current && (
            <p>
              <strong>This is your own session, here:</strong> you sign in again.
            </p>
          )}
        </Confirm>
      )}
      {asked?.kind === 'all' && (
        <Confirm
          title="End every session?"
          confirm="End every session"
          onConfirm={endAll}
          onClose={() => setAsked(undefined)}
        >
          <p>
            Every session of every user ends now, on every node: each person, script and service signs in again.
            Passwords and API keys are unchanged.
          </p>
          <p>
            <strong>Your own session ends too:</strong> you sign in again.
          </p>
        </Confirm>
      )}
    </section>
  );
}

function SessionRow(props: { session: LiveSession; onEnd: () => void }) {
  const { session: s } = props;
  const who = whoOf(s);
  const client = clientOf(s.user_agent);
  return (
    <tr>
      <th scope="row" class="name">
        {userText(s.name || s.email)}
        {s.name && s.email && (
          <>
            <br />
            <small>{userText(s.email)}</small>
          </>
        )}
        {s.current && (
          <>
            <br />
            <span class="badge">you, here</span>
          </>
        )}
      </th>
      <td>{s.client_ip ? addressOf(s.client_ip) : '—'}</td>
      <td class="long">
        <span title={s.user_agent || undefined}>{client}</span>
        <br />
        <small>
          {s.realm}
          {s.console ? ', console' : ''}
        </small>
      </td>
      <td>{when(s.started)}</td>
      <td>{when(s.last_seen)}</td>
      <td class="actions">
        <button
          type="button"
          class="danger"
          aria-label={`End the session of ${who} from ${s.client_ip || 'an unknown address'}, ${client}`}
          onClick={props.onEnd}
        >
          End
        </button>
      </td>
    </tr>
  );
}
