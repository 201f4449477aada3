import { useEffect, useState } from 'preact/hooks';
import type { Call } from '../api.js';
import { explain } from '../api.js';
import { Check, Confirm, Done, Field, Problem, RoleChoice, useActions } from '../components.js';
import type { ClusterRole } from '../roles.js';

interface Query {
  base?: string;
  filter?: string;
  scope?: 'base' | 'one' | 'subtree';
}

/** The product's `ldap` object, as GET /v1/cluster/ldap answers it (bind_pass masked). */
interface Ldap {
  uris: string[];
  starttls: boolean;
  ca_cert: string;
  bind_dn: string;
  bind_pass: string;
  user_dn_template: string;
  user_dn_query: Query;
  dn_group_attr: string;
  dn_group_query: Query;
  cache_ttl: number;
  directory_timeout_s: number;
  control_plane: boolean;
}

interface Mapping {
  uid: number;
  name: string;
  dn: string;
  role_uids: number[];
}

/** What the form edits: text for every field, and which way users and groups are found. */
interface Draft {
  uris: string;
  starttls: boolean;
  ca_cert: string;
  bind_dn: string;
  bind_pass: string;
  userBy: 'template' | 'query';
  user_dn_template: string;
  userQuery: Required<Query>;
  groupsBy: 'attr' | 'query';
  dn_group_attr: string;
  groupQuery: Required<Query>;
  cache_ttl: string;
  directory_timeout_s: string;
  control_plane: boolean;
}

const query = (q: Query): Required<Query> => ({
  base: q.base ?? '',
  filter: q.filter ?? '',
  scope: q.scope ?? 'subtree',
});

function draftOf(l: Ldap): Draft {
  return {
    uris: l.uris.join('\n'),
    starttls: l.starttls,
    ca_cert: l.ca_cert,
    bind_dn: l.bind_dn,
    bind_pass: l.bind_pass,
    userBy: l.user_dn_query.filter ? 'query' : 'template',
    user_dn_template: l.user_dn_template,
    userQuery: query(l.user_dn_query),
    groupsBy: l.dn_group_query.filter ? 'query' : 'attr',
    dn_group_attr: l.dn_group_attr,
    groupQuery: query(l.dn_group_query),
    cache_ttl: String(l.cache_ttl),
    directory_timeout_s: String(l.directory_timeout_s),
    control_plane: l.control_plane,
  };
}

/** The PUT body: the way not chosen is cleared, the masked password sent back means "unchanged". */
function bodyOf(d: Draft): Record<string, unknown> {
  return {
    uris: d.uris.split(/[\s,]+/).filter(Boolean),
    starttls: d.starttls,
    ca_cert: d.ca_cert,
    bind_dn: d.bind_dn,
    bind_pass: d.bind_pass,
    user_dn_template: d.userBy === 'template' ? d.user_dn_template : '',
    user_dn_query: d.userBy === 'query' ? d.userQuery : {},
    dn_group_attr: d.groupsBy === 'attr' ? d.dn_group_attr : '',
    dn_group_query: d.groupsBy === 'query' ? d.groupQuery : {},
    cache_ttl: Number(d.cache_ttl),
    directory_timeout_s: Number(d.directory_timeout_s),
    control_plane: d.control_plane,
  };
}

