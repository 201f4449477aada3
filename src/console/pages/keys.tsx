import { useEffect, useId, useState } from 'preact/hooks';
import type { Call } from '../api.js';
import { explain } from '../api.js';
import { Done, Problem, When } from '../components.js';
import { when } from '../dates.js';

interface Key {
  kid: string;
  alg: string;
  state: 'next' | 'active' | 'retired';
  activates_at: string | null;
}

const STATE: Record<Key['state'], string> = {
  active: 'signing now',
  next: 'published, signs from its activation time',
  retired: 'published for tokens it signed',
};

export function KeysPage(props: { call: Call }) {
  const [keys, setKeys] = useState<Key[]>([]);
  const [alg, setAlg] = useState('ES256');
  const [problem, setProblem] = useState('');
  const [done, setDone] = useState('');
  const algId = useId();
  const load = () => props.call<Key[]>('GET', '/v1/keys').then(setKeys, (err) => setProblem(explain(err)));
  useEffect(() => void load(), []);
  const rotate = async (e: Event) => {
    e.preventDefault();
    setProblem('');
    setDone('');
    try {
      const key = await props.call<{ kid: string; activates_at: string }>('POST', '/v1/keys/rotate', { alg });
      setDone(`Staged ${alg} key ${key.kid}: published now, signs from ${when(key.activates_at)}.`);
      await load();
    } catch (err) {
      setProblem(explain(err));
    }
  };
  return (
    <section>
      <h1>Keys</h1>
      <table>
        <caption class="visually-hidden">Signing keys</caption>
        <thead>
          <tr>
            <th scope="col">Key id</th>
            <th scope="col">Algorithm</th>
            <th scope="col">State</th>
            <th scope="col">Activation</th>
          </tr>
        </thead>
        <tbody>
          {keys.map((k) => (
            <tr key={k.kid}>
              <th scope="row">
                <code>{k.kid}</code>
              </th>
              <td>{k.alg}</td>
              <td>
                {k.state}: {STATE[k.state]}
              </td>
              <td>{k.activates_at ? <When at={k.activates_at} /> : ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <form onSubmit={rotate} aria-label="Rotate key" class="card">
        <div class="field">
          <label for={algId}>Algorithm of the new key</label>
          <select id={algId} value={alg} onChange={(e) => setAlg((e.target as HTMLSelectElement).value)}>
            <option value="ES256">ES256</option>
            <option value="RS256">RS256</option>
            <option value="EdDSA">EdDSA</option>
          </select>
        </div>
        <Problem>{problem}</Problem>
        <Done>{done}</Done>
        <button type="submit">Rotate key</button>
      </form>
    </section>
  );
}
