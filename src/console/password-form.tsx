import { useState } from 'preact/hooks';
import { api, explain } from './api.js';
import { Field, PasswordRules, Problem } from './components.js';

/**
 * Current + new + repeat, as the API takes it (PUT /v1/users/password): how a person with an
 * expired password replaces it (no token), and how anyone changes their own.
 */
export function PasswordForm(props: {
  username: string;
  current?: string;
  token?: string;
  onChanged: (newPassword: string) => void | Promise<void>;
}) {
  const [current, setCurrent] = useState(props.current ?? '');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [problem, setProblem] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setProblem('');
    if (next !== repeat) return setProblem('The new passwords do not match.');
    setBusy(true);
    try {
      await api('PUT', '/v1/users/password', {
        token: props.token,
        body: { username: props.username, old_password: current, new_password: next },
      });
      await props.onChanged(next);
    } catch (err) {
      setProblem(explain(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit} aria-label="Change password">
      <Field
        label="Current password"
        type="password"
        autoComplete="current-password"
        value={current}
        onInput={setCurrent}
        required
      />
      <Field label="New password" type="password" autoComplete="new-password" value={next} onInput={setNext} required />
      <Field
        label="Repeat new password"
        type="password"
        autoComplete="new-password"
        value={repeat}
        onInput={setRepeat}
        required
      />
      <PasswordRules />
      <Problem>{problem}</Problem>
      <button type="submit" disabled={busy}>
        Change password
      </button>
    </form>
  );
}
