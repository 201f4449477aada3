import { useEffect, useState } from 'preact/hooks';
import type { Call } from '../api.js';
import { explain } from '../api.js';
import { Done, Field, Problem } from '../components.js';

type Policy = Record<string, number | boolean | string>;

const CLUSTER = '/v1/cluster';
const LOCKOUT = '/v1/cluster/policy';
type Home = typeof CLUSTER | typeof LOCKOUT;

/**
 * Every security setting with its bounds and meaning (the server checks them again), and
 * where the product keeps it: the cluster object, or the cluster settings (lockout).
 */
const SETTINGS: {
  key: string;
  home: Home;
  label: string;
  meaning: string;
  min?: number;
  max?: number;
  /** Text (a name), not a number or a switch. */
  text?: true;
}[] = [
  {
    key: 'name',
    home: CLUSTER,
    label: 'Cluster name',
    meaning:
      'up to 256 characters; the "clustername" of pre-hashed passwords (password_hash_method 1) imported from another cluster; empty: the host of the public URL',
    text: true,
  },
  {
    key: 'password_min_length',
    home: CLUSTER,
    label: 'Minimum password length',
    meaning: 'characters, 8 to 256',
    min: 8,
    max: 256,
  },
  {
    key: 'password_complexity',
    home: CLUSTER,
    label: 'Require complex passwords',
    meaning: "upper and lower case, a digit, a special character, not the user's name, email or email reversed",
  },
  {
    key: 'password_expiration_duration',
    home: CLUSTER,
    label: 'Password lifetime (days)',
    meaning: '0 to 3650; 0: passwords never expire',
    min: 0,
    max: 3650,
  },
  {
    key: 'cm_session_timeout_minutes',
    home: CLUSTER,
    label: 'Console idle sign-out (minutes)',
    meaning: '1 to 1440 minutes without a key or a click',
    min: 1,
    max: 1440,
  },
  {
    key: 'session_max_lifetime_minutes',
    home: CLUSTER,
    label: 'Session lifetime (minutes)',
    meaning:
      '5 to 43200 (30 days): a sign-in lasts this long however often its token is renewed, then the user signs in again; applies at a session’s next renewal',
    min: 5,
    max: 43_200,
  },
  {
    key: 'control_plane_basic_authentication',
    home: CLUSTER,
    label: 'Accept Basic credentials on every route',
    meaning: 'off: only the login takes a password; every other call needs a token',
  },
  {
    key: 'metrics_auth',
    home: CLUSTER,
    label: 'Ask for credentials to scrape metrics',
    meaning:
      'on: GET /metrics needs the Basic credentials (or a token) of an admin, cluster_member or cluster_viewer; the probes stay open',
  },
  {
    key: 'login_lockout_threshold',
    home: LOCKOUT,
    label: 'Failed logins before lockout',
    meaning: '0 to 1000; 0: never lock',
    min: 0,
    max: 1000,
  },
  {
    key: 'login_lockout_counter_reset_after',
    home: LOCKOUT,
    label: 'Failure window (seconds)',
    meaning: '1 to 86400: failures older than this are forgotten',
    min: 1,
    max: 86_400,
  },
  {
    key: 'login_lockout_duration',
    home: LOCKOUT,
    label: 'Lockout duration (seconds)',
    meaning: '0 to 86400; 0: until an admin unlocks',
    min: 0,
    max: 86_400,
  },
];

/** The form's values of the settings: the switches as they are, the rest as text. */
const draftOf = (p: Policy) =>
  Object.fromEntries(Object.entries(p).map(([k, v]) => [k, typeof v === 'boolean' ? v : String(v)]));

export function PolicyPage(props: { call: Call }) {
  const [policy, setPolicy] = useState<Policy>();
  const [draft, setDraft] = useState<Record<string, string | boolean>>({});
  const [problem, setProblem] = useState('');
  const [done, setDone] = useState('');
  useEffect(() => {
    Promise.all([props.call<Policy>('GET', CLUSTER), props.call<Policy>('GET', LOCKOUT)]).then(
      ([cluster, lockout]) => {
        const p = { ...cluster, ...lockout };
        setPolicy(p);
        setDraft(draftOf(p));
      },
      (err) => setProblem(explain(err)),
    );
  }, []);
  const save = async (e: Event) => {
    e.preventDefault();
    setProblem('');
    setDone('');
    const changes = Object.fromEntries(
      SETTINGS.map(({ key, text }) => [
        key,
        text || typeof draft[key] === 'boolean' ? draft[key] : Number(draft[key]),
      ]).filter(([key, v]) => policy?.[key as string] !== v),
    );
    if (Object.keys(changes).length === 0) return setDone('Nothing changed.');
    try {
      let saved = { ...policy };
      for (const home of [CLUSTER, LOCKOUT]) {
        const mine = Object.fromEntries(
          Object.entries(changes).filter(([key]) => SETTINGS.find((x) => x.key === key)?.home === home),
        );
        if (Object.keys(mine).length > 0) saved = { ...saved, ...(await props.call<Policy>('PUT', home, mine)) };
      }
      setPolicy(saved);
      setDraft(draftOf(saved)); // as the server keeps it (an empty name reads as the public URL's host)
      setDone('Saved. The policy applies at once.');
    } catch (err) {
      setProblem(explain(err));
    }
  };
  return (
    <section>
      <h1>Policy</h1>
      <Problem>{problem}</Problem>
      {policy && (
        <form onSubmit={save} aria-label="Policy" class="card">
          {SETTINGS.map((s) =>
            typeof policy[s.key] === 'boolean' ? (
              <div class="field check" key={s.key}>
                <input
                  id={s.key}
                  type="checkbox"
                  checked={draft[s.key] as boolean}
                  aria-describedby={`${s.key}-hint`}
                  onChange={(e) => setDraft({ ...draft, [s.key]: (e.target as HTMLInputElement).checked })}
                />
                <label for={s.key}>{s.label}</label>
                <small id={`${s.key}-hint`} class="hint">
                  {s.meaning}
                </small>
              </div>
            ) : (
              <Field
                key={s.key}
                label={s.label}
                type={s.text ? 'text' : 'number'}
                maxLength={s.text ? 256 : undefined}
                autoComplete={s.text ? 'off' : undefined}
                min={s.min}
                max={s.max}
                hint={s.meaning}
                value={String(draft[s.key] ?? '')}
                onInput={(v) => setDraft({ ...draft, [s.key]: v })}
              />
            ),
          )}
          <Done>{done}</Done>
          <button type="submit">Save policy</button>
        </form>
      )}
    </section>
  );
}
