import type { ComponentChildren } from 'preact';
import { useEffect, useId, useState } from 'preact/hooks';
import { api, explain } from './api.js';
import type { ClusterRole } from './roles.js';

/** A labelled input: the label is what a person, a screen reader and a test all call it. */
export function Field(props: {
  label: string;
  value: string;
  onInput: (value: string) => void;
  type?: string;
  autoComplete?: string;
  required?: boolean;
  hint?: string;
  min?: number;
  max?: number;
}) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <input
        id={id}
        type={props.type ?? 'text'}
        value={props.value}
        autoComplete={props.autoComplete}
        required={props.required}
        min={props.min}
        max={props.max}
        aria-describedby={props.hint ? `${id}-hint` : undefined}
        onInput={(e) => props.onInput((e.target as HTMLInputElement).value)}
      />
      {props.hint && (
        <small id={`${id}-hint`} class="hint">
          {props.hint}
        </small>
      )}
    </div>
  );
}

/** A refusal or failure, next to what caused it, read out by screen readers. */
export function Problem(props: { children?: ComponentChildren; title?: string }) {
  if (!props.children) return null;
  return (
    <div class="problem" role="alert">
      {props.title && <strong>{props.title}: </strong>}
      {props.children}
    </div>
  );
}

export function Done(props: { children?: ComponentChildren }) {
  if (!props.children) return null;
  return (
    <p class="done" role="status">
      {props.children}
    </p>
  );
}

/** What a new password must be, as the server's policy says now. */
export function PasswordRules(props: { id?: string }) {
  const [rules, setRules] = useState<string[]>([]);
  useEffect(() => {
    api<{ rules: string[] }>('GET', '/v1/password-rules').then(
      (r) => setRules(r.rules),
      () => setRules([]),
    );
  }, []);
  if (rules.length === 0) return null;
  return (
    <div class="rules" id={props.id}>
      <p>A new password needs:</p>
      <ul>
        {rules.map((rule) => (
          <li key={rule}>{rule}</li>
        ))}
      </ul>
    </div>
  );
}

/** The cluster's roles as checkboxes: a user holds the rights of every role ticked. */
export function RoleChoice(props: {
  legend: string;
  roles: ClusterRole[];
  value: number[];
  onChange: (uids: number[]) => void;
}) {
  return (
    <fieldset class="roles">
      <legend>{props.legend}</legend>
      {props.roles.map((r) => (
        <label key={r.uid} class="check">
          <input
            type="checkbox"
            checked={props.value.includes(r.uid)}
            onChange={(e) =>
              props.onChange(
                (e.target as HTMLInputElement).checked
                  ? [...props.value, r.uid].sort((a, b) => a - b)
                  : props.value.filter((x) => x !== r.uid),
              )
            }
          />{' '}
          {r.name} ({r.management})
        </label>
      ))}
    </fieldset>
  );
}

/** A checkbox (or a radio button) with its label after it. */
export function Check(props: {
  id: string;
  label: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  radio?: boolean;
  name?: string;
}) {
  return (
    <div class="field check">
      <input
        id={props.id}
        type={props.radio ? 'radio' : 'checkbox'}
        name={props.name}
        checked={props.checked}
        onChange={(e) => props.onChange((e.target as HTMLInputElement).checked)}
      />
      <label for={props.id}>{props.label}</label>
    </div>
  );
}

/**
 * A page's actions: each clears the last outcome, runs, says it is done and reloads the page's
 * data, or shows the refusal in the server's words (and answers whether it went through).
 */
export function useActions(reload: () => Promise<unknown>) {
  const [problem, setProblem] = useState('');
  const [done, setDone] = useState('');
  const act = async (what: () => Promise<unknown>, success: string): Promise<boolean> => {
    setProblem('');
    setDone('');
    try {
      await what();
      setDone(success);
      await reload();
      return true;
    } catch (err) {
      setProblem(explain(err));
      return false;
    }
  };
  return { problem, setProblem, done, act };
}
