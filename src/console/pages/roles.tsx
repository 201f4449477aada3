import { useEffect, useState } from 'preact/hooks';
import { explain } from '../api.js';
import type { Call } from '../app.js';
import { Done, Field, Problem, useActions } from '../components.js';
import { type ClusterRole, LEVELS } from '../roles.js';
import type { Role, Session } from '../session.js';

/** Roles: each a name and the management level it grants; create, rename, change, delete. */
export function RolesPage(props: { call: Call; session: Session }) {
  const [roles, setRoles] = useState<ClusterRole[]>([]);
  const [name, setName] = useState('');
  const [management, setManagement] = useState<Role>('db_viewer');
  const { problem, setProblem, done, act } = useActions(() => load());
  const load = () => props.call<ClusterRole[]>('GET', '/v1/roles').then(setRoles, (err) => setProblem(explain(err)));
  useEffect(() => void load(), []);
  return (
    <section>
      <h1>Roles</h1>
      <form
        aria-label="Create role"
        class="card"
        onSubmit={(e) => {
          e.preventDefault();
          void act(() => props.call('POST', '/v1/roles', { name, management }), `Created the role ${name}.`).then(() =>
            setName(''),
          );
        }}
      >
        <h2>Create a role</h2>
        <Field label="Role name" value={name} onInput={setName} required autoComplete="off" />
        <LevelSelect label="Management level" value={management} onChange={setManagement} />
        <button type="submit">Create role</button>
      </form>
      <Problem>{problem}</Problem>
      <Done>{done}</Done>
      <table>
        <caption class="visually-hidden">Roles</caption>
        <thead>
          <tr>
            <th scope="col">UID</th>
            <th scope="col">Name</th>
            <th scope="col">Management</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {roles.map((r) => (
            <tr key={r.uid}>
              <td>{r.uid}</td>
              <th scope="row">{r.name}</th>
              <td>
                <LevelSelect
                  label={`Management of ${r.name}`}
                  value={r.management}
                  hideLabel
                  onChange={(level) =>
                    void act(
                      () => props.call('PUT', `/v1/roles/${r.uid}`, { management: level }),
                      `${r.name} now grants ${level}.`,
                    )
                  }
                />
              </td>
              <td>
                <button
                  type="button"
                  aria-label={`Delete role ${r.name}`}
                  onClick={() =>
                    void act(() => props.call('DELETE', `/v1/roles/${r.uid}`), `Deleted the role ${r.name}.`)
                  }
                >
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function LevelSelect(props: { label: string; value: Role; hideLabel?: boolean; onChange: (level: Role) => void }) {
  return (
    <label class={props.hideLabel ? 'inline' : 'field'}>
      <span class={props.hideLabel ? 'visually-hidden' : undefined}>{props.label}</span>
      <select value={props.value} onChange={(e) => props.onChange((e.target as HTMLSelectElement).value as Role)}>
        {LEVELS.map((l) => (
          <option key={l} value={l}>
            {l}
          </option>
        ))}
      </select>
    </label>
  );
}
