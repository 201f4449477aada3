import { useEffect, useId, useState } from 'preact/hooks';
import type { AuditingView, SinkView } from '../../siem/siem-service.js';
import type { Call } from '../api.js';
import { explain } from '../api.js';
import { ActionMenu, Confirm, Dialog, Done, Field, Problem, useActions } from '../components.js';
import { when } from '../dates.js';

const PATH = '/v1/cluster/auditing/control_plane';
/** How often the sinks' delivery is read again while the page is open. */
const REFRESH_MS = 5000;

/** The API's own shapes (type-only: nothing of the server is bundled). */
type Auditing = AuditingView;
type Sink = SinkView;
type Mode = Auditing['mode'];
type SinkType = Sink['type'];

/** What the sink form edits: text for every field, whatever the type (only the type's own are sent). */
interface Draft {
  name: string;
  type: SinkType;
  format: Sink['format'];
  address: string;
  port: string;
  protocol: 'TCP' | 'TLS';
  ca_cert: string;
  url: string;
  secret: string;
  path: string;
}

const NEW_SINK: Draft = {
  name: '',
  type: 'syslog',
  format: 'json',
  address: '',
  port: '6514',
  protocol: 'TLS',
  ca_cert: '',
  url: '',
  secret: '',
  path: '',
};

const draftOf = (s: Sink): Draft => ({
  ...NEW_SINK,
  name: s.name,
  type: s.type,
  format: s.format,
  address: s.address ?? '',
  port: s.port === undefined ? '' : String(s.port),
  protocol: s.protocol ?? 'TCP',
  ca_cert: s.ca_cert ?? '',
  url: s.url ?? '',
  path: s.path ?? '',
});

/** The PUT body of one sink: its type's fields only; an empty CA means none, an empty secret keeps the one set. */
function bodyOf(d: Draft): Record<string, unknown> {
  const common = { name: d.name.trim(), type: d.type, format: d.format };
  const ca = d.ca_cert.trim() ? { ca_cert: d.ca_cert.trim() } : {};
  if (d.type === 'syslog')
    return {
      ...common,
      address: d.address.trim(),
      port: Number(d.port),
      protocol: d.protocol,
      ...(d.protocol === 'TLS' && ca),
    };
  if (d.type === 'webhook') return { ...common, url: d.url.trim(), ...(d.secret && { secret: d.secret }), ...ca };
  return { ...common, path: d.path.trim() };
}

/** A sink sent back as it is: its status is the server's (accepted and ignored, left out all the same). */
const kept = ({ status: _, ...settings }: Sink) => settings;

const where = (s: Sink) =>
  s.type === 'syslog' ? `${s.address}:${s.port} ${s.protocol ?? 'TCP'}` : s.type === 'webhook' ? s.url : s.path;

/** An age in its largest whole unit: 42 s, 5 min, 3 h, 2 d. */
function age(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7200) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 172_800) return `${Math.floor(seconds / 3600)} h`;
  return `${Math.floor(seconds / 86_400)} d`;
}

const MODES: Record<Mode, string> = {
  best_effort: 'Best effort',
  blocking: 'Blocking',
};

