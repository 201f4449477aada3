import { useEffect, useState } from 'preact/hooks';
import { explain } from '../api.js';
import type { Call } from '../app.js';
import { Done, Field, Problem } from '../components.js';

type Policy = Record<string, number | boolean>;

/** Every setting of /v1/cluster/policy with its bounds and meaning (the server checks them again). */
const SETTINGS: { key: string; label: string; meaning: string; min?: number; max?: number }[] = [
  { key: 'password_min_length', label: 'Minimum password length', meaning: 'characters, 8 to 256', min: 8, max: 256 },
  { key: 'password_complexity', label: 'Require complex passwords', meaning: 'upper and lower case, a digit, a special character, not the username' },
  { key: 'password_expiration_duration', label: 'Password lifetime (days)', meaning: '0 to 3650; 0: passwords never expire', min: 0, max: 3650 },
  { key: 'login_lockout_threshold', label: 'Failed logins before lockout', meaning: '0 to 1000; 0: never lock', min: 0, max: 1000 },
  { key: 'login_lockout_counter_reset_after', label: 'Failure window (seconds)', meaning: '1 to 86400: failures older than this are forgotten', min: 1, max: 86_400 },
  { key: 'login_lockout_duration', label: 'Lockout duration (seconds)', meaning: '0 to 86400; 0: until an admin unlocks', min: 0, max: 86_400 },
];

export function PolicyPage(props: { call: Call }) {
  const [policy, setPolicy] = useState<Policy>();
  const [draft, setDraft] = useState<Record<string, string | boolean>>({});
  const [problem, setProblem] = useState('');
  const [done, setDone] = useState('');
  useEffect(() => {
    props.call<Policy>('GET', '/v1/cluster/policy').then(
      (p) => {
        setPolicy(p);
        setDraft(Object.fromEntries(Object.entries(p).map(([k, v]) => [k, typeof v === 'boolean' ? v : String(v)])));
      },
      (err) => setProblem(explain(err)),
    );
  }, []);
  const save = async (e: Event) => {
    e.preventDefault();
    setProblem('');
    setDone('');
    const changes = Object.fromEntries(
      SETTINGS.map(({ key }) => [key, typeof draft[key] === 'boolean' ? draft[key] : Number(draft[key])]).filter(([key, v]) => policy?.[key as string] !== v),
    );
    if (Object.keys(changes).length === 0) return setDone('Nothing changed.');
    try {
      const saved = await props.call<Policy>('PUT', '/v1/cluster/policy', changes);
      setPolicy(saved);
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
                type="number"
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