/** LDAP: where the directory is, how a user and its groups are found, and which group gets which roles. */
export function LdapPage(props: { call: Call }) {
  const [draft, setDraft] = useState<Draft>();
  const [mappings, setMappings] = useState<Mapping[]>([]);
  const [roles, setRoles] = useState<ClusterRole[]>([]);
  const [deleting, setDeleting] = useState<Mapping>();
  const [clearing, setClearing] = useState(false);
  const { problem, setProblem, done, act } = useActions(() => load());
  const load = () =>
    Promise.all([
      props.call<Ldap>('GET', '/v1/cluster/ldap'),
      props.call<Mapping[]>('GET', '/v1/ldap_mappings'),
      props.call<ClusterRole[]>('GET', '/v1/roles'),
    ]).then(
      ([ldap, m, r]) => {
        setDraft(draftOf(ldap));
        setMappings(m);
        setRoles(r);
      },
      (err) => setProblem(explain(err)),
    );
  useEffect(() => void load(), []);
  const set = (changes: Partial<Draft>) => setDraft({ ...draft!, ...changes });
  return (
    <section>
      <h1>LDAP</h1>
      <p>
        Operators log in with their directory account: a bind as the user checks the password, and the roles of every
        mapped group it is in are its roles. A local user of the same name wins.
      </p>
      <Problem>{problem}</Problem>
      <Done>{done}</Done>
      {draft && (
        <form
          aria-label="LDAP configuration"
          class="card"
          onSubmit={(e) => {
            e.preventDefault();
            void act(
              () => props.call('PUT', '/v1/cluster/ldap', bodyOf(draft)),
              'Saved: the directory answered. Directory users log in again.',
            );
          }}
        >
          <h2>Directory</h2>
          <div class="field">
            <label for="ldap-uris">Server URIs</label>
            <textarea
              id="ldap-uris"
              rows={2}
              aria-describedby="ldap-uris-hint"
              value={draft.uris}
              onInput={(e) => set({ uris: (e.target as HTMLTextAreaElement).value })}
            />
            <small id="ldap-uris-hint" class="hint">
              one a line, tried in order: ldap://host:389 or ldaps://host:636
            </small>
          </div>
          <Check
            id="ldap-starttls"
            label="Use StartTLS"
            checked={draft.starttls}
            onChange={(starttls) => set({ starttls })}
          />
          <div class="field">
            <label for="ldap-ca">CA certificate (PEM)</label>
            <textarea
              id="ldap-ca"
              rows={3}
              value={draft.ca_cert}
              onInput={(e) => set({ ca_cert: (e.target as HTMLTextAreaElement).value })}
            />
          </div>
          <Field
            label="Bind DN"
            value={draft.bind_dn}
            onInput={(bind_dn) => set({ bind_dn })}
            hint="the service account that searches; empty: anonymous"
            autoComplete="off"
          />
          <Field
            label="Bind password"
            type="password"
            value={draft.bind_pass}
            onInput={(bind_pass) => set({ bind_pass })}
            hint="*** keeps the one set"
            autoComplete="new-password"
          />
          <fieldset>
            <legend>A user name becomes a DN by</legend>
            <Check
              id="ldap-user-template"
              radio
              name="userBy"
              label="a template"
              checked={draft.userBy === 'template'}
              onChange={() => set({ userBy: 'template' })}
            />
            <Check
              id="ldap-user-query"
              radio
              name="userBy"
              label="a search"
              checked={draft.userBy === 'query'}
              onChange={() => set({ userBy: 'query' })}
            />
            {draft.userBy === 'template' ? (
              <Field
                label="User DN template"
                value={draft.user_dn_template}
                onInput={(user_dn_template) => set({ user_dn_template })}
                hint="%u is the user name: uid=%u,ou=people,dc=example,dc=com"
              />
            ) : (
              <QueryFields
                prefix="User search"
                value={draft.userQuery}
                hint="%u is the user name: (sAMAccountName=%u)"
                onChange={(userQuery) => set({ userQuery })}
              />
            )}
          </fieldset>
          <fieldset>
            <legend>A user's groups come from</legend>
            <Check
              id="ldap-groups-attr"
              radio
              name="groupsBy"
              label="an attribute of its entry"
              checked={draft.groupsBy === 'attr'}
              onChange={() => set({ groupsBy: 'attr' })}
            />
            <Check
              id="ldap-groups-query"
              radio
              name="groupsBy"
              label="a search"
              checked={draft.groupsBy === 'query'}
              onChange={() => set({ groupsBy: 'query' })}
            />
            {draft.groupsBy === 'attr' ? (
              <Field
                label="Group attribute"
                value={draft.dn_group_attr}
                onInput={(dn_group_attr) => set({ dn_group_attr })}
                hint="memberOf"
              />
            ) : (
              <QueryFields
                prefix="Group search"
                value={draft.groupQuery}
                hint="%D is the user's DN: (member=%D)"
                onChange={(groupQuery) => set({ groupQuery })}
              />
            )}
          </fieldset>
          <Field
            label="Cache (seconds)"
            type="number"
            min={0}
            max={86_400}
            value={draft.cache_ttl}
            onInput={(cache_ttl) => set({ cache_ttl })}
            hint="how long a directory answer is trusted"
          />
          <Field
            label="Directory timeout (seconds)"
            type="number"
            min={5}
            max={60}
            value={draft.directory_timeout_s}
            onInput={(directory_timeout_s) => set({ directory_timeout_s })}
          />
          <Check
            id="ldap-control-plane"
            label="LDAP logins to the API and this console"
            checked={draft.control_plane}
            onChange={(control_plane) => set({ control_plane })}
          />
          <button type="submit">Save LDAP</button>{' '}
          <button type="button" onClick={() => setClearing(true)}>
            Clear LDAP
          </button>
        </form>
      )}
      <h2>Mappings</h2>
      <NewMapping
        roles={roles}
        onCreate={(m) => act(() => props.call('POST', '/v1/ldap_mappings', m), `Mapped ${m.name}.`)}
      />
      <table>
        <caption class="visually-hidden">LDAP mappings</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Group DN</th>
            <th scope="col">Roles</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {mappings.map((m) => (
            <tr key={m.uid}>
              <th scope="row">{m.name}</th>
              <td>{m.dn}</td>
              <td>{m.role_uids.map((uid) => roles.find((r) => r.uid === uid)?.name ?? uid).join(', ')}</td>
              <td>
                <button type="button" aria-label={`Delete mapping ${m.name}`} onClick={() => setDeleting(m)}>
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {deleting && (
        <Confirm
          title={`Delete the mapping ${deleting.name}?`}
          confirm={`Delete mapping ${deleting.name}`}
          onConfirm={() =>
            act(
              () => props.call('DELETE', `/v1/ldap_mappings/${deleting.uid}`),
              `Deleted the mapping ${deleting.name}.`,
            )
          }
          onClose={() => setDeleting(undefined)}
        >
          <p>
            Members of <code>{deleting.dn}</code> no longer get its roles. Every directory user is signed out (their
            tokens end) and signs in again with the mappings that remain.
          </p>
        </Confirm>
      )}
      {clearing && (
        <Confirm
          title="Clear LDAP?"
          confirm="Clear LDAP"
          onConfirm={() =>
            act(() => props.call('DELETE', '/v1/cluster/ldap'), 'LDAP cleared: directory users can no longer log in.')
          }
          onClose={() => setClearing(false)}
        >
          <p>
            The directory settings are deleted: no directory user can sign in, and every one of them is signed out now
            (their tokens end). The mappings stay.
          </p>
        </Confirm>
      )}
    </section>
  );
}

function NewMapping(props: {
  roles: ClusterRole[];
  onCreate: (m: { name: string; dn: string; role_uids: number[] }) => Promise<boolean>;
}) {
  const [name, setName] = useState('');
  const [dn, setDn] = useState('');
  const [roleUids, setRoleUids] = useState<number[]>([]);
  return (
    <form
      aria-label="Create mapping"
      class="card"
      onSubmit={(e) => {
        e.preventDefault();
        void props.onCreate({ name, dn, role_uids: roleUids }).then((created) => {
          if (!created) return; // kept for a correction
          setName('');
          setDn('');
          setRoleUids([]);
        });
      }}
    >
      <Field label="Mapping name" value={name} onInput={setName} required autoComplete="off" />
      <Field
        label="Group DN"
        value={dn}
        onInput={setDn}
        required
        hint="cn=ops,ou=groups,dc=example,dc=com"
        autoComplete="off"
      />
      <RoleChoice legend="Roles its members get" roles={props.roles} value={roleUids} onChange={setRoleUids} />
      <button type="submit">Create mapping</button>
    </form>
  );
}

function QueryFields(props: {
  prefix: string;
  value: Required<Query>;
  hint: string;
  onChange: (q: Required<Query>) => void;
}) {
  const q = props.value;
  return (
    <>
      <Field
        label={`${props.prefix} base`}
        value={q.base}
        onInput={(base) => props.onChange({ ...q, base })}
        hint="where the search starts: ou=people,dc=example,dc=com"
      />
      <Field
        label={`${props.prefix} filter`}
        value={q.filter}
        onInput={(filter) => props.onChange({ ...q, filter })}
        hint={props.hint}
      />
      <label class="field">
        <span>{`${props.prefix} scope`}</span>
        <select
          value={q.scope}
          onChange={(e) =>
            props.onChange({ ...q, scope: (e.target as HTMLSelectElement).value as Query['scope'] & string })
          }
        >
          <option value="base">base</option>
          <option value="one">one level</option>
          <option value="subtree">subtree</option>
        </select>
      </label>
    </>
  );
}