/** Auditing: where the control plane's security events go (SIEM sinks), and what happens when a sink falls behind. */
export function AuditingPage(props: { call: Call }) {
  const [auditing, setAuditing] = useState<Auditing>();
  const [mode, setMode] = useState<Mode>('best_effort');
  const [maxBacklog, setMaxBacklog] = useState('');
  const [editing, setEditing] = useState<Sink>();
  const [removing, setRemoving] = useState<Sink>();
  /** The last refresh failed: said apart, and gone once one works again. */
  const [stale, setStale] = useState('');
  const { problem, setProblem, done, setDone, act } = useActions(() => load());
  /** The mode form's own outcome, said beside it. */
  const settings = useActions(() => load());
  const load = () =>
    props.call<Auditing>('GET', PATH).then(
      (a) => {
        setAuditing(a);
        setMode(a.mode);
        setMaxBacklog(String(a.max_backlog));
      },
      (err) => setProblem(explain(err)),
    );
  useEffect(() => {
    void load();
    // The sinks' delivery only (what the person is typing stays).
    const timer = setInterval(
      () =>
        props.call<Auditing>('GET', PATH).then(
          (a) => {
            setAuditing(a);
            setStale('');
          },
          (err) => setStale(explain(err)),
        ),
      REFRESH_MS,
    );
    return () => clearInterval(timer);
  }, []);
  /** `sinks` replaces the list: the others are sent back as the page last read them. */
  const putSinks = (change: (sinks: Sink[]) => Record<string, unknown>[]) =>
    props.call<Auditing>('PUT', PATH, { sinks: change(auditing?.sinks ?? []) });

  return (
    <section>
      <h1>Auditing</h1>
      <p>
        Every security event of the control plane (sign-ins, changes, refusals) goes to the sinks below as well as to
        the event log: a syslog collector, a webhook or a file, each in Tessera's JSON or OCSF. An event waits in the
        store until its sink takes it, and is tried again while the sink fails.
      </p>
      <Problem>{problem}</Problem>
      <Problem title="Not refreshed">{stale}</Problem>
      <Done>{done}</Done>
      {auditing && (
        <form
          aria-label="Delivery"
          class="card"
          onSubmit={(e) => {
            e.preventDefault();
            const changes = {
              ...(mode !== auditing.mode && { mode }),
              ...(Number(maxBacklog) !== auditing.max_backlog && { max_backlog: Number(maxBacklog) }),
            };
            if (Object.keys(changes).length === 0) return settings.setDone('Nothing changed.');
            void settings.act(() => props.call('PUT', PATH, changes), 'Saved. It applies at once.');
          }}
        >
          <h2>When a sink falls behind</h2>
          <Choice
            label="Mode"
            value={mode}
            options={[
              ['best_effort', MODES.best_effort],
              ['blocking', MODES.blocking],
            ]}
            onChange={setMode}
          />
          <ul class="hint">
            <li>
              <strong>{MODES.best_effort}</strong>: past the bound, a sink's oldest undelivered events are dropped (and
              counted as dropped), sign-ins' first; nothing waits for the sink.
            </li>
            <li>
              <strong>{MODES.blocking}</strong>: when changes' events fill the bound, changes are refused (503) until
              the sink catches up; sign-ins, logouts and ending sessions go on (their events past the bound are dropped
              and counted).
            </li>
          </ul>
          <Field
            label="Bound (events a sink may have waiting)"
            type="number"
            min={100}
            max={10_000_000}
            value={maxBacklog}
            onInput={setMaxBacklog}
            hint="100 to 10,000,000"
          />
          <Problem>{settings.problem}</Problem>
          <Done>{settings.done}</Done>
          <button type="submit">Save auditing</button>
        </form>
      )}
      <h2>Sinks</h2>
      {auditing && auditing.sinks.length === 0 && <p>No sinks: the events are in the event log only.</p>}
      {auditing && auditing.sinks.length > 0 && (
        <table>
          <caption class="visually-hidden">Sinks</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Type, format</th>
              <th scope="col">Where</th>
              <th scope="col">State</th>
              <th scope="col">Backlog</th>
              <th scope="col">Delivered</th>
              <th scope="col">Dropped</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {auditing.sinks.map((s) => (
              <SinkRow key={s.name} sink={s} onEdit={() => setEditing(s)} onRemove={() => setRemoving(s)} />
            ))}
          </tbody>
        </table>
      )}
      {auditing && <NewSink reload={load} add={(draft) => putSinks((sinks) => [...sinks.map(kept), bodyOf(draft)])} />}
      {editing && (
        <EditSink
          sink={editing}
          onClose={() => setEditing(undefined)}
          onSave={async (draft) => {
            await putSinks((sinks) => sinks.map((s) => (s.name === editing.name ? bodyOf(draft) : kept(s))));
            setEditing(undefined);
            setProblem('');
            await load();
            setDone(`Saved the sink ${editing.name}.`);
          }}
        />
      )}
      {removing && (
        <Confirm
          title={`Remove the sink ${removing.name}?`}
          confirm={`Remove sink ${removing.name}`}
          onConfirm={() =>
            act(
              () => putSinks((sinks) => sinks.filter((s) => s.name !== removing.name).map(kept)),
              `Removed the sink ${removing.name}.`,
            )
          }
          onClose={() => setRemoving(undefined)}
        >
          <p>
            No event goes to <code>{where(removing)}</code> any more, and the{' '}
            {removing.status.backlog === 1 ? 'one event' : `${removing.status.backlog} events`} waiting for it{' '}
            {removing.status.backlog === 1 ? 'is' : 'are'} dropped. The event log keeps them all.
          </p>
        </Confirm>
      )}
    </section>
  );
}

function SinkRow(props: { sink: Sink; onEdit: () => void; onRemove: () => void }) {
  const { sink: s } = props;
  const st = s.status;
  return (
    <tr class={st.state === 'failing' ? 'warning' : undefined}>
      <th scope="row">{s.name}</th>
      <td>
        {s.type}, {s.format}
      </td>
      <td class="long">
        <code>{where(s)}</code>
      </td>
      <td>
        {st.state === 'failing' ? (
          <>
            <span class="badge warn">Failing</span>
            {st.failing_since && ` since ${when(st.failing_since)}`}
            {st.last_error && `: ${st.last_error}`}
          </>
        ) : (
          <>
            Delivering
            {st.last_delivered_at && <small> (last {when(st.last_delivered_at)})</small>}
          </>
        )}
      </td>
      <td>
        {st.backlog}
        {st.oldest_undelivered_age_seconds !== undefined && (
          <small> (oldest {age(st.oldest_undelivered_age_seconds)})</small>
        )}
      </td>
      <td>{st.delivered}</td>
      <td>{st.dropped}</td>
      <td class="actions">
        <ActionMenu
          label={`Actions for sink ${s.name}`}
          items={[
            { label: 'Edit', onSelect: props.onEdit },
            { label: 'Remove', onSelect: props.onRemove },
          ]}
        />
      </td>
    </tr>
  );
}

/** Its outcome said beside it: the form is below the list. */
function NewSink(props: { add: (draft: Draft) => Promise<unknown>; reload: () => Promise<unknown> }) {
  const [draft, setDraft] = useState<Draft>(NEW_SINK);
  const { problem, done, act } = useActions(props.reload);
  return (
    <form
      aria-label="Add a sink"
      class="card"
      onSubmit={(e) => {
        e.preventDefault();
        void act(() => props.add(draft), `Added the sink ${draft.name.trim()}.`).then((added) => {
          if (added) setDraft(NEW_SINK); // kept for a correction otherwise
        });
      }}
    >
      <h2>Add a sink</h2>
      <Field
        label="Sink name"
        value={draft.name}
        onInput={(name) => setDraft({ ...draft, name })}
        required
        autoComplete="off"
        hint="lower-case letters, digits, - and _ (up to 64): names its metrics and its backlog"
      />
      <Choice
        label="Type"
        value={draft.type}
        options={[
          ['syslog', 'syslog (a collector)'],
          ['webhook', 'webhook (HTTPS POST)'],
          ['file', 'file (JSON lines)'],
        ]}
        onChange={(type) => setDraft({ ...draft, type })}
      />
      <SinkFields draft={draft} set={(changes) => setDraft({ ...draft, ...changes })} />
      <Problem>{problem}</Problem>
      <Done>{done}</Done>
      <button type="submit">Add sink</button>
    </form>
  );
}

/** A sink's settings but its name and type (a sink of another name or type is another sink). */
function EditSink(props: { sink: Sink; onClose: () => void; onSave: (draft: Draft) => Promise<void> }) {
  const [draft, setDraft] = useState<Draft>(draftOf(props.sink));
  const [problem, setProblem] = useState('');
  const title = `Edit the sink ${props.sink.name} (${props.sink.type})`;
  return (
    <Dialog title={title} onClose={props.onClose}>
      <form
        aria-label={title}
        onSubmit={(e) => {
          e.preventDefault();
          setProblem('');
          props.onSave(draft).catch((err) => setProblem(explain(err)));
        }}
      >
        <SinkFields draft={draft} existing set={(changes) => setDraft({ ...draft, ...changes })} />
        <Problem>{problem}</Problem>
        <div class="buttons">
          <button type="submit">Save</button>
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** The fields of the chosen type, and the format. */
function SinkFields(props: { draft: Draft; existing?: boolean; set: (changes: Partial<Draft>) => void }) {
  const { draft: d, set } = props;
  return (
    <>
      <Choice
        label="Format"
        value={d.format}
        options={[
          ['json', 'json'],
          ['ocsf', 'ocsf'],
        ]}
        onChange={(format) => set({ format })}
        hint="json: Tessera's event, as GET /v1/logs answers it; ocsf: OCSF 1.1"
      />
      {d.type === 'syslog' && (
        <>
          <Field
            label="Collector address"
            value={d.address}
            onInput={(address) => set({ address })}
            required
            autoComplete="off"
            hint="a host name or an IP address"
          />
          <Field
            label="Port"
            type="number"
            min={1}
            max={65_535}
            value={d.port}
            onInput={(port) => set({ port })}
            required
          />
          <Choice
            label="Protocol"
            value={d.protocol}
            options={[
              ['TLS', 'TLS (RFC 5425)'],
              ['TCP', 'TCP, unencrypted (RFC 6587)'],
            ]}
            onChange={(protocol) => set({ protocol })}
          />
          {d.protocol === 'TLS' && (
            <PemArea
              value={d.ca_cert}
              onInput={(ca_cert) => set({ ca_cert })}
              hint="what the collector's certificate must chain to; empty: the system's CAs"
            />
          )}
        </>
      )}
      {d.type === 'webhook' && (
        <>
          <Field
            label="Webhook URL"
            type="url"
            value={d.url}
            onInput={(url) => set({ url })}
            required
            autoComplete="off"
            hint="https:// only: the events name people and addresses"
          />
          <Field
            label="Secret"
            type="password"
            value={d.secret}
            onInput={(secret) => set({ secret })}
            required={!props.existing}
            autoComplete="new-password"
            hint={
              props.existing
                ? 'leave empty to keep the one set'
                : 'at least 16 characters: each batch is signed with it (HMAC-SHA256); never shown again'
            }
          />
          <PemArea
            value={d.ca_cert}
            onInput={(ca_cert) => set({ ca_cert })}
            hint="what the receiver's certificate must chain to; empty: the system's CAs"
          />
        </>
      )}
      {d.type === 'file' && (
        <Field
          label="File path"
          value={d.path}
          onInput={(path) => set({ path })}
          required
          autoComplete="off"
          hint="an absolute path on each node: JSON lines appended (reopened on SIGHUP)"
        />
      )}
    </>
  );
}

/** A labelled select, as Field is a labelled input. */
function Choice<T extends string>(props: {
  label: string;
  value: T;
  options: [T, string][];
  onChange: (value: T) => void;
  hint?: string;
}) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <select
        id={id}
        value={props.value}
        aria-describedby={props.hint ? `${id}-hint` : undefined}
        onChange={(e) => props.onChange((e.target as HTMLSelectElement).value as T)}
      >
        {props.options.map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
      {props.hint && (
        <small id={`${id}-hint`} class="hint">
          {props.hint}
        </small>
      )}
    </div>
  );
}

function PemArea(props: { value: string; onInput: (value: string) => void; hint: string }) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>CA certificate (PEM)</label>
      <textarea
        id={id}
        rows={3}
        spellcheck={false}
        aria-describedby={`${id}-hint`}
        value={props.value}
        onInput={(e) => props.onInput((e.target as HTMLTextAreaElement).value)}
      />
      <small id={`${id}-hint`} class="hint">
        {props.hint}
      </small>
    </div>
  );
}
